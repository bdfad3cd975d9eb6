package dev.sluice.broker.capture;

import dev.sluice.broker.store.EventStoreConfig;
import dev.sluice.broker.store.RocksEventStore;
import dev.sluice.broker.upstream.UpstreamConfig;
import dev.sluice.schema.RocksSchemaStore;
import dev.sluice.schema.SchemaStoreConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.postgresql.PGConnection;
import org.postgresql.replication.PGReplicationStream;

/**
 * Question: how fast does Sluice capture a pgbench workload from PostgreSQL into a durable event store,
 * compared with a raw pgoutput read of the same WAL in the same run?
 *
 * <p>Each run starts a fresh PostgreSQL 17 (zonky), runs {@code pgbench -i -s <scale>}, creates the
 * publication and two slots (one raw, one for Sluice, whose capture creates it and stops again), runs
 * {@code pgbench -T <seconds> -c <clients> -N}, commits one marker row, then reads the WAL of the run
 * (a) raw through PgJDBC's replication stream counting Insert/Update/Delete messages (decoding
 * nothing) and (b) with the full capture into a fresh RocksEventStore and schema store (group commit,
 * synced batches, flush LSN confirmed after each sync), until the marker row is durable. The order of
 * (a) and (b) alternates between runs. A short warm-up run first JIT-compiles both paths (a broker runs
 * for long; a fresh JVM would charge Sluice's larger code path its compilation). Prints one JSON line
 * per run. With {@code --load-in-wal true}, {@code pgbench -i} runs after the slots, so both also read its
 * COPY of the accounts as one large transaction (which PostgreSQL spills to disk and replays at commit).
 *
 * <pre>
 * scripts/bench-capture.sh            # 3 runs, writes the "## Capture (PostgreSQL)" section of docs/BENCHMARKS.md
 * java -cp ... dev.sluice.broker.capture.CaptureBenchmark --runs 1 --scale 10 --seconds 30 --clients 4
 * java -cp ... dev.sluice.broker.capture.CaptureBenchmark --runs 2 --seconds 10 --load-in-wal true
 * java -cp ... dev.sluice.broker.capture.CaptureBenchmark --runs 2 --seconds 10 --load-in-wal true --unix-socket true
 * </pre>
 */
public final class CaptureBenchmark {

  private static final String RAW_SLOT = "bench_raw";
  private static final String SLUICE_SLOT = "bench_sluice";

  private final int scale;
  private final int seconds;
  private final int clients;
  private final Path workDir;
  /** Whether {@code pgbench -i} runs after the slots exist (its COPY is read too) or before. */
  private boolean loadInWal;
  /** Whether both readers connect through PostgreSQL's Unix-domain socket instead of loopback TCP. */
  private static boolean unixSocket;

  private static String url(TestPostgres pg) {
    return unixSocket ? pg.socketJdbcUrl() : pg.jdbcUrl();
  }

