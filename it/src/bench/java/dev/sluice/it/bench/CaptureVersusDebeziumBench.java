package dev.sluice.it.bench;

import dev.sluice.broker.capture.CaptureConfig;
import dev.sluice.broker.capture.PgLogicalCapture;
import dev.sluice.broker.store.EventStoreConfig;
import dev.sluice.broker.store.RocksEventStore;
import dev.sluice.broker.upstream.UpstreamConfig;
import dev.sluice.it.PostgresServer;
import dev.sluice.it.workload.Pgbench;
import dev.sluice.schema.RocksSchemaStore;
import dev.sluice.schema.SchemaStoreConfig;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Question: how many row changes per second does Sluice's capture take from PostgreSQL into its
 * durable event store, compared with the Debezium embedded engine's PostgreSQL connector (3.6.1.Final)
 * reading the same pgbench WAL on the same machine in the same run?
 *
 * <p>Per run: a fresh PostgreSQL 17 (zonky, fsync off), one publication and two slots (Debezium's with
 * the pgoutput plugin; Sluice's by its capture, started and stopped once), {@code pgbench -i} after the
 * slots (whole WAL) or before them (two-row transactions only), {@code pgbench -N} for the run's
 * seconds, one marker row; then each reader
 * reads its slot from the start until the marker: Sluice = {@link PgLogicalCapture} into a fresh
 * RocksEventStore (decode, typed values, RowChange encoding, synced group commits, flush LSN
 * confirmed); Debezium = the embedded engine with the Connect format (SourceRecords, no JSON
 * serialization: its cheapest output), counting change records. The order alternates per run. Rates
 * run from the moment each reader streams (Sluice: its capture started; Debezium: its first record)
 * to the marker, so start-up (Debezium's is about a second) is not counted. Lives in {@code src/bench/java}: compiled only with the
 * Maven profile {@code bench} ({@code scripts/bench.sh}).
 */
public final class CaptureVersusDebeziumBench {

  private static final String SLUICE_SLOT = "bench_sluice";
  private static final String DEBEZIUM_SLOT = "bench_debezium";

  private final Path work;
  private final List<double[]> startups = new ArrayList<>();
  private final List<double[]> cpu = new ArrayList<>();   // {Sluice, Debezium} JVM CPU µs per row

  public CaptureVersusDebeziumBench(Path work) {
    this.work = work;
  }

  /**
   * Called by {@code BenchMain} through reflection: the figures of {@code runs} runs over each of two
   * WALs. {@code capture_vs_debezium} reads the whole pgbench WAL, {@code pgbench -i} (one COPY
   * transaction) and the run, the workload of {@code limits-here.md}; {@code capture_vs_debezium_small_txns}
   * reads only the run's two-row transactions, where the walsender's per-transaction work bounds every reader.
   */
  public List<Figure> run(int runs, int scale, int seconds, int clients) throws Exception {
    once(0, true, 1, 5, clients, true, false);   // warm-up of both readers' code in this JVM (JIT), not counted
    List<Figure> figures = new ArrayList<>(series(runs, scale, seconds, clients, true, false));
    figures.addAll(series(runs, scale, seconds, clients, false, false));
    figures.addAll(series(runs, scale, seconds, clients, true, true));
    return figures;
  }

  /**
   * One figure pair over {@code runs} runs. With {@code unixSocket} both readers connect through
   * PostgreSQL's Unix-domain socket (Sluice's {@code UnixSocketFactory}, passed to Debezium's driver as
   * {@code database.socketFactory}), else over loopback TCP.
   */
  private List<Figure> series(int runs, int scale, int seconds, int clients, boolean loadInWal, boolean unixSocket)
      throws Exception {
    List<Double> sluice = new ArrayList<>();
    List<Double> debezium = new ArrayList<>();
    List<Double> ratios = new ArrayList<>();
    long rowsPerRun = 0;
    cpu.clear();
    startups.clear();
    for (int run = 1; run <= runs; run++) {
      double[] r = once(run, run % 2 == 1, scale, seconds, clients, loadInWal, unixSocket);
      sluice.add(r[0]);
      debezium.add(r[1]);
      ratios.add(r[0] / r[1]);
      rowsPerRun = (long) r[2];
    }
    String wal = loadInWal
        ? String.format("the WAL of pgbench -i -s %d (one COPY transaction) and of pgbench -N -T %d -c %d", scale,
            seconds, clients)
        : String.format("the WAL of pgbench -N -T %d -c %d only (two-row transactions; pgbench -i -s %d ran before the"
            + " slots)", seconds, clients, scale);
    String how = String.format("%s, ~%,d row changes per run, on PostgreSQL 17 over %s"
        + " (fsync off); Sluice capture into a durable RocksEventStore vs Debezium embedded engine 3.6.1.Final"
        + " (PostgresConnector, pgoutput, Connect format, in-memory offsets), each from its own slot created before the"
        + " workload, alternating order; rows/s from the moment each reader streams (Sluice: capture started;"
        + " Debezium: its first record) to the marker row (start-up before that, median: Sluice %.2f s, Debezium %.2f s,"
        + " not counted); after one small warm-up run of both; JVM CPU per row (all threads of the reading JVM,"
        + " PostgreSQL excluded), median: Sluice %.1f µs, Debezium %.1f µs",
        wal, rowsPerRun, unixSocket ? "its Unix-domain socket (both readers)" : "loopback TCP",
        Stats.median(startups.stream().map(x -> x[0]).toList()), Stats.median(startups.stream().map(x -> x[1]).toList()),
        Stats.median(cpu.stream().map(x -> x[0]).toList()), Stats.median(cpu.stream().map(x -> x[1]).toList()));
    String suffix = (loadInWal ? "" : "_small_txns") + (unixSocket ? "_unix_socket" : "");
    String what = (loadInWal ? "whole pgbench WAL" : "two-row transactions only")
        + (unixSocket ? ", Unix-domain socket" : "");
    return List.of(
        new Figure("capture_rows_per_s" + suffix, "Sluice capture rows/s (" + what + ")", Stats.median(sluice),
            "rows/s", Double.NaN, true, Stats.median(debezium), runs, how + "; peer = Debezium rows/s"),
        new Figure("capture_vs_debezium" + suffix, "Sluice capture ÷ Debezium embedded engine (" + what + "), same run",
            Stats.median(ratios), "ratio", 3, true, Double.NaN, runs, how));
  }

  private double[] once(int run, boolean sluiceFirst, int scale, int seconds, int clients, boolean loadInWal,
      boolean unixSocket) throws Exception {
    Path dir = Files.createTempDirectory(work, "capture-" + run);
    try (PostgresServer pg = PostgresServer.upstream(Map.of("max_wal_size", "4GB", "checkpoint_timeout", "30min"))) {
      if (!loadInWal) {
        Pgbench.run(pg, "-i", "-s", Integer.toString(scale), "-q");
      }
      pg.exec("CREATE TABLE bench_end (id int PRIMARY KEY)",
          "CREATE PUBLICATION " + CaptureConfig.DEFAULT_PUBLICATION + " FOR ALL TABLES",
          "SELECT pg_create_logical_replication_slot('" + DEBEZIUM_SLOT + "', 'pgoutput')");
      String url = unixSocket ? pg.socketJdbcUrl() : pg.jdbcUrl();
      try (Stores s = new Stores(dir.resolve("sluice"))) {   // creates Sluice's slot before the workload; the read resumes there
        PgLogicalCapture c = s.capture(url);
        c.start();
        c.close();
      }
      if (loadInWal) {
        Pgbench.run(pg, "-i", "-s", Integer.toString(scale), "-q");
      }
      String out = Pgbench.run(pg, "-T", Integer.toString(seconds), "-c", Integer.toString(clients), "-j",
          Integer.toString(clients), "-N");
      pg.exec("INSERT INTO bench_end VALUES (1)");
      long endOid = pg.queryLong("SELECT 'bench_end'::regclass::oid");
      double[] sl;
      double[] dz;
      double c0 = ProcessCpu.self();
      double c1;
      double c2;
      if (sluiceFirst) {
        sl = readSluice(pg, url, dir.resolve("sluice"), endOid, unixSocket);
        c1 = ProcessCpu.self();
        dz = readDebezium(pg, dir.resolve("debezium"), unixSocket);
        c2 = ProcessCpu.self();
        cpu.add(new double[] {(c1 - c0) * 1e6 / sl[0], (c2 - c1) * 1e6 / dz[0]});
      } else {
        dz = readDebezium(pg, dir.resolve("debezium"), unixSocket);
        c1 = ProcessCpu.self();
        sl = readSluice(pg, url, dir.resolve("sluice"), endOid, unixSocket);
        c2 = ProcessCpu.self();
        cpu.add(new double[] {(c2 - c1) * 1e6 / sl[0], (c1 - c0) * 1e6 / dz[0]});
      }
      System.out.printf("capture run %d, %s%s (%s first, pgbench %.0f tps): Sluice %,.0f rows in %.2f s = %,.0f rows/s"
              + " (streaming after %.2f s); Debezium %,.0f rows in %.2f s = %,.0f rows/s (streaming after %.2f s);"
              + " ratio %.2f%n", run, loadInWal ? "whole WAL" : "two-row transactions",
          unixSocket ? ", Unix-domain socket" : "", sluiceFirst ? "Sluice" : "Debezium",
          Pgbench.tps(out), sl[0], sl[1], sl[0] / sl[1],
          sl[2], dz[0], dz[1], dz[0] / dz[1], dz[2], (sl[0] / sl[1]) / (dz[0] / dz[1]));
      System.out.printf("capture run %d CPU per row: Sluice %.1f µs, Debezium %.1f µs (start-up included)%n", run,
          cpu.get(cpu.size() - 1)[0], cpu.get(cpu.size() - 1)[1]);
      startups.add(new double[] {sl[2], dz[2]});
      return new double[] {sl[0] / sl[1], dz[0] / dz[1], sl[0]};
    } finally {
      deleteQuietly(dir);
    }
  }

  /**
   * {rows, seconds, start-up seconds} of Sluice's capture until the marker row is durable, timed from
   * when it streams: capture counts a transaction's rows at its commit, so a first-row time would skip
   * the wait for a large transaction.
   */
  private static double[] readSluice(PostgresServer pg, String url, Path dir, long endOid, boolean unixSocket) {
    try (Stores s = new Stores(dir)) {
      PgLogicalCapture capture = s.capture(url);
      long t0 = System.nanoTime();
      capture.start();
      long streaming = System.nanoTime();
      requireTransport(pg, SLUICE_SLOT, unixSocket);
      long deadline = t0 + TimeUnit.MINUTES.toNanos(30);
      while (!(s.events.lastCommitTs(endOid) > 0 && s.events.resolvedTs() >= s.events.lastCommitTs(endOid))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("Sluice did not capture the marker row within 30 min");
        }
        LockSupport.parkNanos(200_000);
      }
      long end = System.nanoTime();
      capture.close();
      return new double[] {capturedRows(s), (end - streaming) / 1e9, (streaming - t0) / 1e9};
    }
  }

  /** Fails the run unless the slot's walsender serves its reader over the transport the figure names. */
  private static void requireTransport(PostgresServer pg, String slot, boolean unixSocket) {
    String peer = pg.queryString("SELECT coalesce(a.client_addr::text, 'unix socket') FROM pg_replication_slots s"
        + " JOIN pg_stat_activity a ON a.pid = s.active_pid WHERE s.slot_name = '" + slot + "'");
    if (peer == null || peer.equals("unix socket") != unixSocket) {
      throw new IllegalStateException("slot " + slot + " is read over " + peer + ", not over "
          + (unixSocket ? "the Unix-domain socket" : "TCP") + " as this figure says");
    }
  }

  private static double capturedRows(Stores s) {
    return s.registry.find("sluice.capture.rows").counters().stream().mapToDouble(c -> c.count()).sum();
  }

  /**
   * {rows, seconds, start-up seconds} of the Debezium engine until it delivered the marker row's insert,
   * timed from its first record of any table: in the whole WAL that is a row of Sluice's DDL-capture
   * table, written by the first transactions, so the clock starts when the stream does, as Sluice's.
   */
  private static double[] readDebezium(PostgresServer pg, Path dir, boolean unixSocket) throws Exception {
    Files.createDirectories(dir);
    Properties p = new Properties();
    p.setProperty("name", "bench");
    p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
    p.setProperty("offset.flush.interval.ms", "10000");
    p.setProperty("database.hostname", "127.0.0.1");
    p.setProperty("database.port", Integer.toString(pg.port()));
    p.setProperty("database.user", "postgres");
    p.setProperty("database.password", "");
    p.setProperty("database.dbname", "postgres");
    if (unixSocket) {   // Debezium hands database.* settings it does not know to PgJDBC
      p.setProperty("database.socketFactory", dev.sluice.broker.upstream.UnixSocketFactory.class.getName());
      p.setProperty("database.socketFactoryArg", pg.socketDirectory().toString());
    }
    p.setProperty("topic.prefix", "bench");
    p.setProperty("plugin.name", "pgoutput");
    p.setProperty("slot.name", DEBEZIUM_SLOT);
    p.setProperty("publication.name", CaptureConfig.DEFAULT_PUBLICATION);
    p.setProperty("publication.autocreate.mode", "disabled");
    p.setProperty("snapshot.mode", "no_data");
    p.setProperty("max.batch.size", "8192");
    p.setProperty("max.queue.size", "65536");
    p.setProperty("schema.history.internal", "io.debezium.relational.history.MemorySchemaHistory");
    AtomicLong rows = new AtomicLong();
    AtomicLong first = new AtomicLong();
    CountDownLatch marker = new CountDownLatch(1);
    java.util.concurrent.atomic.AtomicReference<RuntimeException> wrongTransport =
        new java.util.concurrent.atomic.AtomicReference<>();
    ExecutorService executor = Executors.newSingleThreadExecutor();
    long t0 = System.nanoTime();
    long end;
    try (DebeziumEngine<RecordChangeEvent<SourceRecord>> engine = DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
        .using(p)
        .notifying((records, committer) -> {
          for (RecordChangeEvent<SourceRecord> r : records) {
            SourceRecord sr = r.record();
            if (sr.value() != null) {
              if (rows.incrementAndGet() == 1) {
                first.set(System.nanoTime());
                try {
                  requireTransport(pg, DEBEZIUM_SLOT, unixSocket);
                } catch (RuntimeException e) {   // thrown here it would only stop the engine's task
                  wrongTransport.set(e);
                  marker.countDown();
                }
              }
              if (sr.topic().endsWith(".bench_end")) {
                marker.countDown();
              }
            }
            committer.markProcessed(r);
          }
          committer.markBatchFinished();
        })
        .build()) {
      executor.execute(engine);
      if (!marker.await(30, TimeUnit.MINUTES)) {
        throw new IllegalStateException("Debezium did not deliver the marker row within 30 min (" + rows.get() + " rows)");
      }
      end = System.nanoTime();
      if (wrongTransport.get() != null) {
        throw wrongTransport.get();
      }
    } finally {
      executor.shutdown();
      executor.awaitTermination(60, TimeUnit.SECONDS);
    }
    return new double[] {rows.get(), (end - first.get()) / 1e9, (first.get() - t0) / 1e9};
  }

  /** Fresh stores of one read, and the capture on Sluice's slot. */
  private static final class Stores implements AutoCloseable {
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final RocksEventStore events;
    final RocksSchemaStore schemas;

    Stores(Path dir) {
      events = RocksEventStore.open(EventStoreConfig.defaults(dir.resolve("events")), registry);
      schemas = RocksSchemaStore.open(SchemaStoreConfig.at(dir.resolve("schema")), registry);
    }

    PgLogicalCapture capture(String url) {
      return new PgLogicalCapture(UpstreamConfig.external(url, "postgres", null),
          CaptureConfig.defaults("bench").withSlot(SLUICE_SLOT, CaptureConfig.DEFAULT_PUBLICATION), events, schemas,
          registry);
    }

    @Override
    public void close() {
      schemas.close();
      events.close();
    }
  }

  static void deleteQuietly(Path dir) throws IOException {
    try (var paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
