package dev.sluice.dispatcher;

import dev.sluice.api.v1.SnapshotProgress;

/**
 * How far a subscription's snapshot got, as the last part of a chunk's READ rows says
 * ({@link Transaction#snapshot()}). Record {@link #next()} with the rows: it is where the snapshot goes on
 * after a restart.
 *
 * @param next         where the snapshot continues after this chunk
 * @param rowsRead     rows the snapshot read in the current stream epoch, this chunk included
 * @param rowsEstimate the table's estimated rows when the epoch's snapshot began (pg_class.reltuples), 0 unknown
 * @param chunks       chunks read in the current epoch, this one included
 * @param last         this chunk read the table to its end: the snapshot completes with it (a sink that loads the
 *                     table a way of its own finishes that in the chunk's transaction)
 */
public record SnapshotMark(SnapshotCursor next, long rowsRead, long rowsEstimate, long chunks, boolean last) {

  /** The mark of a chunk's last part, from the broker's {@code SnapshotProgress}. */
  public static SnapshotMark fromProto(SnapshotProgress p) {
    return new SnapshotMark(SnapshotCursor.after(p), p.getRowsRead(), p.getRowsEstimate(), p.getChunks(),
        p.getLast());
  }
}
