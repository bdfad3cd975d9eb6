package dev.sluice.broker.capture;

import dev.sluice.broker.store.EventStore;
import dev.sluice.broker.store.SourcePosition;
import dev.sluice.broker.store.StoreBatch;
import dev.sluice.schema.SchemaStore;
import java.util.function.LongSupplier;

/**
 * Collects captured transactions into event-store batches and writes them durably many at a time
 * (group commit), so one fsync covers many transactions; only after a synced write returns is the
 * end LSN of its last transaction handed to {@link Confirmer} (the flush position PostgreSQL may
 * then recycle WAL up to).
 *
 * <p>A batch is written when it holds committed transactions and (a) the stream has nothing more
 * pending, (b) it reached {@code groupCommitMaxBytes}, or (c) its oldest transaction waited
 * {@code groupCommitMaxDelay}. Rows of a still open (large) transaction are written as fragments
 * every {@code fragmentRows} rows or {@code fragmentBytes}, under their final keys, without
 * advancing the resolved ts, so a transaction is never held whole in memory and buffered rows never
 * exceed {@code memoryCapBytes} (one row larger than the cap excepted). Capture thread only.
 *
 * <pre>{@code
 * gc.addRow(tableId, commitTs, rowSeq, keyHash, bytes);
 * gc.commit(commitTs, endLsn, commitTimeMicros);
 * gc.maybeFlush();            // thresholds
 * gc.flushIfPending();        // the stream is idle
 * }</pre>
 */
final class GroupCommit {

  /** Receives the end LSN of the last durably stored transaction. */
  @FunctionalInterface
  interface Confirmer {
    void confirmed(long endLsn);
  }

  private final EventStore store;
  private final SchemaStore schemas;
  private final CaptureConfig config;
  private final CaptureMetrics metrics;
  private final Confirmer confirmer;
  private final LongSupplier nanoTime;

  private StoreBatch batch;
  private int txnsInBatch;
  private int openTxnRowsInBatch;
  private long firstTxnNanos;
  private long batchLastCommitTs;
  private long batchLastEndLsn;
  private long batchLastCommitTimeMicros;

  private volatile long durableCommitTs;
  private volatile long durableEndLsn;
  private volatile long durableCommitTimeMicros;

  GroupCommit(EventStore store, SchemaStore schemas, CaptureConfig config, CaptureMetrics metrics,
      Confirmer confirmer, LongSupplier nanoTime) {
    this.store = store;
    this.schemas = schemas;
    this.config = config;
    this.metrics = metrics;
    this.confirmer = confirmer;
    this.nanoTime = nanoTime;
    store.position().ifPresent(p -> {
      durableCommitTs = p.lastCommitTs();
      durableEndLsn = p.restartPosition();
    });
    batch = store.newBatch();
  }

  /** Adds one row of the open transaction; writes a fragment when the thresholds are reached. */
  void addRow(long tableId, long commitTs, long rowSeq, int keyHash, byte[] rowChange) {
    batch.putRow(tableId, commitTs, rowSeq, keyHash, rowChange);
    openTxnRowsInBatch++;
    long bytes = batch.byteSize();
    metrics.buffered(bytes);
    if (openTxnRowsInBatch >= config.fragmentRows() || bytes >= config.fragmentBytes()
        || bytes >= config.memoryCapBytes()) {
      write();
      metrics.fragments.increment();
    }
  }

  /** Closes the open transaction: its time mark, the resume position and the resolved ts. */
  void commit(long commitTs, long endLsn, long commitTimeMicros) {
    batch.putTimeMark(commitTs, commitTimeMicros);
    batch.setPosition(new SourcePosition(commitTs, endLsn));
    batch.setResolvedTs(commitTs);
    if (txnsInBatch == 0) {
      firstTxnNanos = nanoTime.getAsLong();
    }
    txnsInBatch++;
    openTxnRowsInBatch = 0;
    batchLastCommitTs = commitTs;
    batchLastEndLsn = endLsn;
    batchLastCommitTimeMicros = commitTimeMicros;
  }

  /** Writes the batch when it is big enough or its oldest transaction waited long enough. */
  void maybeFlush() {
    if (txnsInBatch > 0 && (batch.byteSize() >= config.groupCommitMaxBytes()
        || nanoTime.getAsLong() - firstTxnNanos >= config.groupCommitMaxDelay().toNanos())) {
      write();
    }
  }

  /** Writes the batch if it holds committed transactions: the stream has nothing more pending. */
  void flushIfPending() {
    if (txnsInBatch > 0) {
      write();
    }
  }

  /** Forgets everything not yet written (the session broke; PostgreSQL resends from the confirmed LSN). */
  void discard() {
    batch = store.newBatch();
    txnsInBatch = 0;
    openTxnRowsInBatch = 0;
    metrics.buffered(0);
  }

  /** Commit ts of the last durably stored transaction, 0 when none. */
  long durableCommitTs() {
    return durableCommitTs;
  }

  long durableEndLsn() {
    return durableEndLsn;
  }

  /** Commit time of the last durably stored transaction in micros, 0 when none is known. */
  long durableCommitTimeMicros() {
    return durableCommitTimeMicros;
  }

  private void write() {
    boolean hasTxns = txnsInBatch > 0;
    if (hasTxns) {
      schemas.advanceResolvedTs(batchLastCommitTs); // schema resolved never trails the store's
    }
    store.write(batch, hasTxns);
    if (hasTxns) {
      metrics.groupCommitTxns.record(txnsInBatch);
      durableCommitTs = batchLastCommitTs;
      durableEndLsn = batchLastEndLsn;
      durableCommitTimeMicros = batchLastCommitTimeMicros;
      confirmer.confirmed(batchLastEndLsn);
    }
    batch = store.newBatch();
    txnsInBatch = 0;
    openTxnRowsInBatch = 0;
    metrics.buffered(0);
  }
}
