package dev.sluice.broker.store;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * The {@link StoreBatch} of {@link RocksEventStore}: rows and time marks go straight into a
 * {@link WriteBatchImage}; the position, resolved ts and per-table newest commit ts are kept aside and
 * appended by the store at write time, once per batch however many transactions it groups.
 *
 * <p>Not thread-safe. A batch may be written again after a failed write (the store appends and then
 * removes its metadata records), but a batch is meant to be written once.
 *
 * <pre>{@code
 * StoreBatch b = store.newBatch();
 * b.putRow(16384, commitTs, 0, keyHash, rowChangeBytes);
 * b.setResolvedTs(commitTs);
 * store.write(b, true);
 * }</pre>
 */
final class RocksStoreBatch implements StoreBatch {

  private static final int INITIAL_BYTES = 4096;

  private final Object owner;
  private final int rowsCfId;
  private final int timeMarksCfId;
  private final WriteBatchImage image = new WriteBatchImage(INITIAL_BYTES);
  private final Map<Long, long[]> tableMaxTs = new HashMap<>();
  private long lastTableId;
  private long[] lastTableMax;
  private int rows;
  private long rowBytes;
  private SourcePosition position;
  private long resolvedTs;
  private long floorTs;

  RocksStoreBatch(Object owner, int rowsCfId, int timeMarksCfId) {
    this.owner = owner;
    this.rowsCfId = rowsCfId;
    this.timeMarksCfId = timeMarksCfId;
  }

  @Override
  public void putRow(long tableId, long commitTs, long rowSeq, int keyHash, byte[] rowChange) {
    if (tableId <= 0 || commitTs <= 0 || rowSeq < 0) {
      throw new IllegalArgumentException("row key needs tableId > 0, commitTs > 0 and rowSeq >= 0, got ("
          + tableId + ", " + commitTs + ", " + rowSeq + ")");
    }
    Objects.requireNonNull(rowChange, "rowChange");
    image.putRow(rowsCfId, tableId, commitTs, rowSeq, keyHash, rowChange);
    rows++;
    rowBytes += EventKey.ROW_KEY_BYTES + rowChange.length;
    noteTableTs(tableId, commitTs);
  }

  @Override
  public void putTimeMark(long commitTs, long commitTimeMicros) {
    if (commitTs <= 0) {
      throw new IllegalArgumentException("time mark needs commitTs > 0, got " + commitTs);
    }
    image.put(timeMarksCfId, EventKey.ts(commitTs), EventKey.ts(commitTimeMicros));
  }

  @Override
  public void setPosition(SourcePosition position) {
    this.position = Objects.requireNonNull(position, "position");
  }

  @Override
  public void setResolvedTs(long resolvedTs) {
    this.resolvedTs = Math.max(this.resolvedTs, resolvedTs);
  }

  @Override
  public void setFloorTs(long floorTs) {
    if (floorTs < 0) {
      throw new IllegalArgumentException("floorTs must be >= 0, got " + floorTs);
    }
    this.floorTs = floorTs;
  }

  @Override
  public int rowCount() {
    return rows;
  }

  @Override
  public long byteSize() {
    return image.sizeBytes();
  }

  boolean isFrom(Object store) {
    return owner == store;
  }

  WriteBatchImage image() {
    return image;
  }

  /** Key and value bytes of the rows, for the bytes-written metric. */
  long rowBytes() {
    return rowBytes;
  }

  /** The position set last, or null. */
  SourcePosition position() {
    return position;
  }

  /** The floor set, 0 when none. */
  long floorTs() {
    return floorTs;
  }

  /** The highest resolved ts set, 0 when none. */
  long resolvedTs() {
    return resolvedTs;
  }

  void forEachTableMaxTs(BiConsumer<Long, Long> action) {
    tableMaxTs.forEach((table, max) -> action.accept(table, max[0]));
  }

  private void noteTableTs(long tableId, long commitTs) {
    // rows of a transaction come table by table: skip the map lookup for a run of one table
    if (lastTableMax == null || lastTableId != tableId) {
      lastTableId = tableId;
      lastTableMax = tableMaxTs.computeIfAbsent(tableId, t -> new long[1]);
    }
    if (commitTs > lastTableMax[0]) {
      lastTableMax[0] = commitTs;
    }
  }
}
