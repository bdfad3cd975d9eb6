package dev.sluice.broker.capture;

import dev.sluice.api.error.FatalException;
import dev.sluice.api.error.SluiceException;
import dev.sluice.broker.publication.PublishedTables;
import dev.sluice.broker.snapshot.SnapshotWatermarks;
import dev.sluice.broker.store.EventStore;
import dev.sluice.broker.upstream.UpstreamConfig;
import dev.sluice.schema.SchemaStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Captures one PostgreSQL database's logical replication stream (pgoutput) into the event store and
 * its DDL into the schema store, on a thread of its own, resuming after restarts and reconnecting with
 * exponential backoff when the upstream is unreachable.
 *
 * <p><b>Durability.</b> The flush position confirmed to PostgreSQL only advances after the event-store
 * batch holding that transaction was written with sync, so after a crash PostgreSQL resends everything
 * not durably stored and capture skips what was (see {@link GroupCommit}, {@link CaptureSession}).
 *
 * <p><b>Errors.</b> {@link #start()} makes the first attempt on the caller's thread: a misconfigured
 * upstream ({@code wal_level}, privileges) or a lost slot throws there, so the broker refuses to
 * start; an unreachable upstream only puts the status in {@link CaptureState#RETRYING}. Later fatal
 * errors stop capture in {@link CaptureState#FAILED} with the error in the status.
 *
 * <pre>{@code
 * PgLogicalCapture capture = new PgLogicalCapture(upstream, CaptureConfig.defaults("node-1"), events, schemas, registry);
 * capture.start();
 * CaptureStatus s = capture.status();     // STREAMING, EVENT_TRIGGER, ...
 * capture.close();
 * }</pre>
 */
public final class PgLogicalCapture implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PgLogicalCapture.class);

  private final UpstreamConnector connector;
  private final CaptureConfig config;
  private final EventStore store;
  private final SchemaStore schemas;
  private final CaptureMetrics metrics;
  private final SnapshotWatermarks watermarks;
  private final PublishedTables published;
  private final CountDownLatch closing = new CountDownLatch(1);
  private Thread thread;

  private volatile CaptureState state = CaptureState.STARTING;
  private volatile DdlCaptureMode mode = DdlCaptureMode.UNKNOWN;
  private volatile String lastError;
  private volatile int retryCount;
  private volatile GroupCommit groupCommit;
  private volatile boolean closed;

  public PgLogicalCapture(UpstreamConfig upstream, CaptureConfig config, EventStore store, SchemaStore schemas,
      MeterRegistry registry) {
    this(upstream, config, store, schemas, null, PublishedTables.none(), registry);
  }

  /**
   * A capture that also reports snapshot watermarks (transactional logical messages with the prefix
   * {@value SnapshotWatermarks#PREFIX}) to {@code watermarks}, or to nobody when it is null.
   */
  public PgLogicalCapture(UpstreamConfig upstream, CaptureConfig config, EventStore store, SchemaStore schemas,
      SnapshotWatermarks watermarks, MeterRegistry registry) {
    this(upstream, config, store, schemas, watermarks, new PublishedTables(registry), registry);
  }

  /**
   * As above, writing what the publication leaves out to {@code published} after each read of it (at every
   * connection, after every captured DDL, every {@link PublishedTables#REREAD_INTERVAL}).
   */
  public PgLogicalCapture(UpstreamConfig upstream, CaptureConfig config, EventStore store, SchemaStore schemas,
      SnapshotWatermarks watermarks, PublishedTables published, MeterRegistry registry) {
    this.published = published;
    this.connector = new UpstreamConnector(upstream);
    this.config = config;
    this.store = store;
    this.schemas = schemas;
    this.watermarks = watermarks;
    this.metrics = new CaptureMetrics(registry, this::lagMs);
  }

  /**
   * Makes the first connection attempt and starts the capture thread.
   *
   * @throws FatalException when the upstream cannot be captured as configured or the slot is lost
   */
  public void start() {
    CaptureSession first = null;
    try {
      first = open();
    } catch (FatalException e) {
      fail(e);
      throw e;
    } catch (SluiceException e) {
      retrying(e);
    }
    CaptureSession initial = first;
    thread = new Thread(() -> run(initial), "sluice-capture-" + config.slotName());
    thread.setDaemon(true);
    thread.start();
  }

  /** A snapshot of the capture's state. */
  public CaptureStatus status() {
    GroupCommit gc = groupCommit;
    return new CaptureStatus(state, mode, config.slotName(), config.publicationName(), connector.displayUrl(),
        gc == null ? 0 : gc.durableCommitTs(), gc == null ? 0 : gc.durableEndLsn(), store.resolvedTs(), lagMs(),
        lastError, retryCount);
  }

  /** Meters for tests: the most row bytes ever buffered at once. */
  long maxBufferedBytes() {
    return metrics.maxBufferedBytes.get();
  }

  private long lagMs() {
    GroupCommit gc = groupCommit;
    if (gc == null || gc.durableCommitTimeMicros() == 0) {
      return -1;
    }
    return Math.max(0, System.currentTimeMillis() - gc.durableCommitTimeMicros() / 1000);
  }

  private CaptureSession open() {
    CaptureSession s = CaptureSession.open(connector, config, store, schemas, metrics, watermarks, published);
    mode = s.mode();
    groupCommit = s.groupCommit();
    state = CaptureState.STREAMING;
    if (retryCount > 0) {
      log.atInfo().addKeyValue("slot", config.slotName()).addKeyValue("attempts", retryCount)
          .log("upstream reachable again");
    }
    retryCount = 0;
    lastError = null;
    return s;
  }

  private void run(CaptureSession initial) {
    CaptureSession session = initial;
    try {
      while (!closed) {
        if (session == null && state == CaptureState.RETRYING) {
          backoff();
          if (closed) {
            break;
          }
        }
        try {
          if (session == null) {
            session = open();
          }
          session.stream(() -> !closed);
        } catch (FatalException e) {
          fail(e);
          break;
        } catch (SluiceException e) {
          retrying(e);
        } catch (RuntimeException e) { // a bug: keep the broker up, show it, retry from the durable position
          log.atError().setCause(e).addKeyValue("slot", config.slotName()).log("capture failed unexpectedly");
          retrying(e);
        } finally {
          if (session != null) {
            session.close();
            session = null;
          }
        }
      }
    } finally {
      if (session != null) { // closed before the first session streamed
        session.close();
      }
      if (closed && state != CaptureState.FAILED) {
        state = CaptureState.STOPPED;
      }
    }
  }

  private void retrying(Exception e) {
    state = CaptureState.RETRYING;
    lastError = e.getMessage();
    retryCount++;
    log.atWarn().addKeyValue("slot", config.slotName()).addKeyValue("attempt", retryCount)
        .log("capture interrupted, will retry: " + e.getMessage());
  }

  private void fail(FatalException e) {
    state = CaptureState.FAILED;
    lastError = e.getMessage();
    log.atError().addKeyValue("slot", config.slotName()).addKeyValue("code", e.code())
        .log("capture stopped: " + e.getMessage());
  }

  private void backoff() {
    long initial = config.retryInitialBackoff().toMillis();
    int shift = Math.min(Math.max(retryCount - 1, 0), 20);
    long wait = Math.min(config.retryMaxBackoff().toMillis(), initial << shift);
    try {
      closing.await(wait, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closed = true;
    }
  }

  /** Stops capture: writes what is buffered, reports the flush position, closes the connections. */
  @Override
  public void close() {
    closed = true;
    closing.countDown();
    if (thread != null) {
      try {
        thread.join(Duration.ofSeconds(30).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (thread.isAlive()) {
        log.atWarn().addKeyValue("slot", config.slotName()).log("capture thread did not stop within 30 s");
      }
    }
    if (state != CaptureState.FAILED) {
      state = CaptureState.STOPPED;
    }
  }
}
