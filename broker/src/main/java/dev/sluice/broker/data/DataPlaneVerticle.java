package dev.sluice.broker.data;

import dev.sluice.api.DispatcherId;
import dev.sluice.broker.control.CollectorLink;
import dev.sluice.broker.control.DataPlaneCommand;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.control.EventServiceLimits;
import dev.sluice.api.v1.SnapshotStatus;
import dev.sluice.broker.snapshot.ReadChunk;
import dev.sluice.broker.snapshot.SnapshotEnd;
import dev.sluice.broker.snapshot.SnapshotService;
import dev.sluice.broker.snapshot.SnapshotSession;
import dev.sluice.broker.snapshot.SnapshotSpec;
import dev.sluice.broker.store.EventStore;
import dev.sluice.schema.SchemaStore;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.WorkerExecutor;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
  private final ChunkEncoder chunks;
  private final SnapshotService snapshots;
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
  /** Max credit reports kept for dispatchers this instance has not been given yet (oldest dropped first). */
  static final int MAX_CREDITS_AHEAD = 4096;
  /**
   * Credit reports that raced ahead of their dispatcher's REGISTER (a client may send REGISTER, RESET and
   * CREDIT back to back; the first two reach here through the control plane): applied when it is added.
   */
  private final Map<DispatcherId, DataPlaneCommand.Credit> creditsAhead =
      new java.util.LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<DispatcherId, DataPlaneCommand.Credit> eldest) {
          return size() > MAX_CREDITS_AHEAD;
        }
      };
  private final ArrayDeque<DispatcherStream> waiting = new ArrayDeque<>();
  private final AtomicBoolean resolvedPassScheduled = new AtomicBoolean();
  private final long idleIntervalNanos;
  private final ChangefeedProgress progress;
  private volatile EventServiceLimits limits;
  private WorkerExecutor scanWorkers;
  /** null: the "sluice-scan" worker pool, created at start. */
  private ScanExecutor scanExecutor;
  private long tickTimer = -1;
  private long progressTimer = -1;
  private long lastTarget;
  private long lastFullPassNanos;
  /**
   * A retry round is running. A scan started in it may complete before its handler is attached (the
   * worker beat the loop) and so inside the round; its own retry is then left to the running round,
   * which checks the queue on every turn, instead of draining the queue under it.
   */
  private boolean retrying;

  DataPlaneVerticle(int index, EventServiceConfig config, EventStore store, SchemaStore schema, ScanSlots slots,
      ScanRateLimiter rate, WaitQueueHeads heads, DataPlaneMetrics metrics, ChangefeedProgress progress,
      SnapshotService snapshots, LongSupplier nanoClock) {
    this(index, config, store, schema, slots, rate, heads, metrics, progress, snapshots, nanoClock, null);
  }

  /** With scans run by {@code scanExecutor} instead of the worker pool (null: the pool). */
  DataPlaneVerticle(int index, EventServiceConfig config, EventStore store, SchemaStore schema, ScanSlots slots,
      ScanRateLimiter rate, WaitQueueHeads heads, DataPlaneMetrics metrics, ChangefeedProgress progress,
      SnapshotService snapshots, LongSupplier nanoClock, ScanExecutor scanExecutor) {
    this.scanExecutor = scanExecutor;
    this.index = index;
    this.config = config;
    this.store = store;
    this.schema = schema;
    this.scanner = new Scanner(store, schema);
    this.chunks = new ChunkEncoder(store, schema);
    this.snapshots = snapshots;
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
    if (scanExecutor == null) {
      scanExecutor = scan -> scanWorkers.executeBlocking(scan, false);
    }
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
      endSnapshot(s, "the broker is stopping");
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

  /** A snapshot reader is about to write a high watermark: hold the stream at the stores' resolved ts now. */
  void snapshotHold(DispatcherId id, long epoch, CompletableFuture<Boolean> held) {
    context.runOnContext(v -> {
      SnapshotLane lane = lane(id, epoch);
      if (lane == null) {
        held.complete(false);
        return;
      }
      lane.holdTs = currentTarget();   // below any watermark written after this
      lane.heldAtNanos = nanoClock.getAsLong();
      held.complete(true);
    });
  }

  void snapshotUnhold(DispatcherId id, long epoch) {
    context.runOnContext(v -> {
      SnapshotLane lane = lane(id, epoch);
      if (lane != null) {
        lane.holdTs = -1;
        reconsider(streams.get(id));
      }
    });
  }

  /** A chunk to deliver at its high watermark. */
  void snapshotChunk(DispatcherId id, long epoch, ReadChunk chunk) {
    context.runOnContext(v -> {
      SnapshotLane lane = lane(id, epoch);
      if (lane == null || lane.session != chunk.session() || !chunk.current()) {
        return;   // the epoch ended, or an earlier chunk is read again: its session gave the memory back
      }
      lane.holdTs = -1;
      lane.chunks.addLast(chunk);
      metrics.snapshotHold.record(nanoClock.getAsLong() - lane.heldAtNanos, TimeUnit.NANOSECONDS);
      reconsider(streams.get(id));
    });
  }

  /** The snapshot ended without a last chunk: its SnapshotDone goes out next. */
  void snapshotEnded(DispatcherId id, long epoch, SnapshotEnd end) {
    context.runOnContext(v -> {
      SnapshotLane lane = lane(id, epoch);
      if (lane != null) {
        lane.holdTs = -1;
        lane.pendingEnd = end;
        reconsider(streams.get(id));
      }
    });
  }

  /** The lane of the dispatcher's current epoch, or null when the epoch (or its snapshot) is gone. */
  private SnapshotLane lane(DispatcherId id, long epoch) {
    DispatcherStream s = streams.get(id);
    return s == null || s.epoch != epoch || !s.active ? null : s.snapshot;
  }

  private void reconsider(DispatcherStream s) {
    if (s != null) {
      considerIsolated(s, currentTarget(), nanoClock.getAsLong());
    }
  }

  // ---------------------------------------------------------------- commands

  private void apply(DataPlaneCommand c) {
    DispatcherStream s = streams.get(c.id());
    if (c instanceof DataPlaneCommand.Add add) {
      DispatcherStream added = new DispatcherStream(add.registration(), add.link());
      streams.put(add.id(), added);
      metrics.streams.incrementAndGet();
      DataPlaneCommand.Credit ahead = creditsAhead.remove(add.id());
      if (ahead != null && ahead.from() == added.link) {
        keepEarly(added, ahead);   // applied when its epoch starts (the RESET follows)
      }
    } else if (s == null) {
      if (c instanceof DataPlaneCommand.Credit cr) {
        creditsAhead.put(cr.id(), cr);   // its REGISTER is still on its way through the control plane
      }
      return; // otherwise removed meanwhile: later commands for it are moot
    } else if (c instanceof DataPlaneCommand.Reset r) {
      cancelRunning(s);
      endSnapshot(s, "a new epoch began");
      setCredit(s, -1, 0);
      s.epoch = r.epoch();
      s.active = true;
      s.seq = 1; // the handshake
      s.progressTs = r.startTs();
      s.cursor = r.cursor();
      s.nextFragmentIndex = 0;
      s.tableInfoVersion = r.tableInfoVersion();
      s.tableInfoVersionRowSeq = r.tableInfoVersionRowSeq();
      s.lastMarkTimeMicros = -1;
      s.resolvedSentTs = r.startTs();
      s.resolvedSentAtNanos = 0;
      s.sentBytes = 0;
      if (s.earlyCreditEpoch == r.epoch()) {
        setCredit(s, s.earlyCreditAvailable, s.earlyCreditReceived);
      }
      s.earlyCreditEpoch = -1;
      s.backingOff = false;
      if (r.snapshot() != null && r.snapshot().fromLog()) {
        s.snapshot = new SnapshotLane(null);
        s.snapshot.pendingEnd = new SnapshotEnd(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE, "the table was created after"
            + " the stream's start ts: the log holds every row it ever had", 0, 0);
      } else if (r.snapshot() != null) {
        SnapshotSession session = snapshots.start(new SnapshotSpec(s.id(), r.epoch(), s.registration.changefeedId(),
            s.registration.span(), r.snapshot().from(), s.registration.copyText()));
        s.snapshot = new SnapshotLane(session);
      }
      considerIsolated(s, currentTarget(), nanoClock.getAsLong());
    } else if (c instanceof DataPlaneCommand.Suspend su) {
      cancelRunning(s);
      endSnapshot(s, "its epoch ended");
      s.epoch = su.epoch();
      s.active = false;
    } else if (c instanceof DataPlaneCommand.Remove) {
      cancelRunning(s);
      endSnapshot(s, "the dispatcher was removed");
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
        keepEarly(s, cr);
      }
    }
  }

  /** Keeps a report for an epoch that has not started, to apply when its RESET comes. */
  private static void keepEarly(DispatcherStream s, DataPlaneCommand.Credit cr) {
    s.earlyCreditEpoch = cr.epoch();
    s.earlyCreditAvailable = cr.availableBytes();
    s.earlyCreditReceived = cr.receivedBytes();
  }

  private void setCredit(DispatcherStream s, long available, long received) {
    metrics.creditBytes.addAndGet(Math.max(available, 0) - Math.max(s.creditAvailable, 0));
    s.creditAvailable = available;
    s.creditReceived = received;
  }

  /** Cancels the epoch's snapshot (nobody is left to tell): its chunk is dropped, its memory given back. */
  private void endSnapshot(DispatcherStream s, String why) {
    if (s.snapshot != null) {
      if (s.snapshot.session != null) {
        s.snapshot.session.cancel(why, false);
      }
      s.snapshot = null;
    }
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
    if (retrying) {
      return;   // a scan completed inside the round below (synchronously): that round goes on with the queue
    }
    retrying = true;
    try {
      for (int n = Math.min(waiting.size(), RETRIES_PER_ROUND);
          n > 0 && !waiting.isEmpty() && slots.hasFree() && rate.hasTokens(); n--) {
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
    } finally {
      retrying = false;
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
  private void consider(DispatcherStream s, long storesTarget, long now) {
    if (!s.active || s.running != null) {
      return;
    }
    SnapshotLane lane = s.snapshot;
    if (lane != null && s.cursor == null && lane.hasWork(s.progressTs)) {
      if (lane.head() == null) {
        sendSnapshotDone(s, lane);
      } else {
        tryDeliverChunk(s, lane);
      }
      return;
    }
    long target = lane == null ? storesTarget : lane.bound(storesTarget);
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
      if (lane != null && lane.hasWork(s.progressTs)) {
        consider(s, storesTarget, now);   // at the chunk's high watermark: its rows go out now
      }
    }
  }

  private boolean needsScan(DispatcherStream s, long target) {
    long table = s.registration.span().tableId();
    return s.cursor != null
        || store.lastCommitTs(table) > s.progressTs
        || s.registration.syncPointIntervalS() > 0
        || (schema.lastDdlTs() > s.progressTs && !schema.ddlEvents(table, s.progressTs, target).isEmpty());
  }

  /**
   * Admits a stream to a worker task: its credit, the changefeed's, the scan rate, a slot and queue room.
   * Returns the byte budget reserved on its link (a slot is held), or -1 when it waits (parked).
   */
  private long admit(DispatcherStream s) {
    CollectorLink link = s.link;
    long allowed = Math.min(s.creditAllowed(), link.changefeedCredit(s.registration.changefeedId()).allowed());
    if (allowed <= 0) {
      metrics.skipped.get(DataPlaneMetrics.SkipReason.NO_CREDIT).increment();
      if (s.creditAllowed() > 0) {
        park(s); // blocked on the changefeed's credit, which has no per-dispatcher wake-up
      }
      return -1;
    }
    if (!rate.hasTokens()) {
      metrics.skipped.get(DataPlaneMetrics.SkipReason.RATE_LIMITED).increment();
      park(s);
      return -1;
    }
    if (!slots.tryAcquire()) {
      metrics.skipped.get(DataPlaneMetrics.SkipReason.NO_SLOT).increment();
      park(s);
      return -1;
    }
    long budget = Math.min(limits.scanBatchBytes(), allowed);
    if (!link.tryReserve(budget)) {
      slots.release();
      metrics.skipped.get(DataPlaneMetrics.SkipReason.NO_ROOM).increment();
      park(s);
      return -1;
    }
    return budget;
  }

  private void tryScan(DispatcherStream s, long target) {
    long budget = admit(s);
    if (budget < 0) {
      return;
    }
    int fragmentBytes = (int) Math.min(budget, WireEncoder.EVENT_BATCH_BYTES - 1024);
    ScanTask task = ScanTask.between(s, target, budget, fragmentBytes);
    s.running = task;
    metrics.scansStarted.increment();
    scanExecutor.execute(() -> {
      scanPriority.applyToCurrentThread();
      return scanner.run(task);
    }).onComplete(ar -> onScanDone(s, task, ar));
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
    afterTask(s);
  }

  /** After a task: a stream that caught up (to its bound) is considered at once, others queue for a slot. */
  private void afterTask(DispatcherStream s) {
    long now = nanoClock.getAsLong();
    long target = currentTarget();
    long bound = s.snapshot == null ? target : s.snapshot.bound(target);
    if (s.cursor == null && (s.progressTs >= bound || (s.snapshot != null && s.snapshot.hasWork(s.progressTs)))) {
      considerIsolated(s, target, now);   // caught up: its watermark (or its snapshot chunk) comes next
    } else {
      park(s);   // round robin: the freed slot goes to the longest-waiting dispatcher, on any instance
    }
    retryWaiting(target, now);
  }

  // ---------------------------------------------------------------- snapshot chunks

  /** Sends the next part of the lane's chunk (merging it first), under the same admission as a scan. */
  private void tryDeliverChunk(DispatcherStream s, SnapshotLane lane) {
    long budget = admit(s);
    if (budget < 0) {
      return;
    }
    int fragmentBytes = (int) Math.min(budget, WireEncoder.EVENT_BATCH_BYTES - 1024);
    ScanTask marker = ScanTask.between(s, s.progressTs, budget, fragmentBytes);   // occupies the stream's one task
    ChunkTask task = ChunkTask.of(s, lane, budget, fragmentBytes, marker.cancelled());
    s.running = marker;
    metrics.scansStarted.increment();
    scanWorkers.executeBlocking(() -> {
      scanPriority.applyToCurrentThread();
      return chunks.run(task);
    }, false).onComplete(ar -> onChunkDone(s, lane, marker, task, ar));
  }

  private void onChunkDone(DispatcherStream s, SnapshotLane lane, ScanTask marker, ChunkTask task,
      AsyncResult<ChunkResult> ar) {
    slots.release();
    if (s.running == marker) {
      s.running = null;
    }
    ChunkResult result = ar.succeeded() ? ar.result() : null;
    rate.charge(result == null ? 0 : result.bytesRead());
    if (ar.failed()) {
      metrics.scansFailed.increment();
      task.link().release(task.budgetBytes());
      log.atWarn().setCause(ar.cause()).addKeyValue("dispatcherId", s.id()).addKeyValue("epoch", task.epoch())
          .log("snapshot chunk delivery failed; it is retried on the next round");
      park(s);
      return;
    }
    if (result == null || marker.cancelled().get() || streams.get(s.id()) != s || s.epoch != task.epoch() || !s.active
        || s.snapshot != lane || lane.head() != task.chunk()) {
      metrics.staleResultsDropped.increment();
      task.link().release(task.budgetBytes());
      return;
    }
    ReadChunk chunk = lane.head();
    if (result.rereadReason() != null) {
      task.link().release(task.budgetBytes());
      lane.clearChunks();
      chunk.session().reread(chunk, result.rereadReason());
      afterTask(s);
      return;
    }
    settle(s, task.budgetBytes(), result.messages());
    for (byte[] m : result.messages()) {
      s.link.sendEvents(s.id(), s.epoch, m);
    }
    s.seq += result.eventCount();
    s.sentBytes += result.creditBytes();
    s.link.changefeedCredit(s.registration.changefeedId()).onSent(result.creditBytes());
    metrics.scanEvents.record(result.eventCount());
    lane.merged = result.merged();
    lane.nextRow = result.nextRow();
    lane.nextFragment = result.nextFragment();
    if (result.finished()) {
      int sent = lane.merged.size();
      lane.pollHead();
      if (chunk.last()) {
        lane.done = true;
        s.snapshot = null;
      }
      chunk.session().delivered(chunk, sent);
    }
    afterTask(s);
  }

  /** Sends a SnapshotDone for a snapshot that ended without a last chunk (tiny: encoded here). */
  private void sendSnapshotDone(DispatcherStream s, SnapshotLane lane) {
    PendingEvent done = PendingEvent.encoded(PendingEvent.SNAPSHOT_DONE, lane.pendingEnd.toProto().toByteArray(),
        s.progressTs);
    byte[] message = WireEncoder.eventBatch(s.id(), s.epoch, List.of(done), 0, 1, s.seq + 1);
    int size = WireEncoder.dataEventSize(s.seq + 1, done);
    s.link.reserve(message.length);
    s.link.sendEvents(s.id(), s.epoch, message);
    s.seq++;
    s.sentBytes += size;
    s.link.changefeedCredit(s.registration.changefeedId()).onSent(size);
    metrics.snapshotDoneSent.increment();
    lane.done = true;
    s.snapshot = null;
    considerIsolated(s, currentTarget(), nanoClock.getAsLong());
  }

  /** Settles a task's reservation against what it produced: the link releases what it writes. */
  private static void settle(DispatcherStream s, long reserved, List<byte[]> messages) {
    long used = 0;
    for (byte[] m : messages) {
      used += m.length;
    }
    if (used > reserved) {
      s.link.reserve(used - reserved);
    } else {
      s.link.release(reserved - used);
    }
  }

  /** Sends the result's event batches (numbered by the scan), then the watermark when the range is done. */
  private void send(DispatcherStream s, ScanTask task, ScanResult result) {
    long used = 0;
    for (byte[] m : result.messages()) {
      used += m.length;
    }
    settle(s, task.budgetBytes(), result.messages());   // before handing bytes over: the link releases what it writes
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
    s.tableInfoVersionRowSeq = result.tableInfoVersionRowSeq();
    s.lastMarkTimeMicros = result.lastMarkTimeMicros();
    if (result.reachedEnd()) {
      maybeSendResolved(s, nanoClock.getAsLong(), true);
    }
  }

  /** Sends the stream's watermark if it moved; an idle stream at most once per idle interval. */
  private void maybeSendResolved(DispatcherStream s, long now, boolean force) {
    if (s.cursor != null || s.resolvedSentTs >= s.progressTs
        || (s.snapshot != null && s.snapshot.inChunkAt(s.progressTs))) {
      return; // never inside a transaction (a snapshot chunk's rows at its high watermark are one); nothing new
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
