package dev.sluice.it.bench;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.it.ChildJvm;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The event service's figures (issue #4): fan-out throughput to 1, 100 and 10,000 dispatchers,
 * control-plane latency while the data plane is saturated, and heap per idle dispatcher with
 * watermark freshness at 100,000 idle dispatchers. The broker runs in its own JVM
 * ({@link BenchBroker}, real stores preloaded with synthetic rows of ~100 bytes) and the collectors in
 * this one, over loopback gRPC; both share the machine's cores, as in production on one host.
 */
final class EventServiceBench {

  private static final int ROW_BYTES = 100;
  private static final int TXN_ROWS = 100;
  /** Flags of every BenchBroker JVM (also the catch-up one); override with -Dbench.brokerJvm="..." to profile or compare. */
  static final List<String> BROKER_JVM = List.of(System.getProperty("bench.brokerJvm", "-Xmx4g").split(" "));

  private final Path work;
  private final Path logs;
  private final boolean quick;

  EventServiceBench(Path work, Path logs, boolean quick) {
    this.work = work;
    this.logs = logs;
    this.quick = quick;
  }

  /** Rows/s delivered when {@code dispatchers} catch up on {@code tables} preloaded tables at once. */
  Figure fanOut(int dispatchers, int tables, int rowsPerTable, int runs) throws Exception {
    List<Double> rates = new ArrayList<>();
    Path dir = Files.createTempDirectory(work, "fanout");
    try (ChildJvm b = ChildJvm.start("fanout-" + dispatchers, BenchBroker.class, BROKER_JVM,
        List.of(dir.toString(), Integer.toString(tables), Integer.toString(rowsPerTable), Integer.toString(ROW_BYTES),
            Integer.toString(TXN_ROWS)), logs)) {
      String[] ready = b.awaitLine("READY ", Duration.ofMinutes(10)).split(" ");
      int port = Integer.parseInt(ready[0]);
      long startTs = 16L * tables; // after every CREATE, before every row
      // run 0 warms up (JIT, and RocksDB compacting the preload) and is not counted
      for (int run = 0; run <= runs; run++) {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
        int collectors = Math.min(4, dispatchers);
        List<BenchCollector> cs = new ArrayList<>();
        try {
          for (int i = 0; i < collectors; i++) {
            cs.add(new BenchCollector(vertx, port, "fanout-" + run + "-" + i, true));
          }
          long expected = (long) dispatchers * rowsPerTable;
          long t0 = System.nanoTime();
          for (int d = 0; d < dispatchers; d++) {
            cs.get(d % collectors).subscribe(DispatcherId.random(), TableSpan.wholeTable(1 + d % tables), startTs);
          }
          long deadline = t0 + TimeUnit.MINUTES.toNanos(quick ? 3 : 10);
          while (total(cs) < expected) {
            if (System.nanoTime() > deadline) {
              throw new IllegalStateException("fan-out to " + dispatchers + " delivered " + total(cs) + " of "
                  + expected + " rows before the deadline; see " + b.log());
            }
            pause(20);
          }
          double seconds = (System.nanoTime() - t0) / 1e9;
          if (run > 0) {
            rates.add(expected / seconds);
          }
          System.out.printf("fan-out %d dispatchers %s: %,.0f rows/s (%,d rows in %.2f s)%n", dispatchers,
              run == 0 ? "warm-up" : "run " + run, expected / seconds, expected, seconds);
        } finally {
          cs.forEach(BenchCollector::close);
          vertx.close().await(30, TimeUnit.SECONDS);
        }
      }
    }
    String id = "fanout_rows_per_s_" + dispatchers;
    double target = dispatchers == 100 ? 500_000 : Double.NaN;
    return new Figure(id, "rows/s delivered to " + String.format("%,d", dispatchers) + " dispatchers", Stats.median(rates),
        "rows/s", target, true, Double.NaN, runs, String.format("%,d tables x %,d rows of ~%d B, %d-row txns, each "
            + "dispatcher a whole table from its start, %d collectors parsing every message; one warm-up run first",
            tables, rowsPerTable, ROW_BYTES, TXN_ROWS, Math.min(4, dispatchers)));
  }

  private static long total(List<BenchCollector> cs) {
    long t = 0;
    for (BenchCollector c : cs) {
      t += c.totalRows.get();
    }
    return t;
  }

