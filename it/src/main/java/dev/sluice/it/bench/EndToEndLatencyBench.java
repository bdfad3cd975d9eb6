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
    AtomicBoolean recording = new AtomicBoolean();
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicLong rowsWritten = new AtomicLong();
    double achievedRowsPerSecond;
    try (PostgresServer up = PostgresServer.upstream();
         BrokerProcess broker = BrokerProcess.start("e2e-broker",
             BrokerProcess.options(Files.createTempDirectory(work, "e2e"), up).withJvmArgs(List.of("-Xmx1g")), logs)) {
      up.exec("CREATE TABLE public.e2e (id bigint PRIMARY KEY, payload text NOT NULL)");
      long startTs = up.currentLsn();
      try (SluiceClient client = SluiceClient.connect(ClientConfig.of(broker.grpcAddress()).withCollectorId("e2e"))) {
        SubscriptionHandle[] handle = new SubscriptionHandle[1];
        handle[0] = client.subscribe(Subscription.table("public.e2e").from(startTs), new ChangeListener() {
          @Override
          public void onTransaction(Transaction txn) {
            if (recording.get()) {
              java.time.Instant now = java.time.Instant.now();   // microsecond resolution on Linux
              latencies.add(now.getEpochSecond() * 1_000_000 + now.getNano() / 1000 - txn.commitTimeMicros());
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
        long rows0 = rowsWritten.get();
        long t0 = System.nanoTime();
        sleep(window);
        recording.set(false);
        achievedRowsPerSecond = (rowsWritten.get() - rows0) / ((System.nanoTime() - t0) / 1e9);
        writing.set(false);
        for (Thread t : writers) {
          t.join(TimeUnit.SECONDS.toMillis(30));
        }
      }
    }
    long[] nanos = latencies.stream().mapToLong(us -> us * 1000).toArray();
    double p50 = Stats.percentileNanosToMs(nanos, 50);
    double p99 = Stats.percentileNanosToMs(nanos, 99);
    System.out.printf("e2e: %,d transactions measured at %,.0f rows/s: p50 %.1f ms, p99 %.1f ms%n", nanos.length,
        achievedRowsPerSecond, p50, p99);
    String how = String.format("broker process capturing PostgreSQL 17 (fsync off); %d writers x %d txns/s x %d-row "
        + "inserts (target 10,000 rows/s, achieved %,.0f); listener time - PostgreSQL commit time, %,d transactions "
        + "over %d s after a %d s warm-up", WRITERS, TXNS_PER_SECOND_PER_WRITER, ROWS_PER_TXN, achievedRowsPerSecond,
        nanos.length, window.toSeconds(), warmUp.toSeconds());
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

  private static void sleep(Duration d) throws InterruptedException {
    TimeUnit.MILLISECONDS.sleep(d.toMillis());   // a measurement window of the benchmark
  }
}
