package dev.sluice.api.error;

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

  private final ErrorCode code;

  protected SluiceException(ErrorCode code, String message, Throwable cause) {
    super(message, cause);
    if (code == null) {
      throw new NullPointerException("code");
    }
    this.code = code;
  }

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
