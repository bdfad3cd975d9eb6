package dev.sluice.broker.snapshot;

import dev.sluice.api.v1.SnapshotProgress;
import dev.sluice.schema.TableInfo;
import java.util.List;

/**
 * A chunk read between two watermarks, handed to the data plane, which delivers its rows (after the
 * watermark merge) as READ rows at {@code highTs} and then tells {@link #session()} how it went. Chunks of
 * one session are delivered in the order they were read.
 *
 * @param session    the snapshot this chunk belongs to
 * @param generation the session's read generation it was read in: a chunk read again rewinds the session to
 *                   it, and chunks of an older generation are dropped
 * @param from       where the chunk started: where the session rewinds to when it is read again
 * @param number     the chunk's number in its snapshot, from 1
 * @param windowFromTs commit ts of an earlier watermark of the session (the previous chunk's low one, or one
 *                   written before the low one for a session's first chunk): the watermark merge takes the
 *                   table's changes in {@code (windowFromTs, highTs]}, not only {@code (lowTs, highTs]}, because
 *                   PostgreSQL can make a transaction visible to new snapshots only after the low watermark's
 *                   commit record followed its own; the stream delivers every change of the window before
 *                   {@code highTs}, so a row one of them touched may be dropped from the chunk
 * @param lowTs    commit ts of the low watermark, written before the SELECT; DDL between it and
 *                 {@code highTs} makes the chunk read again
 * @param highTs   commit ts of the high watermark, written after it: where the rows are delivered
 * @param table    the table info the rows were read with (their column order)
 * @param rows     the rows as read, in key (or heap) order, before the merge
 * @param progress where the snapshot stands once this chunk is delivered (sent with its last part)
 * @param last     true when nothing is left to read after this chunk: SnapshotDone follows it
 * @param bytes    the rows' encoded size, held against the snapshot memory budget until delivered
 */
public record ReadChunk(SnapshotSession session, int generation, SnapshotPosition from, long number,
    long windowFromTs, long lowTs, long highTs, TableInfo table,
    List<SnapshotRow> rows, SnapshotProgress progress, boolean last, long bytes) {

  /** Whether the session still wants it (no earlier chunk was read again since). */
  public boolean current() {
    return session.generation() == generation;
  }

  public ReadChunk {
    rows = List.copyOf(rows);
    if (windowFromTs > lowTs) {
      throw new IllegalArgumentException("the merge window must open at or before the low watermark: "
          + windowFromTs + " > " + lowTs);
    }
    if (highTs <= lowTs) {
      throw new IllegalArgumentException("the high watermark " + highTs + " must be above the low one " + lowTs);
    }
  }
}
