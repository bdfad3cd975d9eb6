package dev.sluice.broker.snapshot;

import dev.sluice.api.DispatcherId;
import dev.sluice.schema.SchemaStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's snapshots: {@link SnapshotConfig#readers()} reader threads, each with its own upstream
 * connection ({@link ChunkSource}), take turns over the snapshots that have a chunk to read, one chunk per
 * turn, so many tables advance together and none waits for another to finish. What they share: the
 * rate limits ({@link SnapshotThrottle}, changeable at runtime), the memory budget for chunks not yet
 * delivered ({@link MemoryBudget}), the watermark registry capture feeds ({@link SnapshotWatermarks}).
 * The data plane starts a snapshot when a dispatcher's RESET asks for one and cancels it when the epoch
 * ends; readers hand chunks to it through the {@link SnapshotOutlet}.
 *
 * <p><b>Priority below live traffic.</b> Reader threads run at the scan threads' lower OS priority, the
 * rates are limited, and chunks are delivered through the data plane under the same credits, scan slots
 * and queue quotas as every scan, so live dispatchers keep their share.
 *
 * <pre>{@code
 * SnapshotService snapshots = new SnapshotService(SnapshotConfig.defaults(), sourceFactory, watermarks, schema,
 *     0, 0, priority::applyToCurrentThread, registry, System::nanoTime);
 * snapshots.attach(dataPlane);
 * SnapshotSession s = snapshots.start(new SnapshotSpec(id, epoch, "cf", span, SnapshotPosition.start()));
 * snapshots.sessions();           // progress of each
 * snapshots.setRates(10_000, 0);  // 10,000 rows/s, bytes unlimited
 * }</pre>
 */
