package dev.sluice.broker.capture;

import dev.sluice.api.pgtext.PgText;
import dev.sluice.api.v1.TextCodec;
import dev.sluice.api.v1.Value;

/**
 * Parses PostgreSQL's text output (as pgoutput sends it, with the {@code DateStyle=ISO} PgJDBC sets on the
 * replication connection) into typed {@link Value}s over a catalog {@link PgType}: {@link PgText} does the
 * parsing by the type's codec (the same code a client reads {@code CopyRows} with), and a refusal names the
 * type. See {@link PgText} for the mappings.
 *
 * <pre>{@code
 * Value v = PgTextValues.parse(types.resolve(1184), "2024-01-31 12:00:00.5+01");
 * long micros = v.getTimestampValue().getMicros();   // 2024-01-31T11:00:00.5Z
 * }</pre>
 */
final class PgTextValues {

  static final Value NULL = PgText.NULL;
  static final Value UNAVAILABLE = PgText.UNAVAILABLE;

  private PgTextValues() {}

  /**
   * Parses the text form of one non-null value straight from the message bytes (UTF-8, as the
   * replication connection's client encoding is); same result as {@link #parse(PgType, String)}.
   */
  static Value parse(PgType type, byte[] buf, int off, int len) {
    try {
      return PgText.parse(type.codec().text(), element(type), delimiter(type), buf, off, len);
    } catch (IllegalArgumentException e) {
      throw named(type, e);
    }
  }

  /**
   * Parses the text form of one non-null value.
   *
   * @throws IllegalArgumentException when the text is not a valid value of the type, naming it
   */
  static Value parse(PgType type, String text) {
    try {
      return PgText.parse(type.codec().text(), element(type), delimiter(type), text);
    } catch (IllegalArgumentException e) {
      throw named(type, e);
    }
  }

  private static TextCodec element(PgType type) {
    return type.element() == null ? TextCodec.TEXT_CODEC_UNSPECIFIED : type.element().codec().text();
  }

  private static char delimiter(PgType type) {
    return type.element() == null ? ',' : type.element().delimiter();
  }

  private static IllegalArgumentException named(PgType type, IllegalArgumentException e) {
    String m = String.valueOf(e.getMessage());
    int quote = m.indexOf(" value: '");
    String what = quote < 0 ? m : "not a valid " + type.name() + m.substring(quote);
    return new IllegalArgumentException(what, e.getCause() != null ? e.getCause() : e);
  }
}
