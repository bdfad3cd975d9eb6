package dev.sluice.api.error;

/** Nobody needs to act: the caller retries with backoff. */
public non-sealed class TransientException extends SluiceException {

  public TransientException(ErrorCode code, String message) {
    this(code, message, null);
  }

  public TransientException(ErrorCode code, String message, Throwable cause) {
    super(code, message, cause);
    if (code.kind() != ErrorCode.Kind.TRANSIENT) {
      throw new IllegalArgumentException(code + " is a " + code.kind() + " code, not TRANSIENT");
    }
  }
}
