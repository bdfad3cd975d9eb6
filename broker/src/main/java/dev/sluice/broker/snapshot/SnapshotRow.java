package dev.sluice.broker.snapshot;

import dev.sluice.api.v1.Value;
import java.util.List;

/**
 * One row a snapshot chunk read: its values in the table info's column order, its identity for the
 * watermark merge, and the key hash that routes it to a span (the same as capture computes). Values
 * are whole (read from the table), unless the merge replaced some with {@code unavailable}.
 *
 * @param identity the row's identity (key columns, or every column for a keyless table)
 * @param keyHash  murmur3 of the encoded key columns, 0 for a keyless table (as capture does)
 * @param values   one value per column of the table info the chunk was read with
 * @param bytes    what the row costs in memory and on the wire, roughly (its encoded size)
 */
public record SnapshotRow(RowIdentity identity, int keyHash, List<Value> values, int bytes) {

  public SnapshotRow {
    values = List.copyOf(values);
  }

  /** The same row with other values (the merge keeps only columns the log did not carry). */
  SnapshotRow withValues(List<Value> newValues) {
    return new SnapshotRow(identity, keyHash, newValues, bytes);
  }
}