public final class SnapshotService implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SnapshotService.class);

  private record Key(DispatcherId id, long epoch) {}

  private final SnapshotConfig config;
  private final ChunkSource.Factory sources;
  private final SnapshotWatermarks watermarks;
  private final SchemaStore schema;
  private final SnapshotThrottle throttle;
  private final MemoryBudget budget;
  private final SnapshotMetrics metrics;
  private final LongSupplier nanoClock;
  private final Runnable readerSetup;
  private final LinkedBlockingQueue<SnapshotSession> runnable = new LinkedBlockingQueue<>();
  private final Map<Key, SnapshotSession> sessions = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer;
  private final List<Thread> readers = new ArrayList<>();
  private volatile SnapshotOutlet outlet;
  private volatile boolean closed;

  /**
   * @param readerSetup runs once on each reader thread before its first chunk (lowers its OS priority)
   */
  public SnapshotService(SnapshotConfig config, ChunkSource.Factory sources, SnapshotWatermarks watermarks,
      SchemaStore schema, long rowsPerSecond, long bytesPerSecond, Runnable readerSetup, MeterRegistry registry,
      LongSupplier nanoClock) {
    this.config = config;
    this.sources = sources;
    this.watermarks = watermarks;
    this.schema = schema;
    this.nanoClock = nanoClock;
    this.readerSetup = readerSetup;
    this.throttle = new SnapshotThrottle(rowsPerSecond, bytesPerSecond, nanoClock.getAsLong());
    this.budget = new MemoryBudget(config.memoryBytes());
    this.metrics = new SnapshotMetrics(registry);
    metrics.gauge("sluice.snapshot.memory.used", "bytes of snapshot chunks read and not yet delivered", "bytes",
        budget, MemoryBudget::used);
    metrics.gauge("sluice.snapshot.memory.max", "eventService.snapshot.memoryBytes", "bytes", budget,
        MemoryBudget::capacity);
    metrics.gauge("sluice.snapshot.watermarks.pending", "readers waiting for capture to see their watermark",
        "watermarks", watermarks, SnapshotWatermarks::pending);
    for (SessionState s : SessionState.values()) {
      if (!s.isFinal()) {
        metrics.stateGauge(s, sessions, m -> m.values().stream().filter(x -> x.state() == s).count());
      }
    }
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sluice-snapshot-timer");
      t.setDaemon(true);
      return t;
    });
    for (int i = 0; i < config.readers(); i++) {
      Thread t = new Thread(this::readLoop, "sluice-snapshot-reader-" + i);
      t.setDaemon(true);
      readers.add(t);
    }
  }

  /** Connects the readers to the data plane and starts them; call once, before {@link #start}. */
  public void attach(SnapshotOutlet dataPlane) {
    if (outlet != null) {
      throw new IllegalStateException("already attached");
    }
    outlet = dataPlane;
    readers.forEach(Thread::start);
  }

  /** Starts the snapshot of one dispatcher epoch; a snapshot of the same epoch running already is returned. */
  public SnapshotSession start(SnapshotSpec spec) {
    if (outlet == null || closed) {
      throw new IllegalStateException("the snapshot service is not running");
    }
    Key key = new Key(spec.id(), spec.epoch());
    SnapshotSession fresh = new SnapshotSession(spec, this, nanoClock.getAsLong());
    SnapshotSession existing = sessions.putIfAbsent(key, fresh);
    if (existing != null) {
      return existing;
    }
    log.atInfo().addKeyValue("dispatcherId", spec.id()).addKeyValue("epoch", spec.epoch())
        .addKeyValue("changefeedId", spec.changefeedId()).addKeyValue("span", spec.span())
        .addKeyValue("from", spec.from().isStart() ? "start" : spec.from().toString()).log("snapshot started");
    runnable.add(fresh);
    return fresh;
  }

  /**
   * Cancels the running snapshot of {@code id} (any epoch) at an operator's request: its stream gets a
   * SnapshotDone(CANCELLED) with {@code reason}. Empty when none runs.
   */
  public Optional<SessionView> cancel(DispatcherId id, String reason) {
    for (SnapshotSession s : sessions.values()) {
      if (s.spec().id().equals(id)) {
        s.cancel(reason, true);
        return Optional.of(s.view(nanoClock.getAsLong()));
      }
    }
    return Optional.empty();
  }

  /** Every snapshot running on this broker, oldest first. */
  public List<SessionView> sessions() {
    long now = nanoClock.getAsLong();
    List<SessionView> out = new ArrayList<>();
    for (SnapshotSession s : sessions.values()) {
      out.add(s.view(now));
    }
    out.sort(Comparator.comparing(SessionView::dispatcherId).thenComparingLong(SessionView::epoch));
    return out;
  }

  /** Sessions by state, for tests and the status page. */
  public Map<SessionState, Integer> countByState() {
    Map<SessionState, Integer> m = new EnumMap<>(SessionState.class);
    for (SnapshotSession s : sessions.values()) {
      m.merge(s.state(), 1, Integer::sum);
    }
    return m;
  }

  /** New rate limits (0 = none), in force from the next chunk. */
  public void setRates(long rowsPerSecond, long bytesPerSecond) {
    throttle.setRates(rowsPerSecond, bytesPerSecond, nanoClock.getAsLong());
    log.atInfo().addKeyValue("rowsPerSecond", rowsPerSecond).addKeyValue("bytesPerSecond", bytesPerSecond)
        .log("snapshot rate limits changed");
  }

  public SnapshotConfig config() {
    return config;
  }

  /** The registry capture reports snapshot watermarks to. */
  public SnapshotWatermarks watermarks() {
    return watermarks;
  }

  // ---------------------------------------------------------------- for sessions

  SnapshotThrottle throttle() {
    return throttle;
  }

  MemoryBudget budget() {
    return budget;
  }

  SnapshotMetrics metrics() {
    return metrics;
  }

  SchemaStore schema() {
    return schema;
  }

  SnapshotOutlet outlet() {
    return outlet;
  }

  LongSupplier nanoClock() {
    return nanoClock;
  }

  void requeue(SnapshotSession s) {
    if (!closed) {
      runnable.add(s);
    }
  }

  void requeueAfter(SnapshotSession s, long delayNanos) {
    if (!closed) {
      timer.schedule(s::backoffOver, delayNanos, TimeUnit.NANOSECONDS);
    }
  }

  void finished(SnapshotSession s) {
    sessions.remove(new Key(s.spec().id(), s.spec().epoch()), s);
  }

  private void readLoop() {
    readerSetup.run();
    ChunkSource source = null;
    try {
      while (!closed) {
        SnapshotSession s = runnable.poll(200, TimeUnit.MILLISECONDS);
        if (s == null) {
          continue;
        }
        if (source == null) {
          source = sources.open();
        }
        s.step(source);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (source != null) {
        source.close();
      }
    }
  }

  /** Cancels every snapshot and stops the readers. */
  @Override
  public void close() {
    closed = true;
    for (SnapshotSession s : sessions.values()) {
      s.cancel("the broker is stopping", false);
    }
    timer.shutdownNow();
    for (Thread t : readers) {
      t.interrupt();
    }
    for (Thread t : readers) {
      try {
        t.join(TimeUnit.SECONDS.toMillis(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** For tests: runs {@code check} against every session. */
  void forEachSession(Consumer<SnapshotSession> check) {
    sessions.values().forEach(check);
  }
}
