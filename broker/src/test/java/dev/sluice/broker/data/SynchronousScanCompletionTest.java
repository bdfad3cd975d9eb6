package dev.sluice.broker.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.broker.control.DataPlaneCommand;
import dev.sluice.broker.control.DispatcherRegistration;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.testing.RecordingLink;
import dev.sluice.broker.testing.StoreFixture;
import dev.sluice.schema.TableInfo;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scan whose future is already complete when the data plane attaches its handler (the worker was
 * faster than the event loop) finishes inside the call that started it, and its completion retries
 * the wait queue from there. Regression: the outer retry round had counted the queue before its loop
 * and polled it empty (NullPointerException at {@code retryWaiting}, seen ~100 times under load).
 *
 * <p>Real stores; the scans run on the event loop itself, completed before they are returned, which is
 * that race made deterministic. The collector link is a {@link RecordingLink}.
 */
class SynchronousScanCompletionTest {

  @TempDir Path dir;
  StoreFixture stores;
  Vertx vertx;
  final List<Throwable> uncaught = new CopyOnWriteArrayList<>();

  @BeforeEach
  void open() {
    stores = new StoreFixture(dir);
    vertx = Vertx.vertx();
    vertx.exceptionHandler(uncaught::add);
  }

  @AfterEach
  void close() throws Exception {
    vertx.close().await(20, TimeUnit.SECONDS);
    stores.close();
  }

  @Test
  void aScanCompletingInsideTheRetryRoundDoesNotBreakTheRound() throws Exception {
    TableInfo t = stores.createTable(100, "orders");
    long start = stores.heartbeat();
    stores.insert(100, 1, 2, 3);
    // a frozen clock: no idle pass, so each tick retries the wait queue
    AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
    EventServiceConfig config = EventServiceConfig.defaults().withDataPlaneInstances(1).withScanThreadNice(0);
    ScanSlots slots = new ScanSlots(1);
    DataPlaneMetrics metrics = new DataPlaneMetrics(stores.meters, slots);
    DataPlaneVerticle plane = new DataPlaneVerticle(0, config, stores.events, stores.schema, slots,
        new ScanRateLimiter(1L << 30, nanos::get), new WaitQueueHeads(1), metrics,
        new ChangefeedProgress(1, stores.meters, nanos::get), null, nanos::get, scan -> {   // no snapshots
          try {
            return Future.succeededFuture(scan.call());
          } catch (Exception e) {
            return Future.failedFuture(e);
          }
        });
    vertx.deployVerticle(plane).await(20, TimeUnit.SECONDS);

    RecordingLink link = new RecordingLink(1, Set.of());
    link.room = false;
    List<DispatcherId> ids = List.of(DispatcherId.random(), DispatcherId.random(), DispatcherId.random());
    for (DispatcherId id : ids) {
      plane.submit(new DataPlaneCommand.Add(new DispatcherRegistration(id, "cf", TableSpan.wholeTable(100), start,
          Set.of(), 0, 0, true, false, false), link));
      plane.submit(new DataPlaneCommand.Reset(id, 1, start, null, t.version(), t.versionRowSeq()));
      plane.submit(new DataPlaneCommand.Credit(id, 1, 1 << 20, 0, link));
    }
    // the link has no room: all three park; wait until a later round parked them again
    await().atMost(Duration.ofSeconds(20)).until(() -> skipped(metrics) >= 6);
    assertThat(metrics.waiting.get()).isEqualTo(3);

    link.room = true; // the next tick retries the queue: the first scan completes and serves the other two
    await().atMost(Duration.ofSeconds(20)).until(() -> link.resolved.keySet().containsAll(ids));
    barrier(plane, link, t);

    assertThat(uncaught).as("exceptions thrown on the data plane's event loop").isEmpty();
    assertThat(metrics.waiting.get()).as("dispatchers still counted as waiting").isZero();
    for (DispatcherId id : ids) {
      assertThat(link.events.get(id)).as("event batches of " + id).isEqualTo(1);
      assertThat(link.resolved.get(id)).as("watermark of " + id).isEqualTo(stores.lastTs());
    }
  }

  private static long skipped(DataPlaneMetrics m) {
    return (long) m.skipped.get(DataPlaneMetrics.SkipReason.NO_ROOM).count();
  }

  /** Waits until the plane's loop ran a task queued now: every task queued before it has finished. */
  private static void barrier(DataPlaneVerticle plane, RecordingLink link, TableInfo t) throws Exception {
    DispatcherId probe = DispatcherId.random();
    CompletableFuture<Void> reached = new CompletableFuture<>();
    link.onCreditAsked = cf -> {
      if (cf.equals("probe")) {
        reached.complete(null);
      }
    };
    plane.submit(new DataPlaneCommand.Add(new DispatcherRegistration(probe, "probe", TableSpan.wholeTable(100), 0,
        Set.of(), 0, 0, true, false, false), link));
    plane.submit(new DataPlaneCommand.Reset(probe, 1, 0, null, t.version(), t.versionRowSeq()));
    reached.get(20, TimeUnit.SECONDS);
  }
}
