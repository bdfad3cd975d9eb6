package dev.sluice.broker.store;

/**
 * Resume point inside one transaction: rows of the transaction at {@code commitTs} with
 * {@code row_seq < nextRowSeq} are not returned again.
 */
public record ScanCursor(long commitTs, long nextRowSeq) {

  public ScanCursor {
    if (commitTs <= 0 || nextRowSeq < 0) {
      throw new IllegalArgumentException("cursor needs commitTs > 0 and nextRowSeq >= 0, got ("
          + commitTs + ", " + nextRowSeq + ")");
    }
  }
}
