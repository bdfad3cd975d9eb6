package dev.sluice.broker.control;

import dev.sluice.api.DispatcherId;
import dev.sluice.broker.snapshot.SnapshotPlan;
import dev.sluice.broker.store.ScanCursor;

/**
 * Messages from the control plane (and the stream endpoint) to the data plane instance that owns a
 * dispatcher. Immutable; the data plane applies them on its own context in arrival order, so a
 * dispatcher's commands are seen in the order the control plane sent them.
 */
public sealed interface DataPlaneCommand {

  DispatcherId id();

  /** A registered dispatcher; it streams nothing until {@link Reset}. */
  record Add(DispatcherRegistration registration, CollectorLink link) implements DataPlaneCommand {
    @Override
    public DispatcherId id() {
      return registration.id();
    }
  }

  /**
   * A new epoch: cancel any scan of the old one, then stream {@code (startTs, ...]} from seq 2 (the
   * control plane sent the handshake, seq 1).
   *
   * @param cursor           resume point inside the transaction after startTs, or null
   * @param tableInfoVersion version of the table info the handshake carried
   * @param tableInfoVersionRowSeq its row seq (which of several versions of that commit ts)
   * @param snapshot         the snapshot this epoch runs, or null for none
   */
  record Reset(DispatcherId id, long epoch, long startTs, ScanCursor cursor, long tableInfoVersion,
      long tableInfoVersionRowSeq, SnapshotPlan snapshot) implements DataPlaneCommand {

    /** A reset without a snapshot. */
    public Reset(DispatcherId id, long epoch, long startTs, ScanCursor cursor, long tableInfoVersion,
        long tableInfoVersionRowSeq) {
      this(id, epoch, startTs, cursor, tableInfoVersion, tableInfoVersionRowSeq, null);
    }
  }

  /** The epoch moved on without a handshake (rejected RESET): stop streaming the old epoch. */
  record Suspend(DispatcherId id, long epoch) implements DataPlaneCommand {}

  /** The dispatcher is gone. */
  record Remove(DispatcherId id) implements DataPlaneCommand {}

  /** A credit report for the dispatcher; ignored unless {@code epoch} is current and {@code from} is its stream. */
  record Credit(DispatcherId id, long epoch, long availableBytes, long receivedBytes, CollectorLink from)
      implements DataPlaneCommand {}
}
