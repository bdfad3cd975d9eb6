package dev.sluice.schema;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.RequestRejectedException;

/** The table was dropped at or before the requested ts. */
public final class TableDroppedException extends RequestRejectedException {

  private final long tableId;
  private final long ts;
  private final long dropTs;

  public TableDroppedException(long tableId, String qualifiedName, long ts, long dropTs) {
    super(ErrorCode.TABLE_DROPPED, "table " + qualifiedName + " (id " + tableId + ") was dropped at ts "
        + dropTs + ", at or before the requested ts " + ts + "; use a ts below " + dropTs);
    this.tableId = tableId;
    this.ts = ts;
    this.dropTs = dropTs;
  }

  public long tableId() {
    return tableId;
  }

  public long ts() {
    return ts;
  }

  /** Commit ts of the DROP. */
  public long dropTs() {
    return dropTs;
  }
}
