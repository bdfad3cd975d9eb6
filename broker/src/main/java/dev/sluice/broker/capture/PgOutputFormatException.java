package dev.sluice.broker.capture;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.FatalException;

/** A pgoutput message could not be decoded: a protocol mismatch or a bug, never a data problem. */
final class PgOutputFormatException extends FatalException {

  PgOutputFormatException(String message) {
    this(message, null);
  }

  PgOutputFormatException(String message, Throwable cause) {
    super(ErrorCode.INTERNAL, "pgoutput decoding failed: " + message
        + "; please report it with the PostgreSQL version (capture requested proto_version 1)", cause);
  }
}
