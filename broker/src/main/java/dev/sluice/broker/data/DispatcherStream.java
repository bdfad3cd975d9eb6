package dev.sluice.broker.data;

import dev.sluice.api.DispatcherId;
import dev.sluice.broker.control.CollectorLink;
import dev.sluice.broker.control.DispatcherRegistration;
import dev.sluice.broker.store.ScanCursor;

/**
 * The data plane's state of one dispatcher: where its current epoch stands and what it may be sent.
 * Owned by one {@link DataPlaneVerticle}: touched only on its context. Kept lean (primitives, no
 * per-dispatcher timers or queues): an idle node holds 100,000 of these.
 *
 * <p>Scan states: IDLE (nothing running), RUNNING (a {@link ScanTask} on a worker). A reset while
 * RUNNING cancels the task; its result is dropped because its epoch is no longer current.
 */
final class DispatcherStream {

  final DispatcherRegistration registration;
  CollectorLink link;
  /** Current epoch; 0 = registered, never reset. */
  long epoch;
  /** Whether the epoch streams (false before the first reset and after a rejected one). */
  boolean active;
  /** Seq of the last event sent in this epoch (the handshake is 1). */
  long seq;
  /** Every event with commit ts {@code <=} this was sent in this epoch. */
  long progressTs;
  /** Resume point inside the transaction after progressTs, or null. */
  ScanCursor cursor;
  int nextFragmentIndex;
  long tableInfoVersion;
  long tableInfoVersionRowSeq;
  long lastMarkTimeMicros = -1;
  /** Ts carried by the last Resolved sent in this epoch. */
  long resolvedSentTs;
  long resolvedSentAtNanos;
  /** Bytes of events sent in this epoch (credit arithmetic). */
  long sentBytes;
  /** Credit from the last report of this epoch; -1 = never reported: do not scan. */
  long creditAvailable = -1;
  long creditReceived;
  /**
   * A credit report for a later epoch than the current one: it raced ahead of the control plane's
   * reset (credits come straight from the stream), and applies when that epoch starts.
   */
  long earlyCreditEpoch = -1;
  long earlyCreditAvailable;
  long earlyCreditReceived;
  /** The running scan, or null. */
  ScanTask running;
  /** Queued on the instance's waiting list (needs a scan, blocked on credit, room or a slot). */
  boolean waiting;
  /** When it last joined the wait queue (nanoTime of the data plane's clock). */
  long parkedAtNanos;
  /** The snapshot this epoch runs, or null. */
  SnapshotLane snapshot;
  /** After a failure to consider it, not before {@code retryAfterNanos} (one broken stream must not spin the loop). */
  boolean backingOff;
  long retryAfterNanos;

  DispatcherStream(DispatcherRegistration registration, CollectorLink link) {
    this.registration = registration;
    this.link = link;
  }

  DispatcherId id() {
    return registration.id();
  }

  /** Bytes the credit still allows in this epoch; 0 when never reported. */
  long creditAllowed() {
    if (creditAvailable < 0) {
      return 0;
    }
    return Math.max(0, creditAvailable - (sentBytes - creditReceived));
  }
}
