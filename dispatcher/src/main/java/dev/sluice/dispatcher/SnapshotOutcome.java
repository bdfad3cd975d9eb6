package dev.sluice.dispatcher;

import dev.sluice.api.v1.SnapshotDone;

/**
 * How a subscription's snapshot ended ({@link ChangeListener#onSnapshotComplete}).
 *
 * <pre>{@code
 * public void onSnapshotComplete(SnapshotOutcome o) {
 *   if (o.status() == SnapshotOutcome.Status.COMPLETE) markLoaded();
 *   else log.warn("snapshot of {} ended {}: {}", table, o.status(), o.reason());
 * }
 * }</pre>
 *
 * @param status   how it ended
 * @param reason   a sentence a person can act on; empty when complete
 * @param rowsRead rows read in the stream epoch it ended in
 * @param chunks   chunks read in that epoch
 */
public record SnapshotOutcome(Status status, String reason, long rowsRead, long chunks) {

  /** The ends a snapshot can have. */
  public enum Status {
    /** Every row was read: the listener has the table as of the last chunk, and changes go on. */
    COMPLETE,
    /** The table was dropped while it was read; its DROP comes (or came) as a change. */
    TABLE_DROPPED,
    /** Stopped on request (the subscriber, or an operator on the broker); changes go on. */
    CANCELLED,
    /** The upstream refused the read; {@link #reason()} says what to fix. Changes go on. */
    FAILED
  }

  /** The outcome the broker's {@code SnapshotDone} tells; a status this client does not know counts as FAILED. */
  public static SnapshotOutcome fromProto(SnapshotDone d) {
    Status s = switch (d.getStatus()) {
      case SNAPSHOT_STATUS_COMPLETE -> Status.COMPLETE;
      case SNAPSHOT_STATUS_TABLE_DROPPED -> Status.TABLE_DROPPED;
      case SNAPSHOT_STATUS_CANCELLED -> Status.CANCELLED;
      default -> Status.FAILED;
    };
    return new SnapshotOutcome(s, d.getReason(), d.getRowsRead(), d.getChunks());
  }
}
