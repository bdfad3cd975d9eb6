package dev.sluice.broker.capture;

import dev.sluice.broker.store.EventStore;
import dev.sluice.broker.store.SourcePosition;
import dev.sluice.broker.store.StoreBatch;
import dev.sluice.schema.SchemaStore;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Collects captured transactions into event-store batches and writes them many at a time (group commit); only
 * after a sync that followed a write is the end LSN of its last transaction handed to {@link Confirmer} (the
 * flush position PostgreSQL may then recycle WAL up to).
 *
 * <p><b>Served before synced.</b> A batch is written without sync, which makes it visible to the data plane at
 * once, and a syncer thread of its own then fsyncs the store's WAL behind as many writes as were done by then
 * (one fsync for all of them), and confirms their last LSN. So live dispatchers never wait for an fsync, which
 * on a disk a busy database shares takes 100-200 ms now and then (docs/BENCHMARKS.md "Live p99 during a
 * snapshot"). Nothing is lost that way: a broker process that dies keeps what it wrote (the OS has it); a
 * machine that dies loses at most the writes after the last sync, and PostgreSQL sends those transactions again
 * from the confirmed LSN, with the same commit ts and row seqs (both come from the WAL), so the store gets the
 * same events back, and a dispatcher that had them already skips them by its checkpoint (and is answered
 * {@code START_TS_AHEAD}, transient, until capture is back past it).
 *
 * <p><b>Pipeline.</b> Writes run on a writer thread of their own, one at a time and in order, while
 * the capture thread decodes into the next batch: a slow fsync makes the next batch bigger instead of
 * stalling the stream. A batch holding committed transactions is handed over when (a) the stream has
 * nothing pending and no write is running, (b) it reached {@code groupCommitMaxBytes}, or (c) its
 * oldest transaction waited {@code groupCommitMaxDelay} and no write is running.
 *
 * <p><b>Memory.</b> Rows of a still open (large) transaction are written as fragments every
 * {@code fragmentRows} rows or {@code fragmentBytes}, under their final keys and without advancing the
 * resolved ts, so a transaction is never held whole in memory; the batch being filled plus the one
 * being written never exceed {@code memoryCapBytes} (the capture thread waits for the write first;
 * a single row larger than the cap excepted).
 *
 * <p>Threads: every method but the durable-position getters is called by the capture thread only.
 *
 * <pre>{@code
 * gc.addRow(tableId, commitTs, rowSeq, keyHash, bytes);
 * gc.commit(commitTs, endLsn, commitTimeMicros);
 * gc.maybeFlush();            // thresholds
 * gc.flushIfPending();        // the stream is idle
 * }</pre>
 */
final class GroupCommit implements AutoCloseable {

  /** Receives the end LSN of the last durably stored transaction (called on the writer thread). */
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
  private final ExecutorService writer;

  private StoreBatch batch;
  private int txnsInBatch;
  private int openTxnRowsInBatch;
  private long firstTxnNanos;
  private long batchLastCommitTs;
  private long batchLastEndLsn;
  private long batchLastCommitTimeMicros;
  private Future<?> inFlight;
  private long inFlightBytes;
  /** Fsyncs the store behind the writer and confirms what it covered; one sync at a time. */
  private final ExecutorService syncer;
  /** The last batch with transactions the writer wrote (visible, maybe not durable); set by the writer thread. */
  private volatile Written lastWritten;
  /** The first failure of a sync, rethrown to the capture thread at its next look at the writer. */
  private volatile RuntimeException syncFailure;

  /** Where a written batch's last transaction stands: what a sync behind it makes durable. */
  private record Written(long commitTs, long endLsn, long commitTimeMicros) {}

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
    this.writer = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "sluice-capture-writer-" + config.slotName());
      t.setDaemon(true);
      return t;
    });
    this.syncer = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "sluice-capture-sync-" + config.slotName());
      t.setDaemon(true);
      return t;
    });
    store.position().ifPresent(p -> {
      durableCommitTs = p.lastCommitTs();
      durableEndLsn = p.restartPosition();
    });
    batch = store.newBatch();
  }

  /** Adds one row of the open transaction; writes a fragment when the thresholds are reached. */
  void addRow(long tableId, long commitTs, long rowSeq, int keyHash, byte[] rowChange) {
    if (inFlight != null && batch.byteSize() + rowChange.length + inFlightBytes >= config.memoryCapBytes()) {
      awaitInFlight(); // the cap covers the batch being written too
    }
    batch.putRow(tableId, commitTs, rowSeq, keyHash, rowChange);
    openTxnRowsInBatch++;
    long bytes = batch.byteSize();
    metrics.buffered(bytes + inFlightBytes);
    if (openTxnRowsInBatch >= config.fragmentRows() || bytes >= config.fragmentBytes()
        || bytes >= config.memoryCapBytes()) {
      submit();
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

  /** Hands the batch to the writer when it is big enough, or old enough and the writer is free. */
  void maybeFlush() {
    if (txnsInBatch == 0) {
      return;
    }
    if (batch.byteSize() >= config.groupCommitMaxBytes()) {
      submit();
    } else if (nanoTime.getAsLong() - firstTxnNanos >= config.groupCommitMaxDelay().toNanos() && writerIdle()) {
      submit();
    }
  }

  /** The stream has nothing pending: hands committed transactions to the writer if it is free. */
  void flushIfPending() {
    if (txnsInBatch > 0 && writerIdle()) {
      submit();
    }
  }

  /** Writes what is buffered and waits until it is durable (graceful stop). */
  void drain() {
    if (txnsInBatch > 0) {
      submit();
    }
    awaitInFlight();
    await(syncer.submit(this::syncBehindWrites));
    rethrowSyncFailure();
  }

  /** Forgets everything not yet handed over (the session broke; PostgreSQL resends from the confirmed LSN). */
  void discard() {
    try {
      awaitInFlight();
    } catch (RuntimeException ignored) {
      // the session is being abandoned for this or another failure
    }
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

  private boolean writerIdle() {
    rethrowSyncFailure();
    if (inFlight == null) {
      return true;
    }
    if (!inFlight.isDone()) {
      return false;
    }
    awaitInFlight(); // reaps it, rethrowing its failure
    return true;
  }

  private void submit() {
    awaitInFlight();
    StoreBatch b = batch;
    int txns = txnsInBatch;
    long lastCommitTs = batchLastCommitTs;
    long lastEndLsn = batchLastEndLsn;
    long lastCommitTime = batchLastCommitTimeMicros;
    if (txns > 0) {
      schemas.advanceResolvedTs(lastCommitTs); // schema resolved never trails the store's
    }
    inFlightBytes = b.byteSize();
    inFlight = writer.submit(() -> {
      store.write(b, false);   // served from now on; durable once the syncer's next fsync is done
      if (txns > 0) {
        metrics.groupCommitTxns.record(txns);
        lastWritten = new Written(lastCommitTs, lastEndLsn, lastCommitTime);
        syncer.execute(this::syncBehindWrites);
      }
    });
    batch = store.newBatch();
    txnsInBatch = 0;
    openTxnRowsInBatch = 0;
    metrics.buffered(inFlightBytes);
  }

  /**
   * On the syncer thread: one fsync behind every write done so far, then their last transaction is durable and
   * confirmed. Syncs queued behind one that covered their writes already do nothing (they coalesce).
   */
  private void syncBehindWrites() {
    Written w = lastWritten;
    if (w == null || w.commitTs() <= durableCommitTs || syncFailure != null) {
      return;
    }
    try {
      store.sync();
    } catch (RuntimeException e) {
      syncFailure = e;
      return;
    }
    durableCommitTs = w.commitTs();
    durableEndLsn = w.endLsn();
    durableCommitTimeMicros = w.commitTimeMicros();
    confirmer.confirmed(w.endLsn());
  }

  private void rethrowSyncFailure() {
    RuntimeException e = syncFailure;
    if (e != null) {
      throw e;
    }
  }

  private void awaitInFlight() {
    rethrowSyncFailure();
    if (inFlight == null) {
      return;
    }
    Future<?> f = inFlight;
    inFlight = null;
    inFlightBytes = 0;
    await(f);
  }

  private static void await(Future<?> f) {
    try {
      f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for an event-store write", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  @Override
  public void close() {
    for (ExecutorService e : new ExecutorService[] {writer, syncer}) {   // the writer first: it queues syncs
      e.shutdown();
      try {
        if (!e.awaitTermination(30, TimeUnit.SECONDS)) {
          e.shutdownNow();
        }
      } catch (InterruptedException x) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
