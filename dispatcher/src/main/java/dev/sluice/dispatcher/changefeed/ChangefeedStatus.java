package dev.sluice.dispatcher.changefeed;

import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.DispatcherState;
import java.util.List;

/**
 * A snapshot of a running changefeed, for status pages and tests.
 *
 * <pre>{@code
 * ChangefeedStatus s = runtime.status();
 * s.tables().forEach(t -> System.out.println(t.table() + " lag " + t.lag()));
 * }</pre>
 *
 * @param id           the changefeed id
 * @param state        where the changefeed stands
 * @param checkpointTs the changefeed checkpoint: the minimum over its tables' applied positions
 * @param tables       one entry per followed table
 * @param error        why it failed, or null
 */
public record ChangefeedStatus(String id, State state, long checkpointTs, List<TableStatus> tables, String error) {

  public ChangefeedStatus {
    tables = List.copyOf(tables);
  }

  /** The life of a changefeed. */
  public enum State {
    /** Listing tables and subscribing. */
    STARTING,
    /** Applying. */
    RUNNING,
    /** The sink failed transiently; the same batch is being retried with backoff. */
    RETRYING,
    /** Stopped by an error an operator must act on ({@link #error()}). */
    FAILED,
    /** Closed. */
    STOPPED
  }

  /**
   * One table of the changefeed.
   *
   * @param tableId         upstream table id
   * @param table           "schema.table"
   * @param dispatcherState its dispatcher's state
   * @param checkpoint      the position applied by the sink
   * @param resolvedTs      the highest resolved ts received
   * @param lag             resolved ts minus the applied ts, in commit-ts units (0 when caught up)
   */
  public record TableStatus(long tableId, String table, DispatcherState dispatcherState, Checkpoint checkpoint,
      long resolvedTs, long lag) {}
}
