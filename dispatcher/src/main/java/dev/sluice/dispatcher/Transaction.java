package dev.sluice.dispatcher;

import dev.sluice.api.v1.TableInfo;
import java.util.List;
import java.util.Objects;

/**
 * The rows one upstream transaction changed in the subscribed span, in row order, with the table info
 * they follow. A transaction larger than {@link ClientConfig#maxTransactionBytes()} arrives in parts:
 * {@link #complete()} is then false, the parts come in row order, and the last one has
 * {@link #lastPart()}. Acknowledge {@link #checkpoint()} after applying a transaction (or part).
 *
 * <pre>{@code
 * public void onTransaction(Transaction txn) {
 *   store.apply(txn.tableName(), txn.rows());
 *   handle.acknowledge(txn.checkpoint());
 * }
 * }</pre>
 *
 * @param commitTs         the transaction's commit ts
 * @param commitTimeMicros upstream commit time in microseconds since the epoch (UTC), 0 when unknown
 * @param tableInfo        the table info the row images follow
 * @param rows             the row changes, in row seq order
 * @param complete         true when this object holds every row of the transaction in the span
 * @param lastPart         true when no more rows of this transaction follow
 * @param snapshot         for the last part of a snapshot chunk's READ rows, how far the snapshot got (record
 *                         it with the rows); null otherwise. Such a part may hold no rows at all.
 */
public record Transaction(long commitTs, long commitTimeMicros, TableInfo tableInfo, List<RowChangeView> rows,
    boolean complete, boolean lastPart, SnapshotMark snapshot) {

  /** Checks that a complete transaction is its own last part; copies the rows. */
  public Transaction {
    Objects.requireNonNull(tableInfo, "tableInfo");
    rows = List.copyOf(rows);
    if (complete && !lastPart) {
      throw new IllegalArgumentException("a complete transaction is its own last part");
    }
    if (snapshot != null && !lastPart) {
      throw new IllegalArgumentException("only the last part of a snapshot chunk carries its progress");
    }
  }

  /** A transaction of changes (no snapshot progress). */
  public Transaction(long commitTs, long commitTimeMicros, TableInfo tableInfo, List<RowChangeView> rows,
      boolean complete, boolean lastPart) {
    this(commitTs, commitTimeMicros, tableInfo, rows, complete, lastPart, null);
  }

  /** "schema.table" of the rows. */
  public String tableName() {
    return tableInfo.getSchemaName() + "." + tableInfo.getTableName();
  }

  /** The table's id (stable across renames). */
  public long tableId() {
    return tableInfo.getTableId();
  }

  /** The checkpoint to acknowledge once this transaction (or part) is durably applied. */
  public Checkpoint checkpoint() {
    if (lastPart || rows.isEmpty()) {
      return lastPart ? Checkpoint.at(commitTs) : Checkpoint.inside(commitTs, 0);
    }
    return Checkpoint.inside(commitTs, rows.get(rows.size() - 1).rowSeq() + 1);
  }
}
