package dev.sluice.dispatcher.sink;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.FatalException;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.TableInfo;

/**
 * An update or delete of a table without a primary key whose change does not carry the whole old row,
 * so no target row can be told to be the one it changed. A changefeed holds that table in a "needs a
 * key" state and goes on with the others; the fix is upstream: a primary key, or
 * {@code ALTER TABLE ... REPLICA IDENTITY FULL}.
 *
 * <pre>{@code
 * catch (RowIdentityMissingException e) { hold(e.tableId(), e.getMessage()); }
 * }</pre>
 */
public final class RowIdentityMissingException extends FatalException {

  /** The keyless table's id. */
  private final long tableId;
  /** Its name, schema.table. */
  private final String table;
  /** The commit ts of the change. */
  private final long commitTs;

  /** The {@code op} at {@code commitTs} of the keyless table {@code info} carries no old row to match. */
  public RowIdentityMissingException(TableInfo info, long commitTs, RowOp op) {
    super(ErrorCode.SINK_FAILED, "table " + info.getSchemaName() + "." + info.getTableName() + " has no primary key "
        + "and its " + op.name().replace("ROW_OP_", "") + " at commit ts " + commitTs + " does not carry the old row, "
        + "so no target row can be matched: ALTER TABLE " + info.getSchemaName() + "." + info.getTableName()
        + " ADD PRIMARY KEY (...) upstream, or ALTER TABLE " + info.getSchemaName() + "." + info.getTableName()
        + " REPLICA IDENTITY FULL");
    this.tableId = info.getTableId();
    this.table = info.getSchemaName() + "." + info.getTableName();
    this.commitTs = commitTs;
  }

  /** The keyless table's id. */
  public long tableId() {
    return tableId;
  }

  /** The keyless table, "schema.table". */
  public String table() {
    return table;
  }

  /** The commit ts of the change that could not be matched. */
  public long commitTs() {
    return commitTs;
  }
}
