package dev.sluice.broker.snapshot;

import dev.sluice.api.v1.SnapshotDone;
import dev.sluice.api.v1.SnapshotStatus;

/**
 * How a snapshot ended, as its {@code SnapshotDone} event says.
 *
 * @param status   complete, table dropped, cancelled or failed
 * @param reason   a sentence a person can act on; empty when complete
 * @param rowsRead rows read in this epoch
 * @param chunks   chunks read in this epoch
 */
public record SnapshotEnd(SnapshotStatus status, String reason, long rowsRead, long chunks) {

  public SnapshotDone toProto() {
    return SnapshotDone.newBuilder().setStatus(status).setReason(reason == null ? "" : reason).setRowsRead(rowsRead)
        .setChunks(chunks).build();
  }
}
