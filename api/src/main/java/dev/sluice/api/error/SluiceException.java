package dev.sluice.api.error;

import dev.sluice.api.secret.Redactor;

/**
 * An error with a stable {@link ErrorCode} and a message a person can act on. The three branches say
 * who must act: the caller ({@link RequestRejectedException}), nobody but a retry
 * ({@link TransientException}), or an operator ({@link FatalException}).
 *
 * <pre>{@code
 * throw new RequestRejectedException(ErrorCode.START_TS_BELOW_GC,
 *     "start ts 4123 is below the GC point 5000 of public.orders; register again from 5000 or later");
 * }</pre>
 */
public abstract sealed class SluiceException extends RuntimeException
    permits RequestRejectedException, TransientException, FatalException {

  /** The stable code (serialized with the exception). */
  private final ErrorCode code;

  /**
   * The message and the cause chain are {@linkplain Redactor redacted} here, once: every error of
   * Sluice reaches logs, status pages, persisted records and the wire without the secrets a driver
   * or a URL put into it.
   */
  protected SluiceException(ErrorCode code, String message, Throwable cause) {
    super(Redactor.redact(message), Redactor.scrub(cause));
    if (code == null) {
      throw new NullPointerException("code");
    }
    this.code = code;
  }

  /** The stable code to branch on ({@code e.code() == ErrorCode.START_TS_BELOW_GC}). */
  public final ErrorCode code() {
    return code;
  }

  /** Builds the exception of the branch the code belongs to. */
  public static SluiceException of(ErrorCode code, String message) {
    return of(code, message, null);
  }

  /** Builds the exception of the branch the code belongs to, with a cause. */
  public static SluiceException of(ErrorCode code, String message, Throwable cause) {
    return switch (code.kind()) {
      case REJECTED -> new RequestRejectedException(code, message, cause);
      case TRANSIENT -> new TransientException(code, message, cause);
      case FATAL -> new FatalException(code, message, cause);
    };
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + code + "]: " + getMessage();
  }
}
