package dev.sluice.api.error;

/** An operator must act; the component that raised it stops. */
public non-sealed class FatalException extends SluiceException {

  /** An error of {@code code} (a FATAL code, else IllegalArgumentException) with a message a person can act on. */
  public FatalException(ErrorCode code, String message) {
    this(code, message, null);
  }

  /** The same, with the {@code cause} (redacted, as the message). */
  public FatalException(ErrorCode code, String message, Throwable cause) {
    super(code, message, cause);
    if (code.kind() != ErrorCode.Kind.FATAL) {
      throw new IllegalArgumentException(code + " is a " + code.kind() + " code, not FATAL");
    }
  }
}
