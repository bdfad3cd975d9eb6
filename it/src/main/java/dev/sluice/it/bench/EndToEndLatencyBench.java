package dev.sluice.it.bench;

import dev.sluice.api.error.SluiceException;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.it.BrokerProcess;
import dev.sluice.it.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * End-to-end latency: upstream commit to the dispatcher library's listener, at a paced 10,000 rows/s.
 * A broker process captures an embedded PostgreSQL 17 that two writers fill with 20-row inserts at
 * 250 transactions/s each; one subscription in this JVM records, per transaction, its listener time
 * minus {@code Transaction.commitTimeMicros} (PostgreSQL's commit timestamp; both clocks are this
 * machine's). p50/p99 over the measured window, after a warm-up.
 */
final class EndToEndLatencyBench {

  private static final int WRITERS = 2;
  private static final int TXNS_PER_SECOND_PER_WRITER = 250;
  private static final int ROWS_PER_TXN = 20;

  private final Path work;
  private final Path logs;

  EndToEndLatencyBench(Path work, Path logs) {
    this.work = work;
    this.logs = logs;
  }

  List<Figure> run(Duration window, Duration warmUp) throws Exception {
    ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<long[]> arrivals = new ConcurrentLinkedQueue<>();   // {arrived ms, latency ms}
    AtomicBoolean recording = new AtomicBoolean();
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicLong rowsWritten = new AtomicLong();
    double achievedRowsPerSecond;
    double[] worst;
    double[] share;
    long spikes;
    double gcPauseMaxMs;
    double rawP50;
    double rawP99;
    Path dir = Files.createTempDirectory(work, "e2e");
    Path gcLog = logs.resolve("e2e-broker-gc.log");
    try (PostgresServer up = PostgresServer.upstream();
         BrokerProcess broker = BrokerProcess.start("e2e-broker", BrokerProcess.options(dir, up)
             .withJvmArgs(List.of("-Xmx1g", "-Xlog:gc:file=" + gcLog)), logs);
         StallProbe probe = StallProbe.start(dir)) {
      up.exec("CREATE TABLE public.e2e (id bigint PRIMARY KEY, payload text NOT NULL)");
      long startTs = up.currentLsn();
      long tableId = up.queryLong("SELECT 'public.e2e'::regclass::oid");
      // a second, bare consumer of the same table (BenchCollector: gRPC + parse, no library) tells the
      // broker's share of the latency from the dispatcher library's
      io.vertx.core.Vertx rawVertx = io.vertx.core.Vertx.vertx(new io.vertx.core.VertxOptions().setEventLoopPoolSize(1));
      BenchCollector raw = new BenchCollector(rawVertx, broker.grpcPort(), "e2e-raw", true);
      raw.subscribe(dev.sluice.api.DispatcherId.random(), dev.sluice.api.TableSpan.wholeTable(tableId), startTs);
      try (SluiceClient client = SluiceClient.connect(ClientConfig.of(broker.grpcAddress()).withCollectorId("e2e"))) {
        SubscriptionHandle[] handle = new SubscriptionHandle[1];
        handle[0] = client.subscribe(Subscription.table("public.e2e").from(startTs), new ChangeListener() {
          @Override
          public void onTransaction(Transaction txn) {
            if (recording.get()) {
              java.time.Instant now = java.time.Instant.now();   // microsecond resolution on Linux
              long micros = now.getEpochSecond() * 1_000_000 + now.getNano() / 1000 - txn.commitTimeMicros();
              latencies.add(micros);
              arrivals.add(new long[] {now.toEpochMilli(), micros / 1000});
            }
            handle[0].acknowledge(txn.checkpoint());
          }

          @Override
          public void onError(SluiceException error) {
            System.err.println("e2e subscription failed: " + error);
          }
        });
        handle[0].streaming().toCompletableFuture().get(60, TimeUnit.SECONDS);
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
          int writer = w;
          Thread t = new Thread(() -> write(up, writer, writing, rowsWritten), "e2e-writer-" + w);
          t.setDaemon(true);
          writers.add(t);
          t.start();
        }
        sleep(warmUp);
        recording.set(true);
        raw.recordLatency = true;
        long rows0 = rowsWritten.get();
        long t0 = System.nanoTime();
        sleep(window);
        recording.set(false);
        raw.recordLatency = false;
        long[] rawNanos = raw.latencyMicros.stream().mapToLong(us -> us * 1000).toArray();
        rawP50 = Stats.percentileNanosToMs(rawNanos, 50);
        rawP99 = Stats.percentileNanosToMs(rawNanos, 99);
        raw.close();
        rawVertx.close().await(30, TimeUnit.SECONDS);
        achievedRowsPerSecond = (rowsWritten.get() - rows0) / ((System.nanoTime() - t0) / 1e9);
        long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        long p99Micros = sorted.length == 0 ? 0 : sorted[Math.max(0, (int) Math.ceil(sorted.length * 0.99) - 1)];
        List<long[]> slow = arrivals.stream().filter(a -> a[1] * 1000 >= p99Micros).toList();
        spikes = slow.size();
        share = probe.coincidingShare(slow, 50, 100);
        worst = probe.worst();
        writing.set(false);
        for (Thread t : writers) {
          t.join(TimeUnit.SECONDS.toMillis(30));
        }
      }
    }
    gcPauseMaxMs = maxGcPauseMs(gcLog);
    long[] nanos = latencies.stream().mapToLong(us -> us * 1000).toArray();
    double p50 = Stats.percentileNanosToMs(nanos, 50);
    double p99 = Stats.percentileNanosToMs(nanos, 99);
    System.out.printf("e2e: %,d transactions measured at %,.0f rows/s: p50 %.1f ms, p99 %.1f ms%n", nanos.length,
        achievedRowsPerSecond, p50, p99);
    String stalls = String.format("of the %d transactions at or above p99, %.0f %% arrived within 100 ms of a probe fsync"
        + " > 50 ms and %.0f %% of a probe wake-up > 50 ms late (worst fsync %.0f ms, worst wake-up delay %.0f ms);"
        + " longest broker GC pause %.0f ms", spikes, share[0] * 100, share[1] * 100, worst[0], worst[1], gcPauseMaxMs);
    System.out.println("e2e stalls: " + stalls);
    String bare = String.format("a bare gRPC consumer of the same table (no dispatcher library, ms clock) saw p50 %.0f ms,"
        + " p99 %.0f ms", rawP50, rawP99);
    System.out.println("e2e bare consumer: " + bare);
    String how = String.format("broker process capturing PostgreSQL 17 (fsync off); %d writers x %d txns/s x %d-row "
        + "inserts (target 10,000 rows/s, achieved %,.0f); listener time - PostgreSQL commit time, %,d transactions "
        + "over %d s after a %d s warm-up; %s; %s", WRITERS, TXNS_PER_SECOND_PER_WRITER, ROWS_PER_TXN,
        achievedRowsPerSecond, nanos.length, window.toSeconds(), warmUp.toSeconds(), stalls, bare);
    return List.of(
        new Figure("e2e_p50_ms", "upstream commit -> dispatcher listener, p50", p50, "ms", Double.NaN, false, Double.NaN,
            1, how),
        new Figure("e2e_p99_ms", "upstream commit -> dispatcher listener, p99", p99, "ms", 100, false, Double.NaN, 1, how),
        new Figure("e2e_rows_per_s", "upstream rows/s during the latency window", achievedRowsPerSecond, "rows/s",
            10_000 * 0.95, true, Double.NaN, 1, "the pace the latency figures were measured at"));
  }

  private static void write(PostgresServer up, int writer, AtomicBoolean writing, AtomicLong rows) {
    StringBuilder sql = new StringBuilder("INSERT INTO public.e2e VALUES ");
    for (int i = 0; i < ROWS_PER_TXN; i++) {
      sql.append(i == 0 ? "" : ", ").append("(?, ?)");
    }
    String payload = "p".repeat(80);
    long pauseNanos = 1_000_000_000L / TXNS_PER_SECOND_PER_WRITER;
    try (Connection c = up.connect(); PreparedStatement ps = c.prepareStatement(sql.toString())) {
      long id = (long) writer << 40;
      long next = System.nanoTime();
      while (writing.get()) {
        for (int i = 0; i < ROWS_PER_TXN; i++) {
          ps.setLong(2 * i + 1, id++);
          ps.setString(2 * i + 2, payload);
        }
        ps.executeUpdate();
        rows.addAndGet(ROWS_PER_TXN);
        next += pauseNanos;
        long wait = next - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);   // pacing of the load generator
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("e2e writer failed", e);
    }
  }

  /** The longest pause in a {@code -Xlog:gc} file ("... 12.345ms" at the end of pause lines), ms. */
  private static double maxGcPauseMs(Path gcLog) {
    try {
      return Files.readAllLines(gcLog).stream().filter(l -> l.contains("Pause") && l.endsWith("ms"))
          .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1, l.length() - 2))).max().orElse(0);
    } catch (java.io.IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  private static void sleep(Duration d) throws InterruptedException {
    TimeUnit.MILLISECONDS.sleep(d.toMillis());   // a measurement window of the benchmark
  }
}
