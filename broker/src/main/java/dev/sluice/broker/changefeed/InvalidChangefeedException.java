package dev.sluice.broker.changefeed;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.RequestRejectedException;

/**
 * A changefeed request the caller must fix: a bad field value, an unknown field or option, a sink URI
 * that cannot be used. The message names the field and the value; the admin API answers 400.
 *
 * <pre>{@code
 * throw InvalidChangefeedException.field("include", "needs at least one rule such as \"public.*\"");
 * }</pre>
 */
public final class InvalidChangefeedException extends RequestRejectedException {

  private final String field;

  public InvalidChangefeedException(ErrorCode code, String field, String message) {
    super(code, message);
    this.field = field;
  }

  /** A bad value of {@code field}. */
  public static InvalidChangefeedException field(String field, String problem) {
    return new InvalidChangefeedException(ErrorCode.INVALID_REQUEST, field, field + " " + problem);
  }

  /** Fields (or query parameters) that are not part of the request's schema. */
  public static InvalidChangefeedException unknown(String where, java.util.Collection<String> names,
      java.util.Collection<String> known) {
    return new InvalidChangefeedException(ErrorCode.UNKNOWN_FIELD, String.join(",", names),
        "unknown " + where + " " + names + "; known: " + known);
  }

  /** The field the problem is about (comma-separated for several unknown ones). */
  public String field() {
    return field;
  }
}
