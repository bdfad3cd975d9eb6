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

  private final String table;
  private final long commitTs;

  public SinkFailedException(String table, long commitTs, String message, Throwable cause) {
    super(ErrorCode.SINK_FAILED, message, cause);
    this.table = table;
    this.commitTs = commitTs;
  }

  public String table() {
    return table;
  }

  public long commitTs() {
    return commitTs;
  }
}
