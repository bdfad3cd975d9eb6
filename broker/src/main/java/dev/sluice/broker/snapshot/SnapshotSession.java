package dev.sluice.broker.snapshot;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.api.v1.SnapshotProgress;
import dev.sluice.api.v1.SnapshotStatus;
import dev.sluice.schema.TableDroppedException;
import dev.sluice.schema.TableInfo;
import dev.sluice.schema.UnknownTableException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One dispatcher epoch's snapshot on the reader side: reads the table chunk by chunk, each between its
 * own two watermarks, and hands each chunk to the data plane, which merges and delivers it at its high
 * watermark and then reports back ({@link #delivered} or {@link #reread}). Up to {@link #READ_AHEAD} chunks
 * are out at once, so the next chunk is read while the last one goes out; they are delivered in read order.
 *
 * <p><b>One chunk</b> ({@link #step}, on a reader thread): room in the memory budget, the rate limits,
 * the table info as the schema store has it now, a low watermark (wait until capture saw it), the
 * SELECT, a hold on the stream (so it cannot pass the watermark about to be written before the chunk is
 * there), the high watermark (wait until capture saw it), hand-over. A transient failure backs off
 * (doubling to {@link SnapshotConfig#maxRetryBackoff()}) and reads the same chunk again; a table found
 * dropped ends it {@code TABLE_DROPPED}, a refusal {@code FAILED}.
 *
 * <p><b>Reading again.</b> A chunk the data plane cannot deliver (the table changed between its
 * watermarks) rewinds the session to that chunk's start: the chunks read after it are dropped (their
 * memory given back) and a new generation begins, so a chunk of the old one that is still on its way is
 * dropped where it arrives ({@link ReadChunk#current()}). Progress thus only ever moves forward in key order.
 *
 * <p><b>Threads.</b> {@link #step} runs on one reader thread at a time (the session is queued at most
 * once); {@link #delivered}, {@link #reread} and {@link #cancel} come from the data plane's or an
 * operator's thread. The monitor of {@code this} guards the state.
 */
public final class SnapshotSession {

  /** Chunks out at once per snapshot: one going out, one read ahead. */
  static final int READ_AHEAD = 2;

  private static final Logger log = LoggerFactory.getLogger(SnapshotSession.class);
  private static final long CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final SnapshotSpec spec;
  private final SnapshotService service;
  private final long startedNanos;

  // the final state, once reached; before that the state follows from the flags below
  private SessionState ended;
  private boolean queued = true;
  private boolean reading;
  private boolean backingOff;
  /** Chunks handed to the data plane and not delivered yet, in read order. */
  private final ArrayDeque<ReadChunk> outstanding = new ArrayDeque<>();
  private volatile int generation;
  /** Where the next read starts. */
  private SnapshotPosition readPosition;
  /** The last chunk read was the table's last: nothing more to read. */
  private boolean lastRead;
  private boolean cancelled;
  /** A cancel that came while a reader held the session asked for a SnapshotDone. */
  private boolean tellOnCancel;
  private String tableName = "";
  private boolean keyless;
  private long estimate = -1;
  private long endBlock;
  private long rowsRead;
  private long rowsDelivered;
  private long chunksRead;
  private long chunksDelivered;
  private long rereads;
  private int failures;
  private String lastError;
  private long lastDeliveredNanos = System.nanoTime();
  /**
   * The low watermark of the last chunk this session read (reader thread only), -1 before the first: where the
   * next chunk's merge window opens (see {@link ReadChunk#windowFromTs}), a whole chunk's read before its own.
   */
  private long lastLowTs = -1;

  SnapshotSession(SnapshotSpec spec, SnapshotService service, long startedNanos) {
    this.spec = spec;
    this.service = service;
    this.startedNanos = startedNanos;
    this.readPosition = spec.from();
  }

  public SnapshotSpec spec() {
    return spec;
  }

  /** The read generation: a chunk read again starts a new one. */
  int generation() {
    return generation;
  }

  public synchronized SessionState state() {
    if (ended != null) {
      return ended;
    }
    if (reading) {
      return SessionState.READING;
    }
    if (backingOff) {
      return SessionState.BACKING_OFF;
    }
    return queued ? SessionState.QUEUED : SessionState.DELIVERING;
  }

  // ---------------------------------------------------------------- from the data plane (any thread)

  /** The chunk's rows went out at its high watermark: read on, or end after the last. */
  public void delivered(ReadChunk chunk, long rowsSent) {
    boolean requeue = false;
    boolean complete = false;
    synchronized (this) {
      if (ended != null || outstanding.peekFirst() != chunk) {
        return;   // cancelled, or a chunk of an older generation
      }
      outstanding.pollFirst();
      service.budget().release(chunk.bytes());
      rowsDelivered += chunk.rows().size();
      chunksDelivered++;
      failures = 0;
      lastDeliveredNanos = System.nanoTime();
      if (chunk.last()) {
        ended = SessionState.COMPLETE;
        complete = true;
      } else if (!cancelled) {
        requeue = wantsRead();
      }
    }
    service.metrics().chunkDelivered(chunk.rows().size(), rowsSent);
    if (complete) {
      log.atInfo().addKeyValue("dispatcherId", spec.id()).addKeyValue("changefeedId", spec.changefeedId())
          .addKeyValue("table", tableName).addKeyValue("rows", rowsDelivered).addKeyValue("chunks", chunksDelivered)
          .addKeyValue("rereads", rereads).log("snapshot complete");
      service.finished(this);
    } else if (requeue) {
      service.requeue(this);
    }
  }

  /**
   * The chunk cannot be delivered as read (the table changed between its watermarks): the session rewinds
   * to its start, the chunks read after it are dropped, and it is read again.
   */
  public void reread(ReadChunk chunk, String why) {
    boolean requeue;
    synchronized (this) {
      if (ended != null || outstanding.peekFirst() != chunk) {
        return;
      }
      for (ReadChunk c : outstanding) {
        service.budget().release(c.bytes());
      }
      outstanding.clear();
      generation++;
      readPosition = chunk.from();
      rowsRead = rowsDelivered;
      chunksRead = chunksDelivered;
      lastRead = false;
      rereads++;
      lastError = why;
      requeue = !cancelled && wantsRead();
    }
    service.metrics().chunkReread();
    log.atInfo().addKeyValue("dispatcherId", spec.id()).addKeyValue("table", tableName)
        .addKeyValue("chunk", chunk.number()).log("snapshot chunk read again: " + why);
    if (requeue) {
      service.requeue(this);
    }
  }

  /** Whether a reader should take the session now; marks it queued when so (call with the monitor). */
  private boolean wantsRead() {
    if (queued || reading || backingOff || lastRead || outstanding.size() >= READ_AHEAD) {
      return false;
    }
    queued = true;
    return true;
  }

  /**
   * Stops the snapshot. With {@code tell}, the stream gets a SnapshotDone(CANCELLED) with {@code reason}
   * (an operator cancelled it); without, its epoch is gone and nobody listens.
   */
  public void cancel(String reason, boolean tell) {
    boolean now;
    synchronized (this) {
      if (ended != null) {
        return;
      }
      cancelled = true;
      lastError = reason;
      tellOnCancel |= tell;
      now = !reading;   // a reader holding it ends it at its next check
    }
    if (now) {
      finish(SessionState.CANCELLED, SnapshotStatus.SNAPSHOT_STATUS_CANCELLED, reason, tell);
    }
  }

  // ---------------------------------------------------------------- one chunk (reader thread)

  /** Reads and hands over the next chunk, or ends the snapshot; never throws. */
  void step(ChunkSource source) {
    int gen;
    SnapshotPosition from;
    synchronized (this) {
      if (ended != null || !queued) {
        return;
      }
      queued = false;
      reading = true;   // a cancel meanwhile is seen below, and finish() ends it
      gen = generation;
      from = readPosition;
    }
    long reserved = 0;
    boolean held = false;
    try {
      if (isCancelled()) {
        throw new Cancelled();
      }
      SnapshotConfig config = service.config();
      reserved = reserve(config.chunkBytes());
      pace();
      TableInfo table = currentTable();
      if (estimate < 0) {
        TableStats stats = source.stats(table);
        estimate = stats.estimatedRows();
        endBlock = stats.blocks();
      }
      long t0 = System.nanoTime();
      // The merge window opens before the low watermark: PostgreSQL makes a commit visible to new snapshots
      // after it wrote its commit record, so a change committed just before L in the WAL can still be invisible
      // to the SELECT below; the window takes in the changes since the previous chunk's low watermark
      // (docs/CAPTURE.md).
      long windowFromTs = lastLowTs >= 0 ? lastLowTs : watermark(source, "window");
      long lowTs = watermark(source, "low");
      lastLowTs = lowTs;
      long readStart = System.nanoTime();
      SourceChunk read = source.read(new ChunkRead(table, from, config.chunkRows(), config.chunkBytes(),
          Math.max(1, config.chunkBytes() / 8192), Math.max(endBlock, 1), spec.copyText()));
      service.metrics().chunkRead(read.rows().size(), read.bytes(), System.nanoTime() - readStart,
          !read.rows().isEmpty() && read.rows().get(0).isLine());
      service.throttle().charge(read.rows().size(), read.bytes(), service.nanoClock().getAsLong());
      List<SnapshotRow> rows = inSpan(read.rows());
      if (isCancelled()) {
        throw new Cancelled();
      }
      long t2 = System.nanoTime();
      held = service.outlet().hold(spec.id(), spec.epoch()).toCompletableFuture()
          .get(config.watermarkTimeout().toMillis(), TimeUnit.MILLISECONDS);
      long t3 = System.nanoTime();
      if (!held) {
        throw new Cancelled();   // the epoch ended: nobody is left to deliver to
      }
      long highTs = watermark(source, "high");
      long t4 = System.nanoTime();
      service.budget().adjust(read.bytes() - reserved);
      reserved = read.bytes();
      ReadChunk chunk;
      boolean again;
      synchronized (this) {
        if (gen != generation) {   // an earlier chunk is read again: this one goes with the old generation
          reading = false;
          again = !cancelled && wantsRead();
          chunk = null;
        } else {
          chunksRead++;
          rowsRead += rows.size();
          chunk = new ReadChunk(this, gen, from, chunksRead, windowFromTs, lowTs, highTs, table, rows, progress(read),
              read.exhausted(), reserved);
          outstanding.addLast(chunk);
          readPosition = read.next();
          lastRead = read.exhausted();
          failures = 0;
          reading = false;
          again = !cancelled && wantsRead();
        }
      }
      if (chunk != null) {
        reserved = 0;   // the chunk holds it now
        held = false;   // the chunk lifts the hold
        service.outlet().chunk(spec.id(), spec.epoch(), chunk);
        log.atDebug().addKeyValue("dispatcherId", spec.id()).addKeyValue("table", tableName)
            .addKeyValue("chunk", chunk.number()).addKeyValue("rows", rows.size()).addKeyValue("bytes", read.bytes())
            .addKeyValue("form", !rows.isEmpty() && rows.get(0).isLine() ? "copy_text" : "values")
            .addKeyValue("windowFromTs", windowFromTs).addKeyValue("lowTs", lowTs).addKeyValue("highTs", highTs)
            .addKeyValue("last", read.exhausted())
            .addKeyValue("lowMs", (readStart - t0) / 1_000_000).addKeyValue("selectMs", (t2 - readStart) / 1_000_000)
            .addKeyValue("holdMs", (t3 - t2) / 1_000_000).addKeyValue("highMs", (t4 - t3) / 1_000_000)
            .addKeyValue("sinceDeliveredMs", (t0 - lastDeliveredNanos) / 1_000_000)
            .log("snapshot chunk read");
      }
      if (isCancelled()) {
        throw new Cancelled();
      }
      if (again) {
        service.requeue(this);
      }
    } catch (Cancelled c) {
      stopReading();
      finish(SessionState.CANCELLED, SnapshotStatus.SNAPSHOT_STATUS_CANCELLED,
          lastError == null ? "cancelled" : lastError, tellOnCancel());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopReading();
      finish(SessionState.CANCELLED, SnapshotStatus.SNAPSHOT_STATUS_CANCELLED, "the broker is stopping", false);
    } catch (SluiceException e) {
      onFailure(e);
    } catch (ExecutionException | TimeoutException e) {
      onFailure(SluiceException.of(ErrorCode.STORE_UNAVAILABLE, "the data plane did not answer the snapshot's hold"
          + " on the stream of dispatcher " + spec.id() + " within " + service.config().watermarkTimeout(), e));
    } catch (RuntimeException e) {
      log.atWarn().setCause(e).addKeyValue("dispatcherId", spec.id()).addKeyValue("table", tableName)
          .log("snapshot chunk failed unexpectedly; it is read again");
      onFailure(SluiceException.of(ErrorCode.UPSTREAM_UNAVAILABLE, "reading a chunk of " + tableName + " failed: " + e,
          e));
    } finally {
      if (reserved > 0) {
        service.budget().release(reserved);
      }
      if (held) {
        service.outlet().unhold(spec.id(), spec.epoch());
      }
    }
  }

  private synchronized void stopReading() {
    reading = false;
  }

  private synchronized boolean isCancelled() {
    return cancelled;
  }

  private synchronized boolean tellOnCancel() {
    return tellOnCancel;
  }

  /** Waits for room in the memory budget. */
  private long reserve(long bytes) throws InterruptedException {
    while (!service.budget().tryAcquire(bytes, CHECK_NANOS, TimeUnit.NANOSECONDS)) {
      if (isCancelled()) {
        throw new Cancelled();
      }
    }
    return bytes;
  }

  /** Waits until the rate limits allow another chunk. */
  private void pace() {
    long waited = 0;
    while (true) {
      long wait = service.throttle().waitNanos(service.nanoClock().getAsLong());
      if (wait <= 0) {
        break;
      }
      if (isCancelled()) {
        throw new Cancelled();
      }
      long nap = Math.min(wait, CHECK_NANOS);
      LockSupport.parkNanos(nap);   // a reader thread waiting for its rate budget, nothing else to do
      waited += nap;
    }
    if (waited > 0) {
      service.metrics().throttled(waited);
    }
  }

  /** The table as the schema store knows it now: the columns a chunk reads. */
  private TableInfo currentTable() {
    long tableId = spec.span().tableId();
    try {
      TableInfo t = service.schema().tableInfoAt(tableId, service.schema().resolvedTs());
      synchronized (this) {
        tableName = t.qualifiedName();
        keyless = t.primaryKey().isEmpty();
      }
      return t;
    } catch (TableDroppedException e) {
      throw SluiceException.of(ErrorCode.TABLE_DROPPED, "table " + (tableName.isEmpty() ? tableId : tableName)
          + " was dropped during its snapshot", e);
    } catch (UnknownTableException e) {
      throw SluiceException.of(ErrorCode.SCHEMA_UNAVAILABLE, "table " + tableId + " is not in the schema store at"
          + " its resolved ts yet", e);
    }
  }

  /** Writes a watermark and waits until capture saw it; its commit ts. */
  private long watermark(ChunkSource source, String kind) throws InterruptedException {
    SnapshotWatermarks w = service.watermarks();
    String token = w.newToken(kind);
    CompletableFuture<Long> at = w.expect(token);
    long start = System.nanoTime();
    try {
      source.emitWatermark(token);
      long ts = at.get(service.config().watermarkTimeout().toMillis(), TimeUnit.MILLISECONDS);
      service.metrics().watermarkWait(System.nanoTime() - start);
      return ts;
    } catch (ExecutionException e) {
      throw SluiceException.of(ErrorCode.UPSTREAM_UNAVAILABLE, "waiting for a snapshot watermark failed: " + e, e);
    } catch (TimeoutException e) {
      throw SluiceException.of(ErrorCode.UPSTREAM_UNAVAILABLE, "capture has not seen the snapshot watermark " + token
          + " within " + service.config().watermarkTimeout() + " (is capture streaming? see GET /api/v1/captures)", e);
    } finally {
      w.forget(token);
    }
  }

  private List<SnapshotRow> inSpan(List<SnapshotRow> rows) {
    if (spec.span().isWholeTable()) {
      return rows;
    }
    List<SnapshotRow> out = new ArrayList<>(rows.size());
    for (SnapshotRow r : rows) {
      if (spec.span().contains(r.keyHash())) {
        out.add(r);
      }
    }
    return out;
  }

  /** The progress a chunk carries, with the monitor held and its rows counted in. */
  private SnapshotProgress progress(SourceChunk read) {
    return SnapshotProgress.newBuilder().addAllLastKey(read.next().afterKey()).setNextBlock(read.next().nextBlock())
        .setRowsRead(rowsRead).setRowsEstimate(Math.max(0, estimate)).setChunks(chunksRead).setLast(read.exhausted())
        .build();
  }

  private void onFailure(SluiceException e) {
    if (e.code() == ErrorCode.TABLE_DROPPED) {
      stopReading();
      finish(SessionState.TABLE_DROPPED, SnapshotStatus.SNAPSHOT_STATUS_TABLE_DROPPED, e.getMessage(), true);
      return;
    }
    if (e.code().kind() != ErrorCode.Kind.TRANSIENT) {
      stopReading();
      finish(SessionState.FAILED, SnapshotStatus.SNAPSHOT_STATUS_FAILED, e.getMessage(), true);
      return;
    }
    long delay;
    boolean stop;
    synchronized (this) {
      reading = false;
      failures++;
      lastError = e.getMessage();
      long initial = service.config().retryBackoff().toNanos();
      long max = service.config().maxRetryBackoff().toNanos();
      delay = e.code() == ErrorCode.SCHEMA_UNAVAILABLE ? initial
          : Math.min(max, initial << Math.min(failures - 1, 20));
      stop = cancelled;
      backingOff = !stop;
    }
    if (stop) {
      finish(SessionState.CANCELLED, SnapshotStatus.SNAPSHOT_STATUS_CANCELLED, "cancelled", tellOnCancel());
      return;
    }
    service.metrics().failure(e.code());
    log.atWarn().addKeyValue("dispatcherId", spec.id()).addKeyValue("changefeedId", spec.changefeedId())
        .addKeyValue("table", tableName).addKeyValue("code", e.code()).addKeyValue("retryInMs", delay / 1_000_000)
        .log("snapshot chunk not read, trying again: " + e.getMessage());
    service.requeueAfter(this, delay);
  }

  /** The backoff after a failure is over: a reader takes the session again. */
  void backoffOver() {
    boolean requeue;
    synchronized (this) {
      backingOff = false;
      requeue = ended == null && !cancelled && wantsRead();
    }
    if (requeue) {
      service.requeue(this);
    }
  }

  /** Ends the session in a final state; with {@code tell}, the stream gets its SnapshotDone. */
  private void finish(SessionState end, SnapshotStatus status, String reason, boolean tell) {
    SnapshotEnd done;
    synchronized (this) {
      if (ended != null) {
        return;
      }
      ended = end;
      queued = false;
      lastError = end == SessionState.COMPLETE ? null : reason;
      for (ReadChunk c : outstanding) {
        service.budget().release(c.bytes());
      }
      outstanding.clear();
      generation++;   // a chunk still on its way is dropped where it arrives
      done = new SnapshotEnd(status, reason, rowsDelivered, chunksDelivered);
    }
    if (tell) {
      service.outlet().ended(spec.id(), spec.epoch(), done);
    }
    log.atInfo().addKeyValue("dispatcherId", spec.id()).addKeyValue("changefeedId", spec.changefeedId())
        .addKeyValue("table", tableName).addKeyValue("state", end).addKeyValue("rows", rowsDelivered)
        .log("snapshot ended: " + reason);
    service.finished(this);
  }

  /** What a person sees of it now. */
  public synchronized SessionView view(long nowNanos) {
    SessionState now = state();
    double seconds = Math.max(1e-3, (nowNanos - startedNanos) / 1e9);
    double rate = rowsDelivered / seconds;
    long eta = now == SessionState.COMPLETE ? 0 : estimate > 0 && rate > 0
        ? (long) Math.ceil(Math.max(0, estimate - rowsDelivered) / rate) : -1;
    return new SessionView(spec.id().toString(), spec.epoch(), spec.changefeedId(), tableName, keyless, now,
        rowsDelivered, Math.max(0, estimate), chunksDelivered, rereads, rate, eta, lastError);
  }

  /** Thrown inside {@link #step} when the session was cancelled meanwhile. */
  private static final class Cancelled extends RuntimeException {
    Cancelled() {
      super(null, null, false, false);
    }
  }
}
