package dev.sluice.schema;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.RequestRejectedException;

/** No version of the table exists at the requested ts. */
public final class UnknownTableException extends RequestRejectedException {

  private final String table;
  private final long ts;

  public UnknownTableException(String table, long ts) {
    super(ErrorCode.UNKNOWN_TABLE, "table " + table + " is unknown at ts " + ts
        + "; check the table id or name, or use a start ts after the table was created");
    this.table = table;
    this.ts = ts;
  }

  /** The table id or qualified name that was asked for. */
  public String table() {
    return table;
  }

  public long ts() {
    return ts;
  }
}
