package dev.sluice.dispatcher.sink;

import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.Transaction;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a changefeed writes: applies transactions in commit order per table, DDL in between, and
 * keeps the changefeed's progress so that a restart resumes after it. A sink is used by one thread
 * at a time (the changefeed's applier).
 *
 * <p>Every sink skips what its stored progress already covers, per table, so a replay after a reset,
 * a failover or a crash is harmless; how exactly-once the result is depends on the sink
 * ({@link JdbcUpsertSink}: exactly once, the progress is written in the same database transaction as
 * the rows; {@link JsonLinesSink}: at least once).
 *
 * <pre>{@code
 * try (Sink sink = JdbcUpsertSink.open(JdbcSinkConfig.of(url, user, password, "cf1"))) {
 *   long resumeFrom = sink.checkpoint().checkpointTs();
 *   sink.apply(List.of(txn), resumeFrom);
 * }
 * }</pre>
 */
public interface Sink extends AutoCloseable {

  /** The durable progress this sink holds for its changefeed (read when it was opened, then kept current). */
  SinkCheckpoint checkpoint();

  /**
   * Applies {@code transactions} (each of one table, in commit order per table) as one unit where the
   * sink can, skipping whatever the stored progress covers, and records the per-table progress and
   * {@code changefeedCheckpointTs} with them.
   *
   * @throws dev.sluice.api.error.TransientException when the target cannot be reached; nothing of the
   *     call was kept, so the caller retries the same call after a backoff
   * @throws dev.sluice.api.error.FatalException when the target refuses a change; the changefeed stops
   */
  void apply(List<Transaction> transactions, long changefeedCheckpointTs);

  /**
   * Applies a schema change, or throws {@link UnsupportedDdlException} when it cannot (never skips one
   * silently).
   */
  void applyDdl(DdlChange ddl, long changefeedCheckpointTs);

  /** Records the changefeed checkpoint alone (tables advanced by resolved ts without rows). */
  void advance(long changefeedCheckpointTs);

  /**
   * Applies {@code changes} (rows of several tables and schema changes, in the upstream's order) into
   * one target transaction: the one a previous call without {@code commit} left open, or a new one.
   * With {@code commit} that transaction commits with every table's progress and
   * {@code changefeedCheckpointTs}, so a reader of the target sees all of it or none of it. This is how
   * a changefeed applies whole upstream transactions ({@code ApplyMode.TRANSACTION}); a transaction
   * delivered in parts is applied by several calls and one commit.
   *
   * <p>The default applies each run of rows and each schema change by itself ({@link #apply},
   * {@link #applyDdl}): right for sinks that are at least once anyway. {@link JdbcUpsertSink} keeps one
   * target transaction (MySQL/MariaDB commit before a schema change, which they cannot roll back).
   *
   * @throws dev.sluice.api.error.TransientException when the target cannot be reached; the open
   *     target transaction (every call since the last commit) was rolled back
   */
  default void applyInOrder(List<SinkChange> changes, boolean commit, long changefeedCheckpointTs) {
    long kept = checkpoint().checkpointTs();
    List<Transaction> run = new ArrayList<>();
    for (SinkChange c : changes) {
      if (c instanceof SinkChange.Rows r) {
        run.add(r.transaction());
      } else if (c instanceof SinkChange.Schema s) {
        if (!run.isEmpty()) {
          apply(List.copyOf(run), kept);
          run.clear();
        }
        applyDdl(s.ddl(), kept);
      }
    }
    if (!run.isEmpty() || commit) {
      apply(List.copyOf(run), commit ? changefeedCheckpointTs : kept);
    }
  }

  /**
   * Records that table {@code tableId}'s stream ended at {@code droppedTs} without a DROP TABLE the sink
   * applied (the broker no longer lists it, or refuses it as dropped), so that a restart does not follow
   * it again. A DROP TABLE applied through {@link #applyDdl} records this itself.
   */
  default void markDropped(long tableId, String tableName, long droppedTs) {}

  /**
   * Records where the changefeed's snapshot of table {@code tableId} stands (asked for, paused, done,
   * cancelled, failed), durably, so that a restart continues or leaves it. The cursor a chunk moves is
   * recorded by the sink itself with the chunk's rows ({@link TableSnapshot#after}). The default keeps
   * nothing: a restart then reads the table again from the start.
   */
  default void recordSnapshot(long tableId, String tableName, TableSnapshot snapshot) {}

  @Override
  void close();
}
