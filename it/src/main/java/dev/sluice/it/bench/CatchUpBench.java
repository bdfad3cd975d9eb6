package dev.sluice.it.bench;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.it.ChildJvm;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;

/**
 * Catch-up: rows/s a dispatcher receives when it starts from a checkpoint {@code rows} back (table 1
 * of a {@link BenchBroker} preloaded with that many ~100-byte rows), against a raw RocksDB iteration
 * of the same rows column family in the same run (after the broker closed its store: new key and
 * value arrays per entry, the least any reader must do); plus the commit-to-receive p99 of four live
 * dispatchers on table 2, fed 500 rows/s, before and during the catch-up.
 */
final class CatchUpBench {

  private static final int ROW_BYTES = 100;
  private static final int TXN_ROWS = 100;

  private final Path work;
  private final Path logs;

  CatchUpBench(Path work, Path logs) {
    this.work = work;
    this.logs = logs;
  }

  List<Figure> run(int rows, int runs, Duration baselineWindow) throws Exception {
    Path dir = Files.createTempDirectory(work, "catchup");
    List<Double> catchUpRates = new ArrayList<>();
    List<Double> liveDuring = new ArrayList<>();
    List<Double> brokerCpu = new ArrayList<>();
    List<Double> harnessCpu = new ArrayList<>();
    List<Double> wall = new ArrayList<>();
    double liveBefore;
    try (ChildJvm b = ChildJvm.start("catchup", BenchBroker.class, EventServiceBench.BROKER_JVM,
        List.of(dir.toString(), "2", Integer.toString(rows), Integer.toString(ROW_BYTES), Integer.toString(TXN_ROWS), "1"),
        logs)) {
      int port = Integer.parseInt(b.awaitLine("READY ", Duration.ofMinutes(30)).split(" ")[0]);
      long startTs = 16L * 2;   // after both CREATEs, before every row
      b.command("RESOLVED");
      long liveFrom = Long.parseLong(b.awaitLine("RESOLVED ", Duration.ofSeconds(30)));
      Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
      BenchCollector live = new BenchCollector(vertx, port, "live", true);
      Thread feeder = new Thread(() -> feed(b), "live-feeder");
      feeder.setDaemon(true);
      try {
        for (int i = 0; i < 4; i++) {
          live.subscribe(DispatcherId.random(), TableSpan.wholeTable(2), liveFrom);
        }
        feeder.start();
        live.recordLatency = true;
        pauseFor(baselineWindow);   // the live dispatchers' first deliveries and JIT: not the baseline
        live.latencyMicros.clear();
        pauseFor(baselineWindow);
        liveBefore = p99Ms(live);
        for (int run = 0; run <= runs; run++) {   // run 0 warms up (JIT, caches) and is not counted
          live.latencyMicros.clear();
          BenchCollector c = new BenchCollector(vertx, port, "catchup-" + run, true);
          try {
            double cpuBroker0 = ProcessCpu.seconds(b.pid());
            double cpuSelf0 = ProcessCpu.self();
            long t0 = System.nanoTime();
            c.subscribe(DispatcherId.random(), TableSpan.wholeTable(1), startTs);
            long deadline = t0 + TimeUnit.MINUTES.toNanos(30);
            while (c.totalRows.get() < rows) {
              if (System.nanoTime() > deadline) {
                throw new IllegalStateException("catch-up delivered " + c.totalRows.get() + " of " + rows + "; see " + b.log());
              }
              pause(20);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            double cpuBroker = ProcessCpu.seconds(b.pid()) - cpuBroker0;
            double cpuSelf = ProcessCpu.self() - cpuSelf0;
            System.out.printf("catch-up %s: %,d rows in %.2f s = %,.0f rows/s; live p99 during %.1f ms; CPU s: broker"
                    + " %.2f, harness %.2f%n", run == 0 ? "warm-up" : "run " + run, rows, seconds, rows / seconds,
                p99Ms(live), cpuBroker, cpuSelf);
            if (run > 0) {
              catchUpRates.add(rows / seconds);
              liveDuring.add(p99Ms(live));
              brokerCpu.add(cpuBroker);
              harnessCpu.add(cpuSelf);
              wall.add(seconds);
            }
          } finally {
            c.close();
          }
        }
      } finally {
        feeder.interrupt();
        live.close();
        vertx.close().await(30, TimeUnit.SECONDS);
      }
      b.command("EXIT");
      b.awaitLine("EOF", Duration.ofMinutes(2));
    }
    List<Double> rawRates = new ArrayList<>();
    for (int run = 0; run <= runs; run++) {
      double rate = rawIteration(dir.resolve("events"), rows);
      System.out.printf("raw RocksDB iteration %s: %,.0f rows/s%n", run == 0 ? "warm-up" : "run " + run, rate);
      if (run > 0) {
        rawRates.add(rate);
      }
    }
    double catchUp = Stats.median(catchUpRates);
    double raw = Stats.median(rawRates);
    String how = String.format("%,d rows of ~%d B in %d-row transactions, one dispatcher from ts 0 (whole table) over "
        + "loopback gRPC, every message parsed; raw = RocksIterator over the rows column family of the same store, "
        + "key and value copied per entry, after the broker closed it; %d runs after a warm-up; per catch-up (median)"
        + " %.2f s wall, broker JVM %.2f CPU s, harness JVM (collector parsing, live load) %.2f CPU s on %d cores",
        rows, ROW_BYTES, TXN_ROWS, runs, Stats.median(wall), Stats.median(brokerCpu), Stats.median(harnessCpu),
        Runtime.getRuntime().availableProcessors());
    return List.of(
        new Figure("catchup_rows_per_s", "catch-up rows/s of one dispatcher " + String.format("%,d", rows) + " rows back",
            catchUp, "rows/s", Double.NaN, true, raw, runs, how),
        new Figure("catchup_vs_raw", "catch-up ÷ raw RocksDB iteration of the same data", catchUp / raw, "ratio", 0.5,
            true, Double.NaN, runs, how),
        new Figure("catchup_live_p99_ms", "live dispatchers' commit-to-receive p99 during catch-up",
            Stats.median(liveDuring), "ms", Math.max(100, liveBefore * 1.5), false, liveBefore, runs,
            "4 live dispatchers on another table fed 500 rows/s (10-row transactions every 20 ms); peer = p99 over a "
                + "window before the catch-up (after a warm-up window); target = max(100 ms, 1.5 x before); commit time "
                + "has ms resolution (synthetic source)"));
  }

  private static void feed(ChildJvm b) {
    while (!Thread.currentThread().isInterrupted()) {
      b.command("INSERT 2 10");
      try {
        TimeUnit.MILLISECONDS.sleep(20);   // pace of the live load, not a wait for a condition
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static double p99Ms(BenchCollector live) {
    long[] micros = live.latencyMicros.stream().mapToLong(Long::longValue).toArray();
    long[] nanos = new long[micros.length];
    for (int i = 0; i < micros.length; i++) {
      nanos[i] = micros[i] * 1000;
    }
    return Stats.percentileNanosToMs(nanos, 99);
  }

  /** Rows/s of a raw iteration over the rows column family (every entry's key and value copied). */
  static double rawIteration(Path eventsDir, long expectedRows) throws Exception {
    RocksDB.loadLibrary();
    List<byte[]> names;
    try (Options o = new Options()) {
      names = RocksDB.listColumnFamilies(o, eventsDir.toString());
    }
    List<ColumnFamilyDescriptor> families = new ArrayList<>();
    int rowsIndex = -1;
    for (byte[] n : names) {
      if (new String(n, StandardCharsets.US_ASCII).equals("rows")) {
        rowsIndex = families.size();
      }
      families.add(new ColumnFamilyDescriptor(n));
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (DBOptions options = new DBOptions();
         RocksDB db = RocksDB.openReadOnly(options, eventsDir.toString(), families, handles)) {
      long n = 0;
      long bytes = 0;
      long t0 = System.nanoTime();
      try (RocksIterator it = db.newIterator(handles.get(rowsIndex))) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          bytes += it.key().length + it.value().length;
          n++;
        }
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      handles.forEach(ColumnFamilyHandle::close);
      if (n < expectedRows || bytes == 0) {
        throw new IllegalStateException("raw iteration saw " + n + " rows, expected at least " + expectedRows);
      }
      return n / seconds;
    }
  }

  private static void pauseFor(Duration d) {
    pause(d.toMillis());
  }

  private static void pause(long ms) {
    try {
      Thread.sleep(ms);   // a poll interval of the harness; callers loop on their condition
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
