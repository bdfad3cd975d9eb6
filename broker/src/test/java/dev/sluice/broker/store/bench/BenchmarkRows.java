package dev.sluice.broker.store.bench;

import dev.sluice.api.KeyEncoding;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.Timestamp;
import dev.sluice.api.v1.Value;
import java.util.List;

/**
 * Realistic stored rows for the benchmarks: the {@code sluice.v1.RowChange} of an insert into an
 * orders-like table (id, customer, status, amount, created), about 100 bytes encoded, with its key hash.
 *
 * <pre>{@code
 * BenchmarkRows.Row row = BenchmarkRows.row(42, 3);
 * batch.putRow(tableId, commitTs, 3, row.keyHash(), row.bytes());
 * }</pre>
 */
final class BenchmarkRows {

  /** Encoded row change and the key hash of its primary key. */
  record Row(byte[] bytes, int keyHash) {}

  private static final String[] STATUS = {"new", "paid", "shipped", "delivered", "returned"};

  private BenchmarkRows() {}

  /** The row with primary key {@code id}, {@code rowSeq} inside its transaction. */
  static Row row(long id, long rowSeq) {
    Value key = Value.newBuilder().setInt64Value(id).build();
    int keyHash = KeyEncoding.hash(List.of(key));
    RowChange change = RowChange.newBuilder()
        .setOp(RowOp.ROW_OP_INSERT)
        .addAfter(key)
        .addAfter(Value.newBuilder().setStringValue("customer-" + (id * 7919 % 100_000) + "@example.org"))
        .addAfter(Value.newBuilder().setStringValue(STATUS[(int) (id % STATUS.length)]))
        .addAfter(Value.newBuilder().setDecimalValue((id % 100_000) + "." + (id % 100)))
        .addAfter(Value.newBuilder().setTimestampValue(
            Timestamp.newBuilder().setMicros(1_764_000_000_000_000L + id * 1_000_003L).setWithZone(true)))
        .addAfter(Value.newBuilder().setStringValue("note " + Long.toHexString(id * 0x9E3779B97F4A7C15L)))
        .setRowSeq(rowSeq)
        .setKeyHash(keyHash)
        .build();
    return new Row(change.toByteArray(), keyHash);
  }
}