  /**
   * Register->Ready and reset->Handshake latency of a probe collector while {@code loadDispatchers}
   * catch up from an old checkpoint on four other collectors, in {@code runs} rounds of a quiet probe
   * (its stream carries only its control traffic: the control plane's latency under a saturated data
   * plane, the target) and a busy one (its own dispatchers catch up on its stream too, so a Ready or
   * Handshake also waits for the data already in flight to it and for the probe to parse that data).
   * Each figure is the median over the rounds of that round's percentile.
   */
  List<Figure> controlPlaneLatency(int loadDispatchers, int tables, int rowsPerTable, int probes, int runs)
      throws Exception {
    Path dir = Files.createTempDirectory(work, "control");
    Map<String, List<long[][]>> rounds = new java.util.LinkedHashMap<>();
    rounds.put("quiet", new ArrayList<>());
    rounds.put("busy", new ArrayList<>());
    boolean saturatedThroughout = true;
    try (ChildJvm b = ChildJvm.start("control", BenchBroker.class, BROKER_JVM,
        List.of(dir.toString(), Integer.toString(tables), Integer.toString(rowsPerTable), Integer.toString(ROW_BYTES),
            Integer.toString(TXN_ROWS)), logs)) {
      int port = Integer.parseInt(b.awaitLine("READY ", Duration.ofMinutes(10)).split(" ")[0]);
      long startTs = 16L * tables;
      Vertx loadVertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
      List<BenchCollector> load = new ArrayList<>();
      try {
        for (int i = 0; i < 4; i++) {
          load.add(new BenchCollector(loadVertx, port, "load-" + i, true));
        }
        for (int d = 0; d < loadDispatchers; d++) {
          load.get(d % 4).subscribe(DispatcherId.random(), TableSpan.wholeTable(1 + d % tables), startTs);
        }
        long expected = (long) loadDispatchers * rowsPerTable;
        // wait until the data plane is busy delivering
        while (total(load) < expected / 50) {
          pause(20);
        }
        for (int run = 1; run <= runs; run++) {
          for (String kind : rounds.keySet()) {   // interleaved, so both kinds see the same phases of the load
            long rowsAtStart = total(load);
            long[][] into = {new long[probes], new long[probes]};
            try (ChildJvm probe = ChildJvm.start("control-probe-" + kind + "-" + run, ControlProbe.class,
                List.of("-Xmx256m"), List.of(Integer.toString(port), "1", Long.toString(startTs),
                    Integer.toString(probes), kind), logs)) {
              for (int i = 0; i < probes; i++) {
                String[] line = probe.awaitLine("PROBE ", Duration.ofMinutes(2)).split(" ");
                into[0][i] = Long.parseLong(line[1]);
                into[1][i] = Long.parseLong(line[2]);
              }
              probe.awaitLine("DONE", Duration.ofMinutes(1));
            }
            rounds.get(kind).add(into);
            boolean saturated = total(load) < expected;
            saturatedThroughout &= saturated;
            System.out.printf("control plane run %d, %s probe: %d probes while %,d rows were delivered (still catching"
                    + " up: %s); Ready p99 %.1f ms, Handshake p99 %.1f ms%n", run, kind, probes,
                total(load) - rowsAtStart, saturated, Stats.percentileNanosToMs(into[0], 99),
                Stats.percentileNanosToMs(into[1], 99));
          }
        }
        b.command("TIMERS");
        b.awaitLine("TIMERS END", Duration.ofSeconds(30));
      } finally {
        load.forEach(BenchCollector::close);
        loadVertx.close().await(30, TimeUnit.SECONDS);
      }
    }
    String how = String.format("%d rounds of %d sequential register+reset probes from a separate JVM while %,d"
        + " dispatchers on four other collector streams catch up on %,d tables x %,d rows (still catching up after"
        + " the last round: %s); time from sending the request to receiving the message; median over the rounds of"
        + " each round's percentile", runs, probes, loadDispatchers, tables, rowsPerTable, saturatedThroughout);
    String quietHow = how + "; the probe's dispatchers report no credit, so its stream carries only its control"
        + " traffic; per round p99 Ready " + perRound(rounds.get("quiet"), 0) + ", Handshake "
        + perRound(rounds.get("quiet"), 1);
    String busyHow = how + "; each probe dispatcher reports credit at its handshake and catches up on the probe's"
        + " stream, so later Readys and Handshakes wait for that data (up to the probe's 1 MiB HTTP/2 window) and"
        + " for the probe to parse it; per round p99 Ready " + perRound(rounds.get("busy"), 0) + ", Handshake "
        + perRound(rounds.get("busy"), 1);
    List<long[][]> quiet = rounds.get("quiet");
    List<long[][]> busy = rounds.get("busy");
    return List.of(
        new Figure("control_plane_ready_p50_ms", "register -> Ready p50 under load", medianOf(quiet, 0, 50),
            "ms", Double.NaN, false, Double.NaN, runs, quietHow),
        new Figure("control_plane_ready_p99_ms", "register -> Ready p99 under load", medianOf(quiet, 0, 99),
            "ms", 20, false, Double.NaN, runs, quietHow),
        new Figure("control_plane_handshake_p50_ms", "reset -> Handshake p50 under load", medianOf(quiet, 1, 50),
            "ms", Double.NaN, false, Double.NaN, runs, quietHow),
        new Figure("control_plane_p99_ms", "reset -> Handshake p99 under load", medianOf(quiet, 1, 99),
            "ms", 20, false, Double.NaN, runs, quietHow),
        new Figure("control_plane_busy_ready_p99_ms", "register -> Ready p99 under load, probe's own stream busy",
            medianOf(busy, 0, 99), "ms", Double.NaN, false, Double.NaN, runs, busyHow),
        new Figure("control_plane_busy_p99_ms", "reset -> Handshake p99 under load, probe's own stream busy",
            medianOf(busy, 1, 99), "ms", Double.NaN, false, Double.NaN, runs, busyHow));
  }