  private CaptureBenchmark(int scale, int seconds, int clients, Path workDir) {
    this.scale = scale;
    this.seconds = seconds;
    this.clients = clients;
    this.workDir = workDir;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new java.util.HashMap<>(Map.of("--runs", "3", "--scale", "10", "--seconds", "30",
        "--clients", "4", "--work-dir", "target/bench-capture", "--warmup-seconds", "20", "--load-in-wal", "false", "--unix-socket", "false"));
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!opts.containsKey(args[i])) {
        throw new IllegalArgumentException("unknown option " + args[i] + "; known: " + opts.keySet());
      }
      opts.put(args[i], args[i + 1]);
    }
    CaptureBenchmark bench = new CaptureBenchmark(Integer.parseInt(opts.get("--scale")),
        Integer.parseInt(opts.get("--seconds")), Integer.parseInt(opts.get("--clients")), Path.of(opts.get("--work-dir")));
    bench.loadInWal = Boolean.parseBoolean(opts.get("--load-in-wal"));
    unixSocket = Boolean.parseBoolean(opts.get("--unix-socket"));
    int runs = Integer.parseInt(opts.get("--runs"));
    int warmup = Integer.parseInt(opts.get("--warmup-seconds"));
    if (warmup > 0) { // JIT-compiles both readers' paths, as a long-running broker has them
      System.out.println(bench.run(0, true, warmup).replaceFirst("^\\{", "{\"warmup\": true, "));
    }
    for (int run = 1; run <= runs; run++) {
      boolean rawFirst = Boolean.getBoolean("bench.sluiceFirst") ? false : run % 2 == 1;
      System.out.println(bench.run(run, rawFirst, bench.seconds));
      System.out.flush();
    }
    System.exit(0);
  }

  private String run(int run, boolean rawFirst, int pgbenchSeconds) throws Exception {
    Path dir = workDir.resolve("run-" + run + "-" + System.nanoTime());
    Files.createDirectories(dir);
    // PostgreSQL itself runs with fsync off (as in limits-here.md) so pgbench produces WAL at full speed;
    // Sluice's event store syncs every batch it confirms
    try (TestPostgres pg = TestPostgres.start(Map.of("max_wal_size", "4GB", "checkpoint_timeout", "30min"))) {
      if (!loadInWal) {
        pgbench(pg, "-i", "-s", Integer.toString(scale), "-q");
      }
      pg.exec("CREATE TABLE bench_end (id int PRIMARY KEY)");
      createRawSlot(pg);
      try (Stores stores = new Stores(dir)) { // creates the Sluice slot, its initial definitions and position
        PgLogicalCapture capture = stores.capture(pg);
        capture.start();
        capture.close();
      }
      if (loadInWal) {   // its COPY, one large transaction, is then part of the WAL both read
        pgbench(pg, "-i", "-s", Integer.toString(scale), "-q");
      }
      String pgbenchOut = pgbench(pg, "-T", Integer.toString(pgbenchSeconds), "-c", Integer.toString(clients),
          "-j", Integer.toString(clients), "-N");
      pg.exec("INSERT INTO bench_end VALUES (1)");
      long endOid = pg.oid("bench_end");
      String loadBefore = loadAverage();
      double[] raw;
      Result sluice;
      if (rawFirst) {
        raw = readRaw(pg, endOid);
        sluice = readSluice(pg, dir, endOid);
      } else {
        sluice = readSluice(pg, dir, endOid);
        raw = readRaw(pg, endOid);
      }
      long rawRows = (long) raw[0];
      double rawSeconds = raw[1];
      double rawRate = rawRows / rawSeconds;
      double sluiceRate = sluice.rows / sluice.seconds;
      return String.format(Locale.ROOT, "{\"run\": %d, \"order\": \"%s\", \"pgbench_tps\": %.0f, \"raw_rows\": %d,"
              + " \"raw_seconds\": %.3f, \"raw_rows_per_s\": %.0f, \"sluice_rows\": %d, \"sluice_seconds\": %.3f,"
              + " \"sluice_rows_per_s\": %.0f, \"ratio\": %.4f, \"sluice_txns\": %d, \"group_commit_txns_mean\": %.1f,"
              + " \"sluice_syncs\": %d, \"raw_cpu_us_per_row\": %.2f, \"sluice_cpu_us_per_row\": %.2f,"
              + " \"load_before\": \"%s\", \"load_after\": \"%s\", \"sluice_cpu_breakdown_us_per_row\": \"%s\"}",
          run, rawFirst ? "raw,sluice" : "sluice,raw", tps(pgbenchOut), rawRows, rawSeconds, rawRate, sluice.rows,
          sluice.seconds, sluiceRate, sluiceRate / rawRate, sluice.txns, sluice.groupMean, sluice.syncs, raw[2],
          sluice.cpuMicrosPerRow(), loadBefore, loadAverage(), sluice.breakdown());
    } finally {
      deleteQuietly(dir);
    }
  }

  /** Reads the raw slot until the marker row's Insert, counting row messages; returns {rows, seconds}. */
  private static double[] readRaw(TestPostgres pg, long endOid) throws SQLException {
    java.util.Properties p = new java.util.Properties();
    org.postgresql.PGProperty.USER.set(p, "postgres");
    org.postgresql.PGProperty.ASSUME_MIN_SERVER_VERSION.set(p, "9.4");
    org.postgresql.PGProperty.REPLICATION.set(p, "database");
    org.postgresql.PGProperty.PREFER_QUERY_MODE.set(p, "simple");
    long start = System.nanoTime();
    long cpu = cpuNanos();
    try (Connection c = java.sql.DriverManager.getConnection(url(pg), p)) {
      PGReplicationStream stream = c.unwrap(PGConnection.class).getReplicationAPI().replicationStream().logical()
          .withSlotName(RAW_SLOT).withSlotOption("proto_version", "1")
          .withSlotOption("publication_names", CaptureConfig.DEFAULT_PUBLICATION)
          .withStatusInterval(1, TimeUnit.SECONDS).start();
      long rows = 0;
      while (true) {
        ByteBuffer m = stream.readPending();
        if (m == null) {
          LockSupport.parkNanos(100_000);
          continue;
        }
        byte type = m.get(m.position());
        if (type == 'I' || type == 'U' || type == 'D') {
          rows++;
          if (type == 'I' && (m.getInt(m.position() + 1) & 0xFFFF_FFFFL) == endOid) {
            return new double[] {rows, (System.nanoTime() - start) / 1e9, (cpuNanos() - cpu) / 1e3 / rows};
          }
        }
      }
    }
  }

  private record Result(long rows, double seconds, long txns, double groupMean, long syncs, double cpuMicrosPerRow,
      String breakdown) {}

  /** CPU of the capture's own threads, GC and JIT while it ran, microseconds per row. */
  private static String breakdown(Map<String, Long> threadCpuBefore, long gcBefore, long jitBefore, double rows) {
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    Map<String, Long> perThread = new java.util.TreeMap<>();
    for (long id : threads.getAllThreadIds()) {
      java.lang.management.ThreadInfo info = threads.getThreadInfo(id);
      long cpu = threads.getThreadCpuTime(id);
      if (info != null && cpu > 0 && info.getThreadName().startsWith("sluice")) {
        String name = info.getThreadName().replaceAll("-bench_sluice$", "");
        perThread.merge(name, cpu - threadCpuBefore.getOrDefault(info.getThreadName(), 0L), Long::sum);
      }
    }
    StringBuilder b = new StringBuilder();
    perThread.forEach((n, ns) -> b.append(String.format(Locale.ROOT, "%s=%.2f ", n, ns / 1e3 / rows)));
    b.append(String.format(Locale.ROOT, "gc=%.2f jit=%.2f", (gcMillis() - gcBefore) * 1e3 / rows,
        (java.lang.management.ManagementFactory.getCompilationMXBean().getTotalCompilationTime() - jitBefore) * 1e3 / rows));
    return b.toString().trim();
  }

  private static long gcMillis() {
    return java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream()
        .mapToLong(java.lang.management.GarbageCollectorMXBean::getCollectionTime).sum();
  }

  /** Captures from the Sluice slot until the marker row is durable in the event store. */
  private static Result readSluice(TestPostgres pg, Path dir, long endOid) {
    try (Stores stores = new Stores(dir)) {
      PgLogicalCapture capture = stores.capture(pg);
      long gcBefore = gcMillis();
      long jitBefore = java.lang.management.ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
      long start = System.nanoTime();
      long cpu = cpuNanos();
      capture.start();
      while (!(stores.events.lastCommitTs(endOid) > 0 && stores.events.resolvedTs() >= stores.events.lastCommitTs(endOid))) {
        LockSupport.parkNanos(200_000);
      }
      double secs = (System.nanoTime() - start) / 1e9;
      long cpuUsed = cpuNanos() - cpu;
      String breakdown = breakdown(Map.of(), gcBefore, jitBefore,
          stores.registry.find("sluice.capture.rows").counters().stream().mapToDouble(c -> c.count()).sum());
      capture.close();
      double rows = stores.registry.find("sluice.capture.rows").counters().stream().mapToDouble(c -> c.count()).sum();
      var summary = stores.registry.get("sluice.capture.group.commit.txns").summary();
      long txns = (long) stores.registry.get("sluice.capture.txns").counter().count();
      return new Result((long) rows, secs, txns, summary.mean(), summary.count(), cpuUsed / 1e3 / rows, breakdown);
    }
  }

  /** Fresh stores of one run, and the capture on its slot. */
  private static final class Stores implements AutoCloseable {
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final RocksEventStore events;
    final RocksSchemaStore schemas;

    Stores(Path dir) {
      events = RocksEventStore.open(EventStoreConfig.defaults(dir.resolve("events")), registry);
      schemas = RocksSchemaStore.open(SchemaStoreConfig.at(dir.resolve("schema")), registry);
    }

    PgLogicalCapture capture(TestPostgres pg) {
      return new PgLogicalCapture(UpstreamConfig.external(url(pg), "postgres", null),
          CaptureConfig.defaults("bench").withSlot(SLUICE_SLOT, CaptureConfig.DEFAULT_PUBLICATION),
          events, schemas, registry);
    }

    @Override
    public void close() {
      schemas.close();
      events.close();
    }
  }

  /** CPU time of this JVM (all threads), nanoseconds. */
  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (IOException e) {
      return "?";
    }
  }

  private static void createRawSlot(TestPostgres pg) {
    pg.exec("CREATE PUBLICATION " + CaptureConfig.DEFAULT_PUBLICATION + " FOR ALL TABLES",
        "SELECT pg_create_logical_replication_slot('" + RAW_SLOT + "', 'pgoutput')");
  }

  private String pgbench(TestPostgres pg, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("pgbench", "-h", "127.0.0.1", "-p", Integer.toString(pg.port()),
        "-U", "postgres"));
    cmd.addAll(List.of(args));
    cmd.add("postgres");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException("pgbench " + String.join(" ", args) + " failed:\n" + out);
    }
    return out;
  }

  private static double tps(String pgbenchOut) {
    for (String line : pgbenchOut.split("\n")) {
      if (line.startsWith("tps = ")) {
        return Double.parseDouble(line.substring(6).split(" ")[0]);
      }
    }
    return -1;
  }

  private static void deleteQuietly(Path dir) {
    try (var paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException ignored) {
      // best effort: it lives under target/
    }
  }
}
