package dev.sluice.dispatcher.sink;

import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.Transaction;
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

  @Override
  void close();
}
