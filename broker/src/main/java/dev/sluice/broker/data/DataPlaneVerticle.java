package dev.sluice.broker.data;

import dev.sluice.api.DispatcherId;
import dev.sluice.broker.control.CollectorLink;
import dev.sluice.broker.control.DataPlaneCommand;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.control.EventServiceLimits;
import dev.sluice.broker.store.EventStore;
import dev.sluice.schema.SchemaStore;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.WorkerExecutor;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One data-plane instance: owns the {@link DispatcherStream}s hashed onto it, turns resolved-ts
 * advances into scan tasks, numbers the events of each epoch and pushes batches and watermarks.
 *
 * <p><b>Rounds.</b> When the stores' resolved ts advances (or every idle interval), every active
 * stream is considered: a stream with nothing new for its table (no row, no DDL, no sync point above
 * its progress) only moves its watermark, with no store read; a stream with something new gets a
 * {@link ScanTask} if its credit, the global scan rate, a scan slot and its stream's queue room allow,
 * else it waits (re-tried every tick). At most one scan per stream runs, so its events stay FIFO.
 *
 * <p><b>Concurrency.</b> All state is confined to this verticle's event loop; commands arrive through
 * {@link #submit}, scans run on the shared "sluice-scan" worker pool and their results come back to
 * the loop, where a result of an epoch that was reset meanwhile is dropped.
 */
public final class DataPlaneVerticle extends VerticleBase {

  private static final Logger log = LoggerFactory.getLogger(DataPlaneVerticle.class);

  private final int index;
  private final EventServiceConfig config;
  private final EventStore store;
  private final SchemaStore schema;
  private final Scanner scanner;
  private final ScanThreadPriority scanPriority;
  private final ScanSlots slots;
  private final ScanRateLimiter rate;
  private final WaitQueueHeads heads;
  private final AtomicBoolean retryScheduled = new AtomicBoolean();
  private final DataPlaneMetrics metrics;
  private final LongSupplier nanoClock;
  /** Parked streams retried per round; the rest keep their place in the queue. */
  static final int RETRIES_PER_ROUND = 1024;
  private static final long STREAM_FAILURE_BACKOFF_NANOS = 1_000_000_000L;

  private final Map<DispatcherId, DispatcherStream> streams = new HashMap<>();
  private final ArrayDeque<DispatcherStream> waiting = new ArrayDeque<>();
  private final AtomicBoolean resolvedPassScheduled = new AtomicBoolean();
  private final long idleIntervalNanos;
  private final ChangefeedProgress progress;
  private volatile EventServiceLimits limits;
  private WorkerExecutor scanWorkers;
  private long tickTimer = -1;
  private long progressTimer = -1;
  private long lastTarget;
  private long lastFullPassNanos;

  DataPlaneVerticle(int index, EventServiceConfig config, EventStore store, SchemaStore schema, ScanSlots slots,
      ScanRateLimiter rate, WaitQueueHeads heads, DataPlaneMetrics metrics, ChangefeedProgress progress,
      LongSupplier nanoClock) {
    this.index = index;
    this.config = config;
    this.store = store;
    this.schema = schema;
    this.scanner = new Scanner(store, schema);
    this.scanPriority = new ScanThreadPriority(config.scanThreadNice());
    this.slots = slots;
    this.rate = rate;
    this.heads = heads;
    this.metrics = metrics;
    this.progress = progress;
    this.nanoClock = nanoClock;
    this.limits = config.limits();
    this.idleIntervalNanos = config.idleResolvedInterval().toNanos();
  }

  @Override
  public Future<?> start() {
    scanWorkers = vertx.createSharedWorkerExecutor("sluice-scan", EventServiceLimits.DEFAULT_SCAN_CONCURRENCY * 2);
    tickTimer = vertx.setPeriodic(config.tickInterval().toMillis(), t -> pass());
    progressTimer = vertx.setPeriodic(1000, t -> publishProgress());
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    vertx.cancelTimer(tickTimer);
    vertx.cancelTimer(progressTimer);
    for (DispatcherStream s : streams.values()) {
      if (s.running != null) {
        s.running.cancelled().set(true);
      }
    }
    return scanWorkers.close();
  }

  // ---------------------------------------------------------------- inputs (any thread)

  void submit(DataPlaneCommand command) {
    context.runOnContext(v -> apply(command));
  }

  /** The stores' resolved ts advanced: one pass is scheduled however many advances arrive meanwhile. */
  void onResolvedAdvanced() {
    if (context == null) {
      return; // not deployed yet: its first pass reads the resolved ts anyway
    }
    if (resolvedPassScheduled.compareAndSet(false, true)) {
      context.runOnContext(v -> {
        resolvedPassScheduled.set(false);
        pass();
      });
    }
  }

  /** Retries the wait queue soon on this instance's context: another instance freed a slot. Any thread. */
  void retrySoon() {
    if (context != null && retryScheduled.compareAndSet(false, true)) {
      context.runOnContext(v -> {
        retryScheduled.set(false);
        retryWaiting(currentTarget(), nanoClock.getAsLong());
      });
    }
  }

  void updateLimits(EventServiceLimits newLimits) {
    this.limits = newLimits;
  }

  // ---------------------------------------------------------------- commands

  private void apply(DataPlaneCommand c) {
    DispatcherStream s = streams.get(c.id());
    if (c instanceof DataPlaneCommand.Add add) {
      streams.put(add.id(), new DispatcherStream(add.registration(), add.link()));
      metrics.streams.incrementAndGet();
    } else if (s == null) {
      return; // removed meanwhile: later commands for it are moot
    } else if (c instanceof DataPlaneCommand.Reset r) {
      cancelRunning(s);
      setCredit(s, -1, 0);
      s.epoch = r.epoch();
      s.active = true;
      s.seq = 1; // the handshake
      s.progressTs = r.startTs();
      s.cursor = r.cursor();
      s.nextFragmentIndex = 0;
      s.tableInfoVersion = r.tableInfoVersion();
      s.lastMarkTimeMicros = -1;
      s.resolvedSentTs = r.startTs();
      s.resolvedSentAtNanos = 0;
      s.sentBytes = 0;
      if (s.earlyCreditEpoch == r.epoch()) {
        setCredit(s, s.earlyCreditAvailable, s.earlyCreditReceived);
      }
      s.earlyCreditEpoch = -1;
      s.backingOff = false;
      considerIsolated(s, currentTarget(), nanoClock.getAsLong());
    } else if (c instanceof DataPlaneCommand.Suspend su) {
      cancelRunning(s);
      s.epoch = su.epoch();
      s.active = false;
    } else if (c instanceof DataPlaneCommand.Remove) {
      cancelRunning(s);
      setCredit(s, -1, 0);
      streams.remove(c.id());
      metrics.streams.decrementAndGet();
    } else if (c instanceof DataPlaneCommand.Credit cr) {
      if (cr.from() != s.link) {
        return;   // only the stream that holds the dispatcher grants it credit
      }
      if (cr.epoch() == s.epoch && s.active) {
        setCredit(s, cr.availableBytes(), cr.receivedBytes());
        considerIsolated(s, currentTarget(), nanoClock.getAsLong());
      } else if (cr.epoch() > s.epoch) {
        s.earlyCreditEpoch = cr.epoch();
        s.earlyCreditAvailable = cr.availableBytes();
        s.earlyCreditReceived = cr.receivedBytes();
      }
    }
  }

  private void setCredit(DispatcherStream s, long available, long received) {
    metrics.creditBytes.addAndGet(Math.max(available, 0) - Math.max(s.creditAvailable, 0));
    s.creditAvailable = available;
    s.creditReceived = received;
  }

  private void cancelRunning(DispatcherStream s) {
    if (s.running != null) {
      s.running.cancelled().set(true);
      s.running = null; // its result finds the epoch changed (or the stream gone) and is dropped
      metrics.scansCancelled.increment();
    }
  }

  // ---------------------------------------------------------------- rounds

  private long currentTarget() {
    return Math.min(store.resolvedTs(), schema.resolvedTs());
  }

  private void pass() {
    long target = currentTarget();
    long now = nanoClock.getAsLong();
    if (target > lastTarget || now - lastFullPassNanos >= idleIntervalNanos) {
      lastTarget = Math.max(lastTarget, target);
      lastFullPassNanos = now;
      for (DispatcherStream s : waiting) {
        s.waiting = false;
      }
      metrics.waiting.addAndGet(-waiting.size());
      waiting.clear();
      for (DispatcherStream s : streams.values()) {
        considerIsolated(s, target, now);
      }
      publishHead();
    } else {
      retryWaiting(target, now);
    }
    progress.observe(lastTarget, now);
  }

  /**
   * Retries parked streams in FIFO order while a scan slot and rate budget are free, at most
   * {@link #RETRIES_PER_ROUND}: every stream behind a busy shared limit would fail the same way, and
   * trying thousands of them each tick kept the event loops (which the collector streams share) busy.
   */
  private void retryWaiting(long target, long now) {
    for (int n = Math.min(waiting.size(), RETRIES_PER_ROUND); n > 0 && slots.hasFree() && rate.hasTokens(); n--) {
      int longest = heads.longest();
      if (longest >= 0 && longest != index) {
        heads.wake(longest);   // a dispatcher of another instance has waited longer: the slot is its turn
        break;
      }
      DispatcherStream s = waiting.poll();
      s.waiting = false;
      metrics.waiting.decrementAndGet();
      publishHead();
      if (streams.get(s.id()) == s) {
        considerIsolated(s, target, now);
      }
    }
    publishHead();
  }

  private void publishHead() {
    DispatcherStream head = waiting.peek();
    heads.publish(index, head == null ? WaitQueueHeads.NONE : head.parkedAtNanos);
  }

  /**
   * {@link #consider} for one stream, whose failure (say, its progress below a GC point that a bogus
   * checkpoint let through) must not end the pass for the streams after it: it backs off and is logged.
   */
  private void considerIsolated(DispatcherStream s, long target, long now) {
    if (s.backingOff) {
      if (now - s.retryAfterNanos < 0) {
        return;
      }
      s.backingOff = false;
    }
    try {
      consider(s, target, now);
    } catch (RuntimeException e) {
      s.backingOff = true;
      s.retryAfterNanos = now + STREAM_FAILURE_BACKOFF_NANOS;
      metrics.streamFailures.increment();
      log.atWarn().setCause(e).addKeyValue("dispatcherId", s.id()).addKeyValue("changefeedId",
          s.registration.changefeedId()).addKeyValue("epoch", s.epoch).addKeyValue("progressTs", s.progressTs)
          .log("dispatcher cannot be served now; retried in 1 s, the other dispatchers go on");
    }
  }

  /** Decides what one stream needs now: nothing, a watermark, or a scan. */
  private void consider(DispatcherStream s, long target, long now) {
    if (!s.active || s.running != null) {
      return;
    }
    if (s.progressTs >= target && s.cursor == null) {
      maybeSendResolved(s, now, false);
      return;
    }
    if (needsScan(s, target)) {
      tryScan(s, target);
    } else {
      s.progressTs = target;
      metrics.idleAdvances.increment();
      maybeSendResolved(s, now, false);
    }
  }

  private boolean needsScan(DispatcherStream s, long target) {
    long table = s.registration.span().tableId();
    return s.cursor != null
        || store.lastCommitTs(table) > s.progressTs
        || s.registration.syncPointIntervalS() > 0
        || (schema.lastDdlTs() > s.progressTs && !schema.ddlEvents(table, s.progressTs, target).isEmpty());
  }

  private void tryScan(DispatcherStream s, long target) {
    CollectorLink link = s.link;
    long allowed = Math.min(s.creditAllowed(), link.changefeedCredit(s.registration.changefeedId()).allowed());
    if (allowed <= 0) {
      metrics.skipped.get(DataPlaneMetrics.SkipReason.NO_CREDIT).increment();
      if (s.creditAllowed() > 0) {
        park(s); // blocked on the changefeed's credit, which has no per-dispatcher wake-up
      }
      return;
    }
    if (!rate.hasTokens()) {
      metrics.skipped.get(DataPlaneMetrics.SkipReason.RATE_LIMITED).increment();
      park(s);
      return;
    }
    if (!slots.tryAcquire()) {
      metrics.skipped.get(DataPlaneMetrics.SkipReason.NO_SLOT).increment();
      park(s);
      return;
    }
    long budget = Math.min(limits.scanBatchBytes(), allowed);
    if (!link.tryReserve(budget)) {
      slots.release();
      metrics.skipped.get(DataPlaneMetrics.SkipReason.NO_ROOM).increment();
      park(s);
      return;
    }
    int fragmentBytes = (int) Math.min(budget, WireEncoder.EVENT_BATCH_BYTES - 1024);
    ScanTask task = ScanTask.between(s, target, budget, fragmentBytes);
    s.running = task;
    metrics.scansStarted.increment();
    scanWorkers.executeBlocking(() -> {
      scanPriority.applyToCurrentThread();
      return scanner.run(task);
    }, false).onComplete(ar -> onScanDone(s, task, ar));
  }

  private void park(DispatcherStream s) {
    if (!s.waiting) {
      s.waiting = true;
      s.parkedAtNanos = nanoClock.getAsLong();
      waiting.add(s);
      if (waiting.size() == 1) {
        publishHead();
      }
      metrics.waiting.incrementAndGet();
    }
  }

  private void onScanDone(DispatcherStream s, ScanTask task, AsyncResult<ScanResult> ar) {
    slots.release();
    if (s.running == task) {
      s.running = null;
    }
    ScanResult result = ar.succeeded() ? ar.result() : null;
    rate.charge(result == null ? 0 : result.bytesRead());
    if (ar.failed()) {
      metrics.scansFailed.increment();
      task.link().release(task.budgetBytes());
      log.atWarn().setCause(ar.cause()).addKeyValue("dispatcherId", s.id()).addKeyValue("epoch", task.epoch())
          .log("scan failed; it is retried on the next round");
      park(s);
      return;
    }
    if (result == null || task.cancelled().get() || streams.get(s.id()) != s || s.epoch != task.epoch() || !s.active) {
      metrics.staleResultsDropped.increment();
      task.link().release(task.budgetBytes()); // reserved on the link the task started with
      return;
    }
    metrics.scanBytesRead.increment(result.bytesRead());
    send(s, task, result);
    long now = nanoClock.getAsLong();
    long target = currentTarget();
    if (s.cursor == null && s.progressTs >= target) {
      considerIsolated(s, target, now);   // caught up: its watermark needs no slot
    } else {
      park(s);   // round robin: the freed slot goes to the longest-waiting dispatcher, on any instance
    }
    retryWaiting(target, now);
  }

  /** Sends the result's event batches (numbered by the scan), then the watermark when the range is done. */
  private void send(DispatcherStream s, ScanTask task, ScanResult result) {
    long used = 0;
    for (byte[] m : result.messages()) {
      used += m.length;
    }
    // settle the reservation before handing bytes over: the link releases what it writes
    if (used > task.budgetBytes()) {
      s.link.reserve(used - task.budgetBytes());
    } else {
      s.link.release(task.budgetBytes() - used);
    }
    for (byte[] m : result.messages()) {
      s.link.sendEvents(s.id(), s.epoch, m);
    }
    s.seq += result.eventCount();
    s.sentBytes += result.creditBytes();
    s.link.changefeedCredit(s.registration.changefeedId()).onSent(result.creditBytes());
    metrics.dmlSent.increment(result.dmlCount());
    metrics.ddlSent.increment(result.ddlCount());
    metrics.syncPointsSent.increment(result.syncPointCount());
    metrics.eventBytesSent.increment(used);
    metrics.scanEvents.record(result.eventCount());
    s.progressTs = result.progressTs();
    s.cursor = result.cursor();
    s.nextFragmentIndex = result.nextFragmentIndex();
    s.tableInfoVersion = result.tableInfoVersion();
    s.lastMarkTimeMicros = result.lastMarkTimeMicros();
    if (result.reachedEnd()) {
      maybeSendResolved(s, nanoClock.getAsLong(), true);
    }
  }

  /** Sends the stream's watermark if it moved; an idle stream at most once per idle interval. */
  private void maybeSendResolved(DispatcherStream s, long now, boolean force) {
    if (s.cursor != null || s.resolvedSentTs >= s.progressTs) {
      return; // never inside a transaction; nothing new
    }
    if (!force && now - s.resolvedSentAtNanos < idleIntervalNanos) {
      return;
    }
    s.link.sendResolved(s.id(), s.epoch, s.progressTs, s.seq);
    s.resolvedSentTs = s.progressTs;
    s.resolvedSentAtNanos = now;
    metrics.resolvedSent.increment();
  }

  private void publishProgress() {
    Map<String, Long> minByChangefeed = new HashMap<>();
    for (DispatcherStream s : streams.values()) {
      if (s.active) {
        minByChangefeed.merge(s.registration.changefeedId(), s.resolvedSentTs, Math::min);
      }
    }
    progress.publish(index, minByChangefeed);
  }

  int streamCount() {
    return streams.size();
  }
}
