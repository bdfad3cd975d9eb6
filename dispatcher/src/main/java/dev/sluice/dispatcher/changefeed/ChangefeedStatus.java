package dev.sluice.dispatcher.changefeed;

import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.SubscriptionState;
import java.util.List;
import java.util.Objects;

/**
 * A snapshot of a running changefeed, for status pages and tests.
 *
 * <pre>{@code
 * ChangefeedStatus s = runtime.status();
 * s.tables().forEach(t -> System.out.println(t.table() + " " + t.phase() + " lag " + t.lag()));
 * s.divergences().forEach(d -> System.out.println(d.table() + "." + d.column() + " differs since " + d.sinceTs()));
 * }</pre>
 *
 * @param id           the changefeed id
 * @param state        where the changefeed stands
 * @param checkpointTs the changefeed checkpoint: the minimum over its followed tables' applied positions
 * @param tables       one entry per table the changefeed knows (followed, held or ended)
 * @param error        why it failed, or null
 * @param warnings     what may be wrong without stopping it, for a person (a table rule that matches no table)
 * @param mode         how it applies
 * @param divergences  columns whose target values differ from the upstream's for a known reason
 */
public record ChangefeedStatus(String id, State state, long checkpointTs, List<TableStatus> tables, String error,
    List<String> warnings, ApplyMode mode, List<Divergence> divergences) {

  /** Copies the lists; the mode is required. */
  public ChangefeedStatus {
    tables = List.copyOf(tables);
    warnings = List.copyOf(warnings);
    divergences = List.copyOf(divergences);
    Objects.requireNonNull(mode, "mode");
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

  /** Where one table of the changefeed stands. */
  public enum TablePhase {
    /** Its dispatcher streams and the sink applies it. */
    FOLLOWING,
    /**
     * Held: the sink cannot apply its changes (a table without a key whose change lacks the old row);
     * {@link TableStatus#note()} says what to do. The other tables go on; it is followed again from its
     * next schema change.
     */
    NEEDS_KEY,
    /**
     * Waiting: the upstream publication leaves the table out, so none of its changes reach the broker (which
     * refuses to serve it); {@link TableStatus#note()} names the fix. It is followed once the publication has
     * it, its existing rows read by a snapshot when the changefeed loads existing rows.
     */
    NOT_PUBLISHED,
    /** Its stream ended: dropped upstream (its DROP applied) or gone from the broker. */
    ENDED
  }

  /**
   * One table of the changefeed.
   *
   * @param tableId         upstream table id
   * @param table           "schema.table"
   * @param dispatcherState its dispatcher's state (null while it has none)
   * @param checkpoint      the position applied by the sink
   * @param resolvedTs      the highest resolved ts received
   * @param lag             resolved ts minus the applied ts, in commit-ts units (0 when caught up)
   * @param phase           followed, held or ended
   * @param note            why it is held or ended, or what of it is missing downstream; null when nothing
   * @param snapshot        where its snapshot stands, or null when none was asked for
   */
  public record TableStatus(long tableId, String table, SubscriptionState dispatcherState, Checkpoint checkpoint,
      long resolvedTs, long lag, TablePhase phase, String note, SnapshotStatus snapshot) {

    /** A table without a snapshot. */
    public TableStatus(long tableId, String table, SubscriptionState dispatcherState, Checkpoint checkpoint,
        long resolvedTs, long lag, TablePhase phase, String note) {
      this(tableId, table, dispatcherState, checkpoint, resolvedTs, lag, phase, note, null);
    }
  }

  /**
   * Where one table's snapshot stands.
   *
   * <pre>{@code
   * SnapshotStatus s = status.tables().get(0).snapshot();
   * System.out.printf("%s %d/%d rows (%.0f%%), eta %s s%n", s.state(), s.rowsDone(), s.rowsEstimated(),
   *     s.percent(), s.etaSeconds());
   * }</pre>
   *
   * @param state         running, paused, done, cancelled or failed
   * @param rowsDone      READ rows the sink applied (across restarts)
   * @param rowsEstimated the table's estimated rows ({@code pg_class.reltuples} when its snapshot began), 0 unknown
   * @param percent       rows done of the estimate, 0..100 (100 once done), or null when unknown
   * @param rowsPerSecond rows applied per second over the last samples of this run, 0 when not measured
   * @param etaSeconds    seconds left at that rate, or null when unknown
   * @param reason        why it failed or was cancelled; null otherwise
   * @param cursor        where it continues (after the last chunk the sink applied, as last sampled); the start
   *                      when none was
   */
  public record SnapshotStatus(dev.sluice.dispatcher.sink.TableSnapshot.State state, long rowsDone, long rowsEstimated,
      Double percent, double rowsPerSecond, Long etaSeconds, String reason, dev.sluice.dispatcher.SnapshotCursor cursor) {

    /** Defaults a missing cursor to the start. */
    public SnapshotStatus {
      cursor = cursor == null ? dev.sluice.dispatcher.SnapshotCursor.start() : cursor;
    }

    /** A status without a cursor (from the start). */
    public SnapshotStatus(dev.sluice.dispatcher.sink.TableSnapshot.State state, long rowsDone, long rowsEstimated,
        Double percent, double rowsPerSecond, Long etaSeconds, String reason) {
      this(state, rowsDone, rowsEstimated, percent, rowsPerSecond, etaSeconds, reason, null);
    }
  }

  /**
   * Values of a column that differ downstream from the upstream's, and why.
   *
   * @param table   "schema.table"
   * @param column  the column
   * @param sinceTs the commit ts of the change that made them differ
   * @param reason  a sentence: what differs and what will make it equal
   */
  public record Divergence(String table, String column, long sinceTs, String reason) {}
}