  /** The median over rounds of each round's p-th percentile of column {@code which} (0 Ready, 1 Handshake). */
  private static double medianOf(List<long[][]> rounds, int which, double p) {
    return Stats.median(rounds.stream().map(r -> Stats.percentileNanosToMs(r[which], p)).toList());
  }

  private static String perRound(List<long[][]> rounds, int which) {
    return rounds.stream().map(r -> String.format("%.1f", Stats.percentileNanosToMs(r[which], 99)))
        .collect(java.util.stream.Collectors.joining(", ", "", " ms"));
  }

  /** Heap per idle dispatcher and the largest watermark gap with {@code dispatchers} idle ones. */
  List<Figure> idleScale(int dispatchers, int tables) throws Exception {
    Path dir = Files.createTempDirectory(work, "idle");
    double perDispatcher;
    double maxGapMs;
    try (ChildJvm b = ChildJvm.start("idle", BenchBroker.class, BROKER_JVM,
        List.of(dir.toString(), Integer.toString(tables), "0", Integer.toString(ROW_BYTES), Integer.toString(TXN_ROWS)),
        logs)) {
      int port = Integer.parseInt(b.awaitLine("READY ", Duration.ofMinutes(5)).split(" ")[0]);
      long startTs = 16L * tables;
      Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
      int collectors = 10;
      List<BenchCollector> cs = new ArrayList<>();
      try {
        for (int i = 0; i < collectors; i++) {
          cs.add(new BenchCollector(vertx, port, "idle-" + i, false));
        }
        // establish the streams, then take the baseline
        b.command("HEAP");
        long before = Long.parseLong(b.awaitLine("HEAP ", Duration.ofMinutes(1)));
        for (int d = 0; d < dispatchers; d++) {
          cs.get(d % collectors).subscribe(DispatcherId.random(), TableSpan.wholeTable(1 + d % tables), startTs);
        }
        long subscribeStart = System.nanoTime();
        long deadline = subscribeStart + TimeUnit.MINUTES.toNanos(5);
        while (handshakes(cs) < dispatchers) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(handshakes(cs) + " of " + dispatchers + " handshakes; see " + b.log());
          }
          pause(50);
        }
        System.out.printf("idle scale: %,d dispatchers registered and handshaked in %.1f s%n", dispatchers,
            (System.nanoTime() - subscribeStart) / 1e9);
        // let every dispatcher get watermarks, then measure freshness over a window
        pause(2000);
        for (BenchCollector c : cs) {
          c.watermarkSummary();
        }
        pause(quick ? 3000 : 10_000);
        long gap = 0;
        for (BenchCollector c : cs) {
          gap = Math.max(gap, c.watermarkSummary()[1]);
        }
        maxGapMs = gap / 1e6;
        b.command("HEAP");
        long after = Long.parseLong(b.awaitLine("HEAP ", Duration.ofMinutes(1)));
        perDispatcher = (after - before) / (double) dispatchers;
        System.out.printf("idle scale: %,d dispatchers, heap %,d -> %,d bytes (%.0f B each), max watermark gap %.0f ms%n",
            dispatchers, before, after, perDispatcher, maxGapMs);
      } finally {
        cs.forEach(BenchCollector::close);
        vertx.close().await(60, TimeUnit.SECONDS);
      }
    }
    String how = String.format("%,d registered, handshaked, idle dispatchers over %d collectors and %d tables; broker "
        + "heap used after System.gc() minus the same before registering, divided by the count", dispatchers,
        10, tables);
    return List.of(
        new Figure("idle_heap_bytes_per_dispatcher", "broker heap per idle dispatcher", perDispatcher, "bytes", 2048,
            false, Double.NaN, 1, how),
        new Figure("idle_max_resolved_gap_ms", "largest gap between watermarks of an idle dispatcher", maxGapMs, "ms",
            1000, false, Double.NaN, 1, "over a " + (quick ? 3 : 10) + " s window after all were streaming"));
  }

  private static long handshakes(List<BenchCollector> cs) {
    long n = 0;
    for (BenchCollector c : cs) {
      n += c.handshakes.get();
    }
    return n;
  }

  private static void pause(long ms) {
    // a poll interval of the harness, not a wait for a condition: every caller loops on its condition
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
