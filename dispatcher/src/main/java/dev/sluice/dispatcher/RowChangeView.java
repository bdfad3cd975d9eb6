package dev.sluice.dispatcher;

import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.TableInfo;

/**
 * One row change of a {@link Transaction}, with its images named by the table info in force.
 *
 * <pre>{@code
 * for (RowChangeView row : txn.rows()) {
 *   if (row.op() == RowOp.ROW_OP_DELETE) delete(row.before().getLong("id"));
 * }
 * }</pre>
 *
 * @param op      insert, update or delete
 * @param rowSeq  position of the row in its transaction, from 0
 * @param keyHash the row's 32-bit key hash
 * @param before  the before image (absent for inserts; key columns only unless the source gives full images)
 * @param after   the after image (absent for deletes)
 */
public record RowChangeView(RowOp op, long rowSeq, int keyHash, RowImage before, RowImage after) {

  /** Reads a wire row over {@code table}. */
  public static RowChangeView of(TableInfo table, RowChange row) {
    return new RowChangeView(row.getOp(), row.getRowSeq(), row.getKeyHash(),
        RowImage.of(table, row.getBeforeList()), RowImage.of(table, row.getAfterList()));
  }
}
