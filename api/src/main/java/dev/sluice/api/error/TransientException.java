package dev.sluice.api.error;

/** Nobody needs to act: the caller retries with backoff. */
public non-sealed class TransientException extends SluiceException {

  /** An error of {@code code} (a TRANSIENT code, else IllegalArgumentException) with a message a person can act on. */
  public TransientException(ErrorCode code, String message) {
    this(code, message, null);
  }

  /** The same, with the {@code cause} (redacted, as the message). */
  public TransientException(ErrorCode code, String message, Throwable cause) {
    super(code, message, cause);
    if (code.kind() != ErrorCode.Kind.TRANSIENT) {
      throw new IllegalArgumentException(code + " is a " + code.kind() + " code, not TRANSIENT");
    }
  }
}
