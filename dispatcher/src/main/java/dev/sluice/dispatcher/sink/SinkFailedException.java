package dev.sluice.dispatcher.sink;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.FatalException;

/**
 * The target refused a change the sink cannot get past (a statement error, a table without a primary
 * key); the changefeed stops. Names the table and commit ts, and the target's SQL state when there is one.
 *
 * <pre>{@code
 * catch (SinkFailedException e) { log.error("sink stopped at {} on {}", e.commitTs(), e.table(), e); }
 * }</pre>
 */
public final class SinkFailedException extends FatalException {

  /** The table, schema.table. */
  private final String table;
  /** The commit ts of the change. */
  private final long commitTs;

  /** The target refused the change of {@code table} at {@code commitTs}; {@code message} says how and what to do. */
  public SinkFailedException(String table, long commitTs, String message, Throwable cause) {
    super(ErrorCode.SINK_FAILED, message, cause);
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
