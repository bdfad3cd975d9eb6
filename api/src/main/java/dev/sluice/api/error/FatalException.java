package dev.sluice.api.error;

/** An operator must act; the component that raised it stops. */
public non-sealed class FatalException extends SluiceException {

  public FatalException(ErrorCode code, String message) {
    this(code, message, null);
  }

  public FatalException(ErrorCode code, String message, Throwable cause) {
    super(code, message, cause);
    if (code.kind() != ErrorCode.Kind.FATAL) {
      throw new IllegalArgumentException(code + " is a " + code.kind() + " code, not FATAL");
    }
  }
}
