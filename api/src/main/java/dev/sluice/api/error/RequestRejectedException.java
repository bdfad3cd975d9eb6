package dev.sluice.api.error;

/** The caller must change the request; retrying it unchanged fails the same way. */
public non-sealed class RequestRejectedException extends SluiceException {

  /** An error of {@code code} (a REJECTED code, else IllegalArgumentException) with a message a person can act on. */
  public RequestRejectedException(ErrorCode code, String message) {
    this(code, message, null);
  }

  /** The same, with the {@code cause} (redacted, as the message). */
  public RequestRejectedException(ErrorCode code, String message, Throwable cause) {
    super(code, message, cause);
    if (code.kind() != ErrorCode.Kind.REJECTED) {
      throw new IllegalArgumentException(code + " is a " + code.kind() + " code, not REJECTED");
    }
  }
}
