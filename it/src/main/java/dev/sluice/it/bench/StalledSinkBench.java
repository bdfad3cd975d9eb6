package dev.sluice.it.bench;

import dev.sluice.broker.control.EventServiceLimits;
import dev.sluice.it.BrokerProcess;
import dev.sluice.it.ChangefeedSetup;
import dev.sluice.it.ConsistencyChecker;
import dev.sluice.it.LocalChangefeed;
import dev.sluice.it.PostgresServer;
import dev.sluice.it.workload.SteadyWorkload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Scenario 6 as a figure: the broker's live heap growth while one changefeed's sink is stalled and
 * ~600 KB/s of 1 KB rows keep arriving, against the broker's per-connection queue quota (its default
 * {@code connectionQueueBytes}, 8 MiB). A second changefeed on the same tables keeps running; its checkpoint lag at the end of the
 * stall is reported too.
 */
final class StalledSinkBench {

  static final long QUOTA = EventServiceLimits.DEFAULT_CONNECTION_QUEUE_BYTES;

  private final Path work;
  private final Path logs;

  StalledSinkBench(Path work, Path logs) {
    this.work = work;
    this.logs = logs;
  }

  List<Figure> run(Duration stall) throws Exception {
    long baseline;
    long max;
    double otherLagMs;
    try (PostgresServer up = PostgresServer.upstream(); PostgresServer downA = PostgresServer.downstream();
         PostgresServer downB = PostgresServer.downstream();
         BrokerProcess broker = BrokerProcess.start("stall-broker",
             BrokerProcess.options(Files.createTempDirectory(work, "stall"), up).withJvmArgs(List.of("-Xmx1g")), logs)) {
      SteadyWorkload w = SteadyWorkload.create(up, "stall", 2, 5_000).withNoteBytes(1024);
      ChangefeedSetup a = ChangefeedSetup.of(broker.grpcAddress(), downA.jdbcUrl(), "cf-stalled", "public.stall_*")
          .withDispatcherQueueBytes(2L << 20);
      ChangefeedSetup b = ChangefeedSetup.of(broker.grpcAddress(), downB.jdbcUrl(), "cf-other", "public.stall_*");
      try (LocalChangefeed stalled = LocalChangefeed.start(a); LocalChangefeed other = LocalChangefeed.start(b)) {
        w.paced(100).start(2);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (ConsistencyChecker.checkpoint(downA, "cf-stalled") == 0 || ConsistencyChecker.checkpoint(downB, "cf-other") == 0) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("the changefeeds did not start within 2 min; see " + broker.log());
          }
          TimeUnit.MILLISECONDS.sleep(100);   // poll interval
        }
        TimeUnit.SECONDS.sleep(5);   // steady state before the baseline
        baseline = broker.heapUsedAfterGc();
        stalled.sink().stall();
        max = baseline;
        long t0 = System.nanoTime();
        int samples = 4;
        for (int i = 1; i <= samples; i++) {
          long at = t0 + stall.toNanos() * i / samples;
          TimeUnit.NANOSECONDS.sleep(Math.max(0, at - System.nanoTime()));   // sampling schedule of the benchmark
          max = Math.max(max, broker.heapUsedAfterGc());
        }
        long lsn = up.currentLsn();
        long t1 = System.nanoTime();
        ConsistencyChecker.awaitCheckpoint(downB, "cf-other", lsn, Duration.ofMinutes(1));
        otherLagMs = (System.nanoTime() - t1) / 1e6;
        stalled.sink().release();
        w.stop();
        long end = up.currentLsn();
        ConsistencyChecker.awaitCheckpoint(downA, "cf-stalled", end, Duration.ofMinutes(5));
      }
    }
    long growth = max - baseline;
    System.out.printf("stalled sink: broker heap %,d -> max %,d (growth %,d bytes); other changefeed caught up with the"
        + " upstream in %.0f ms at the end of the stall%n", baseline, max, growth, otherLagMs);
    String how = String.format("broker process (-Xmx1g, default connectionQueueBytes %d MiB); 2 writers x 100 txns/s of"
        + " 1-5 rows of ~1 KB; one changefeed's JDBC sink blocked for %d s (2 MiB dispatcher queues); live heap after a"
        + " full GC (jcmd) sampled 4 times, max minus the baseline before the stall", QUOTA >> 20, stall.toSeconds());
    return List.of(
        new Figure("stalled_sink_heap_bytes", "broker heap growth while a sink is stalled", growth, "bytes", QUOTA, false,
            Double.NaN, 1, how),
        new Figure("stalled_sink_other_lag_ms", "other changefeed: time to reach the upstream position at the end of the "
            + "stall", otherLagMs, "ms", 1000, false, Double.NaN, 1, "time from reading the upstream WAL position to the "
            + "other changefeed's sink checkpoint passing it"));
  }
}
