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
  /** A REGISTER carried an epoch other than 0; the broker hands out epochs. Register with epoch 0. */
  BAD_EPOCH(101, Kind.REJECTED),
  /** The dispatcher or changefeed id is taken by a different registration; pick another id or remove the old one. */
  ID_IN_USE(102, Kind.REJECTED),
  /** The start ts is below the broker's GC point: those events are gone. Start at or above the GC point the message names (a resync). */
  START_TS_BELOW_GC(103, Kind.REJECTED),
  /** No table of that name or id exists at the ts asked (names are {@code schema.table}, case-sensitive). */
  UNKNOWN_TABLE(104, Kind.REJECTED),
  /** The table was dropped at or before the ts asked; subscribe to what replaced it. */
  TABLE_DROPPED(105, Kind.REJECTED),
  /** The key-hash span is empty or out of range ({@code hash_lo < hash_hi <= 2^32}). */
  INVALID_SPAN(106, Kind.REJECTED),
  /** The request is malformed or not allowed in the dispatcher's state; the message says which field. */
  INVALID_REQUEST(107, Kind.REJECTED),
  /** A request named a dispatcher id this broker does not know (never registered, or removed); register it again. */
  UNKNOWN_DISPATCHER(108, Kind.REJECTED),
  /** A request carried an epoch older than the dispatcher's current one; it was superseded by a later RESET. */
  STALE_EPOCH(109, Kind.REJECTED),
  /** A feature the peer requires is not offered by this side (Hello negotiation), or the call is not implemented. */
  UNSUPPORTED_FEATURE(110, Kind.REJECTED),
  /** The message carries a field this broker does not know; Sluice never ignores fields. Upgrade the broker or drop the field. */
  UNKNOWN_FIELD(111, Kind.REJECTED),
  /** A stream sent something before its Hello. */
  MISSING_HELLO(112, Kind.REJECTED),
  /** A stream message of a kind this broker does not know. */
  UNKNOWN_MESSAGE(113, Kind.REJECTED),
  /** A message exceeds the size limit the message names. */
  MESSAGE_TOO_LARGE(114, Kind.REJECTED),
  /** The peer broke a rule of PROTOCOL.md (order of messages, sequence numbers); the stream ends. */
  PROTOCOL_VIOLATION(115, Kind.REJECTED),
  /** A write arrived with a commit ts not above the last one (DDL history, capture). */
  OUT_OF_ORDER(117, Kind.REJECTED),
  /** A per-stream or per-broker limit (dispatchers, changefeeds) is reached; the message names it. */
  QUOTA_EXCEEDED(120, Kind.REJECTED),
  /** Authenticated, but the principal's roles or table patterns do not allow the request. */
  PERMISSION_DENIED(121, Kind.REJECTED),
  /** No valid credential (token or client certificate) came with the request. */
  UNAUTHENTICATED(122, Kind.REJECTED),
  /**
   * The upstream publication leaves the table out, so none of its changes reach the broker; add it to the
   * publication (the message says how) or subscribe to a published table.
   */
  TABLE_NOT_PUBLISHED(123, Kind.REJECTED),
  /** The broker's event store cannot serve right now; retry with backoff. */
  STORE_UNAVAILABLE(200, Kind.TRANSIENT),
  /** The schema store does not know the ts asked yet, or cannot answer right now; retry shortly. */
  SCHEMA_UNAVAILABLE(201, Kind.TRANSIENT),
  /** The broker is stopping; connect to another member or retry later. */
  SHUTTING_DOWN(202, Kind.TRANSIENT),
  /** The upstream database cannot be reached; capture retries. */
  UPSTREAM_UNAVAILABLE(203, Kind.TRANSIENT),
  /** The dispatcher fell too far behind and the broker let it go; it resets from its checkpoint. */
  SLOW_CONSUMER(204, Kind.TRANSIENT),
  /** The start ts is above what the broker has resolved; retry shortly or start lower. */
  START_TS_AHEAD(205, Kind.TRANSIENT),
  /** A dispatcher-side sink (JDBC target) cannot be reached; the pipeline retries from its checkpoint. */
  SINK_UNAVAILABLE(206, Kind.TRANSIENT),
  /** The cluster cannot schedule changefeeds now: its CP subsystem (3 members) has no quorum. */
  NO_QUORUM(207, Kind.TRANSIENT),
  /** The changefeed is between owners (its node left or is draining); retry shortly. */
  CHANGEFEED_MOVING(208, Kind.TRANSIENT),
  /** The node is draining: a collector moves to another member. */
  DRAINING(209, Kind.TRANSIENT),
  /** No broker answered the client (connection refused, unknown host, TLS failure, no Welcome); set by the client. */
  BROKER_UNREACHABLE(210, Kind.TRANSIENT),
  /** The broker's event store failed a consistency check; an operator must restore or rebuild it. */
  STORE_CORRUPT(300, Kind.FATAL),
  /** A bug, or a code from a newer peer this side does not know; the message has the details. */
  INTERNAL(301, Kind.FATAL),
  /** A dispatcher-side sink refused a change it cannot get past (statement error, table without key). */
  SINK_FAILED(302, Kind.FATAL),
  /** A DDL the sink cannot apply; the changefeed stops rather than skip it. */
  UNSUPPORTED_DDL(303, Kind.FATAL),
  /** The upstream database cannot be captured as configured (wal_level, privileges, publication). */
  UPSTREAM_MISCONFIGURED(304, Kind.FATAL),
  /** The replication slot capture resumes from is missing or invalidated: changes may be lost. */
  REPLICATION_SLOT_LOST(305, Kind.FATAL),
  /** A newer owner of the changefeed holds a higher fencing token at the sink: this writer stops. */
  FENCED_OUT(306, Kind.FATAL);

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

  /** Who must act: the caller ({@link Kind#REJECTED}), nobody but a retry (TRANSIENT), an operator (FATAL). */
  public Kind kind() {
    return kind;
  }

  /** The wire enum value of the same number ({@code sluice.v1.ErrorCode}). */
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
