package dev.sluice.api.error;

/** The caller must change the request; retrying it unchanged fails the same way. */
public non-sealed class RequestRejectedException extends SluiceException {

  public RequestRejectedException(ErrorCode code, String message) {
    this(code, message, null);
  }

  public RequestRejectedException(ErrorCode code, String message, Throwable cause) {
    super(code, message, cause);
    if (code.kind() != ErrorCode.Kind.REJECTED) {
      throw new IllegalArgumentException(code + " is a " + code.kind() + " code, not REJECTED");
    }
  }
}
