package dev.sluice.broker.store;

import dev.sluice.api.TableSpan;
import java.util.List;
import java.util.Optional;

/**
 * The durable store of captured row changes, keyed {@code (table_id, commit_ts, row_seq)}, plus the
 * source position and resolved ts that make it restartable.
 *
 * <p><b>Visibility.</b> Rows of a transaction may be written in several batches (fragments of a large
 * transaction) before its commit; they become visible to readers when a batch sets the resolved ts
 * to at least their commit ts. Readers only ever scan {@code <= resolvedTs()}.
 *
 * <p><b>Intervals.</b> {@code scan(span, from, to, cursor)} returns rows with
 * {@code from < commitTs <= to}, in {@code (commit_ts, row_seq)} order; the caller guarantees
 * {@code to <= resolvedTs()}.
 *
 * <p><b>Threads.</b> One writer (capture) calls {@link #newBatch()}, {@link #write} and {@link #gc};
 * readers (data plane, admin) call the read methods concurrently. Resolved listeners run on the
 * writer's thread after the write and must only hand the value off (never block).
 *
 * <pre>{@code
 * StoreBatch b = store.newBatch();
 * b.putRow(tableId, commitTs, 0, keyHash, rowChangeBytes);
 * b.putTimeMark(commitTs, commitTimeMicros);
 * b.setPosition(new SourcePosition(commitTs, endLsn));
 * b.setResolvedTs(commitTs);
 * store.write(b, true);   // durable: now the flush LSN may be confirmed upstream
 * try (RowScan scan = store.scan(TableSpan.wholeTable(tableId), checkpoint, store.resolvedTs(), null)) {
 *   while (scan.next()) { handle(scan.commitTs(), scan.rowChange()); }
 * }
 * }</pre>
 */
public interface EventStore extends AutoCloseable {

  /** A new, empty batch for {@link #write}. */
  StoreBatch newBatch();

  /**
   * Writes the batch atomically. With {@code sync} the call returns after the batch is durable
   * (fsync of the write-ahead log); without it, a crash may lose it (whole, never torn). Notifies
   * resolved listeners when the batch advanced the resolved ts.
   *
   * @throws dev.sluice.api.error.TransientException with {@code STORE_UNAVAILABLE} on I/O failure
   */
  void write(StoreBatch batch, boolean sync);

  /**
   * Makes every batch written before the call durable (one fsync of the write-ahead log); may run while another
   * thread writes. Capture writes its groups without sync, so they are served at once, and confirms their LSN
   * upstream only after a sync behind them (docs/CAPTURE.md "Durability").
   *
   * @throws dev.sluice.api.error.TransientException with {@code STORE_UNAVAILABLE} on I/O failure
   * @throws IllegalStateException when the store is closed
   */
  void sync();

  /** Every transaction with commit ts {@code <=} this is whole in the store. */
  long resolvedTs();

  /** Rows below this were garbage-collected: scans must start at or above it. */
  long gcTs();

  /**
   * Where capture began: the store holds every transaction committed after this ts and none before
   * (0 for a store that does not know, which holds everything since its upstream's start). A node
   * that joined a cluster later has a higher floor than its peers: it cannot serve a checkpoint below.
   */
  long floorTs();

  /** Where capture resumes after a restart; empty for a new store. */
  Optional<SourcePosition> position();

  /**
   * Commit ts of the newest row ever stored for the table, 0 when none. From memory: no I/O. Never
   * decreases: rows later removed by {@link #gc} still count, and rows of a transaction still streaming
   * in (above {@link #resolvedTs()}) count as soon as they are written. A reader that sees a resolved ts
   * also sees every table's newest commit ts up to it, so {@code lastCommitTs(t) <= progress} means the
   * table has no rows in {@code (progress, resolvedTs]}.
   */
  long lastCommitTs(long tableId);

  /**
   * Rows of {@code span} with {@code fromExclusive < commitTs <= toInclusive}, in commit order. With a
   * cursor whose {@code commitTs} lies in that range, rows of that transaction with
   * {@code row_seq < cursor.nextRowSeq()} are skipped. The caller closes the scan.
   *
   * @throws dev.sluice.api.error.RequestRejectedException with {@code START_TS_BELOW_GC} when
   *     {@code fromExclusive + 1 < gcTs()}: rows the caller needs are gone
   */
  RowScan scan(TableSpan span, long fromExclusive, long toInclusive, ScanCursor cursor);

  /**
   * Upstream commit times of transactions with {@code fromExclusive < commitTs <= toInclusive}, in
   * commit order; sync points are placed from these.
   */
  List<TimeMark> timeMarks(long fromExclusive, long toInclusive);

  /** The first {@code limit} time marks of {@code (fromExclusive, toInclusive]}, in commit order. */
  List<TimeMark> timeMarks(long fromExclusive, long toInclusive, int limit);

  /**
   * The time mark of the newest transaction with {@code commitTs <= ts}, if one is still stored: where
   * a stream that starts at {@code ts} stands in upstream time, so its first sync point is not missed.
   */
  Optional<TimeMark> timeMarkAtOrBefore(long ts);

  /** Registers a listener called with the new resolved ts after each write that advanced it. */
  void addResolvedListener(ResolvedListener listener);

  /** Deletes rows and time marks with commit ts {@code < ts} of every table. Never moves backwards. */
  void gc(long ts);

  @Override
  void close();

  /** Called with each new resolved ts; runs on the writer's thread and must not block. */
  @FunctionalInterface
  interface ResolvedListener {
    void onResolved(long resolvedTs);
  }
}
