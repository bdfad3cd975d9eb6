package dev.sluice.dispatcher.collector;

/**
 * What can happen to a dispatcher: broker messages already classified against the receiver rules,
 * stream changes, timers and user actions. The collector turns each broker message into exactly one
 * input; the payload (the events to deliver, the rejection) travels beside it, never inside the
 * pure {@link DispatcherTransitions#apply} decision.
 */
enum DispatcherInput {
  /** A Connect stream was opened and welcomed by a broker of the same incarnation as before (or the first one). */
  CONNECTED,
  /** A stream was welcomed by a broker whose incarnation differs from the last one seen: its state is gone. */
  BROKER_RESTARTED,
  /** The stream broke, ended, or its heartbeats timed out. */
  DISCONNECTED,
  /** The broker's Ready for this dispatcher. */
  READY,
  /** The step scheduled earlier is due: the RESET after Ready, or a retry after a transient rejection. */
  PROCEED,
  /** The ack of the outstanding request: ACCEPTED. */
  ACK_ACCEPTED,
  /** The ack of the outstanding request: STALE (the broker has this epoch or a newer one, or a tombstone). */
  ACK_STALE,
  /** The ack of the outstanding request: NOT_FOUND (the broker does not know the dispatcher). */
  ACK_NOT_FOUND,
  /** The ack of the outstanding request: REJECTED with a code the caller must act on. */
  ACK_REJECTED,
  /** The ack of the outstanding request: REJECTED with a transient code; retry with backoff. */
  ACK_RETRYABLE,
  /** The Handshake (seq 1) of the current epoch. */
  HANDSHAKE,
  /** An EventBatch of the current epoch whose events follow {@code last_seq} without a gap. */
  EVENTS,
  /** A Resolved of the current epoch carrying exactly {@code last_seq}. */
  RESOLVED,
  /** Anything of an older epoch, or an event while no epoch is live: dropped silently. */
  STALE_EPOCH,
  /** A receiver-rule violation: seq gap, missing or repeated handshake, wrong last_seq, broken fragment. */
  SEQUENCE_VIOLATION,
  /** A HeartbeatResponse listed this dispatcher as REMOVED for its current epoch. */
  HEARTBEAT_REMOVED,
  /** The user closed the subscription. */
  CLOSE,
  /**
   * The user changed what the stream should carry (paused, resumed, cancelled or asked again for a snapshot):
   * a new epoch from the checkpoint carries the change. In RESETTING the session waits for the handshake of
   * the reset in flight and asks again then.
   */
  RESET_REQUESTED,
  /** The listener threw, or the library met an error it cannot get past for this dispatcher. */
  LISTENER_FAILED
}
