package dev.sluice.broker.store;

/**
 * A forward iterator over stored rows. Accessors describe the current row and are valid until the
 * next call to {@link #next()}. Not thread-safe.
 */
public interface RowScan extends AutoCloseable {

  /** Moves to the next row; false at the end. */
  boolean next();

  long tableId();

  long commitTs();

  long rowSeq();

  int keyHash();

  /** The stored {@code sluice.v1.RowChange} bytes of the current row. */
  byte[] rowChange();

  @Override
  void close();
}
