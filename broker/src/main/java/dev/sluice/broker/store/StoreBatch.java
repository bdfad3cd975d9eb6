package dev.sluice.broker.store;

/**
 * Changes written atomically by {@link EventStore#write}. Not thread-safe: filled and written by the
 * capture thread.
 */
public interface StoreBatch {

  /**
   * Adds one row change.
   *
   * @param rowChange the {@code sluice.v1.RowChange} bytes (wire encoding, with row_seq and key_hash
   *                  set), stored as is so the data plane can send them without re-encoding
   */
  void putRow(long tableId, long commitTs, long rowSeq, int keyHash, byte[] rowChange);

  /** Records the upstream commit time of the transaction at {@code commitTs}. */
  void putTimeMark(long commitTs, long commitTimeMicros);

  /** The position capture resumes from if this batch is the last durable one. */
  void setPosition(SourcePosition position);

  /** Advances the resolved ts with this batch (ignored when not above the current one). */
  void setResolvedTs(long resolvedTs);

  /**
   * Records where capture began for a new store: it holds every transaction committed after
   * {@code floorTs} and none before (a node that joined a cluster later captured from there on).
   */
  void setFloorTs(long floorTs);

  /** Rows added so far. */
  int rowCount();

  /** Approximate bytes added so far. */
  long byteSize();
}
