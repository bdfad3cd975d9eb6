package dev.sluice.broker.snapshot;

import java.util.List;

/**
 * What one chunk read returned.
 *
 * @param rows      the rows, in key order (keyed tables) or heap order (keyless)
 * @param next      where the next chunk starts: after the last row's key, or at the next block
 * @param exhausted true when nothing is left to read after this chunk
 * @param bytes     the rows' encoded size
 */
public record SourceChunk(List<SnapshotRow> rows, SnapshotPosition next, boolean exhausted, long bytes) {

  public SourceChunk {
    rows = List.copyOf(rows);
  }
}
