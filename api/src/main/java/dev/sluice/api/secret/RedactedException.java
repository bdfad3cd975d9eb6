package dev.sluice.api.secret;

import java.util.Collection;

/**
 * A copy of a third-party exception whose message showed a secret (a driver that echoes its JDBC URL):
 * the original class is named at the start of the message, the secret is masked, the stack trace is
 * the original's. Made by {@link Redactor#scrub}, never thrown by Sluice code on its own.
 *
 * <pre>{@code
 * // java.sql.SQLException: No suitable driver found for jdbc:mysql://db/app?password=secret becomes
 * // RedactedException: java.sql.SQLException: No suitable driver found for jdbc:mysql://db/app?password=***
 * }</pre>
 */
public final class RedactedException extends RuntimeException {

  private final String originalClassName;

  RedactedException(Throwable original, Collection<String> literals) {
    super(original.getClass().getName() + ": " + Redactor.redact(original.getMessage(), literals));   // cause: initCause
    this.originalClassName = original.getClass().getName();
    setStackTrace(original.getStackTrace());
  }

  /** The class of the exception this copies. */
  public String originalClassName() {
    return originalClassName;
  }
}
