package dev.sluice.broker.config;

import dev.sluice.api.secret.Redactor;

/**
 * Hides credentials inside a setting's text, such as the {@code password=} of a JDBC URL, wherever a
 * value is shown ({@code GET /api/v1/config}, {@code --print-config}, configuration errors).
 *
 * <pre>{@code
 * Redact.credentials("jdbc:postgresql://db/app?user=sluice&password=secret");
 * // jdbc:postgresql://db/app?user=sluice&password=***
 * }</pre>
 */
final class Redact {

  private Redact() {}

  /** {@code text} through the one redactor every output of Sluice uses ({@link Redactor}). */
  static String credentials(String text) {
    return Redactor.redact(text);
  }

  /** A value as shown: secrets masked whole, credentials inside strings masked. */
  static Object shown(Setting<?> s, Object json) {
    if (json == null) {
      return null;
    }
    if (s.secret()) {
      return LiveConfig.MASK;
    }
    return json instanceof String str ? credentials(str) : json;
  }
}
