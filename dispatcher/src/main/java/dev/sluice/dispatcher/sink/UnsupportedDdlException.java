package dev.sluice.dispatcher.sink;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.FatalException;

/**
 * A DDL the sink cannot apply; the changefeed stops instead of skipping it. Names the DDL, the table
 * and the commit ts, so an operator can apply it by hand and resume after it.
 *
 * <pre>{@code
 * catch (UnsupportedDdlException e) { alert(e.table() + " needs manual DDL at " + e.commitTs()); }
 * }</pre>
 */
public final class UnsupportedDdlException extends FatalException {

  /** The table, schema.table. */
  private final String table;
  /** The commit ts of the change. */
  private final long commitTs;

  /** The DDL {@code what} of {@code table} at {@code commitTs} cannot be applied by the sink. */
  public UnsupportedDdlException(String table, long commitTs, String what) {
    super(ErrorCode.UNSUPPORTED_DDL, "cannot apply DDL on " + table + " at commit ts " + commitTs + ": " + what
        + "; apply it to the target by hand, then resume the changefeed after ts " + commitTs);
    this.table = table;
    this.commitTs = commitTs;
  }

  /** The table whose change stopped the sink ("schema.table"). */
  public String table() {
    return table;
  }

  /** The commit ts of that change: the changefeed resumes after it once the cause is fixed. */
  public long commitTs() {
    return commitTs;
  }
}
