package dev.sluice.api.error;

/**
 * Stable error codes shared by the broker, the dispatcher library and the wire
 * ({@code sluice.v1.ErrorCode}). A name may change; a number never does.
 *
 * <pre>{@code
 * ErrorCode code = ErrorCode.fromWire(ack.getCode());
 * if (code.kind() == ErrorCode.Kind.TRANSIENT) retryLater();
 * }</pre>
 */
public enum ErrorCode {
  BAD_EPOCH(101, Kind.REJECTED),
  ID_IN_USE(102, Kind.REJECTED),
  START_TS_BELOW_GC(103, Kind.REJECTED),
  UNKNOWN_TABLE(104, Kind.REJECTED),
  TABLE_DROPPED(105, Kind.REJECTED),
  INVALID_SPAN(106, Kind.REJECTED),
  INVALID_REQUEST(107, Kind.REJECTED),
  UNKNOWN_DISPATCHER(108, Kind.REJECTED),
  STALE_EPOCH(109, Kind.REJECTED),
  UNSUPPORTED_FEATURE(110, Kind.REJECTED),
  UNKNOWN_FIELD(111, Kind.REJECTED),
  MISSING_HELLO(112, Kind.REJECTED),
  UNKNOWN_MESSAGE(113, Kind.REJECTED),
  MESSAGE_TOO_LARGE(114, Kind.REJECTED),
  PROTOCOL_VIOLATION(115, Kind.REJECTED),
  OUT_OF_ORDER(117, Kind.REJECTED),
  QUOTA_EXCEEDED(120, Kind.REJECTED),
  STORE_UNAVAILABLE(200, Kind.TRANSIENT),
  SCHEMA_UNAVAILABLE(201, Kind.TRANSIENT),
  SHUTTING_DOWN(202, Kind.TRANSIENT),
  UPSTREAM_UNAVAILABLE(203, Kind.TRANSIENT),
  SLOW_CONSUMER(204, Kind.TRANSIENT),
  START_TS_AHEAD(205, Kind.TRANSIENT),
  SINK_UNAVAILABLE(206, Kind.TRANSIENT),
  STORE_CORRUPT(300, Kind.FATAL),
  INTERNAL(301, Kind.FATAL),
  SINK_FAILED(302, Kind.FATAL),
  UNSUPPORTED_DDL(303, Kind.FATAL),
  UPSTREAM_MISCONFIGURED(304, Kind.FATAL),
  REPLICATION_SLOT_LOST(305, Kind.FATAL);

  /** Who must act on an error of this code. */
  public enum Kind {
    /** The caller fixes the request. */
    REJECTED,
    /** Nobody acts; the caller retries with backoff. */
    TRANSIENT,
    /** An operator steps in; the component stops. */
    FATAL
  }

  private final int number;
  private final Kind kind;

  ErrorCode(int number, Kind kind) {
    this.number = number;
    this.kind = kind;
  }

  /** The frozen wire number. */
  public int number() {
    return number;
  }

  public Kind kind() {
    return kind;
  }

  public dev.sluice.api.v1.ErrorCode toWire() {
    dev.sluice.api.v1.ErrorCode wire = dev.sluice.api.v1.ErrorCode.forNumber(number);
    if (wire == null) {
      throw new IllegalStateException("no wire error code " + number + " for " + this);
    }
    return wire;
  }

  /** The code for a wire value; an unknown number from a newer peer becomes {@link #INTERNAL}. */
  public static ErrorCode fromWire(dev.sluice.api.v1.ErrorCode wire) {
    if (wire == dev.sluice.api.v1.ErrorCode.UNRECOGNIZED) {
      return INTERNAL;
    }
    for (ErrorCode c : values()) {
      if (c.number == wire.getNumber()) {
        return c;
      }
    }
    return INTERNAL;
  }
}
