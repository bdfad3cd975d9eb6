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
 * Question: how close does Sluice's capture come to what PostgreSQL can deliver on this machine, and how
 * does it compare with the Debezium embedded engine's PostgreSQL connector (3.6.1.Final)?
 *
 * <p>Per run: a fresh PostgreSQL 17 (zonky, fsync off), one publication and three slots, {@code pgbench -i}
 * after the slots (whole WAL) or before them (two-row transactions only), {@code pgbench -N} for the run's
 * seconds, one marker row; then each reader reads its own slot from the start until the marker:
 * <ul>
 *   <li>raw: {@link RawPgoutputRead}, a pgoutput reader that only counts row messages, the physical limit
 *       (over loopback TCP the walsender's one {@code send()} per message bounds every reader);</li>
 *   <li>Sluice: {@link PgLogicalCapture} into a fresh RocksEventStore (decode, typed values, RowChange encoding,
 *       synced group commits, flush LSN confirmed);</li>
 *   <li>Debezium: the embedded engine with the Connect format (SourceRecords, no JSON serialization: its
 *       cheapest output), counting change records.</li>
 * </ul>
 * The order rotates per run. Rates run from the moment each reader streams (raw: its replication stream
 * started; Sluice: its capture started; Debezium: its first record) to the marker, so start-up is not
 * counted. Lives in {@code src/bench/java}: compiled only with the Maven profile {@code bench}
 * ({@code scripts/bench.sh}).
 */
public final class CaptureBench {

  private static final String SLUICE_SLOT = "bench_sluice";
  private static final String DEBEZIUM_SLOT = "bench_debezium";
  private static final String RAW_SLOT = "bench_raw";
  /** Sluice ÷ the raw reader, same WAL, same run: the target for every transport and workload. */
  static final double CAPTURE_VS_RAW_TARGET = 0.9;
  /** Sluice ÷ Debezium over the Unix-domain socket, where neither is bound by the walsender's sends. */
  static final double CAPTURE_VS_DEBEZIUM_TARGET = 3;

  private final Path work;
  private final List<double[]> startups = new ArrayList<>();   // {Sluice, raw, Debezium} seconds
  private final List<double[]> cpu = new ArrayList<>();        // {Sluice, raw, Debezium} JVM CPU µs per row

  /** What one series reads and over what. */
  private record Series(boolean loadInWal, boolean unixSocket, boolean debezium) {
    String suffix() {
      return (loadInWal ? "" : "_small_txns") + (unixSocket ? "_unix_socket" : "");
    }

    String what() {
      return (loadInWal ? "whole pgbench WAL" : "two-row transactions only") + (unixSocket ? ", Unix-domain socket" : "");
    }
  }

  /** Rows/s of each reader in one run (Debezium NaN when it did not read). */
  private record Rates(double sluice, double raw, double debezium, long rows) {}

  public CaptureBench(Path work) {
    this.work = work;
  }

  /**
   * Called by {@code BenchMain} through reflection: the figures of {@code runs} runs over each of four
   * series, the whole pgbench WAL ({@code pgbench -i}, one COPY transaction, and the run: the workload of
   * {@code limits-here.md}) and the run's two-row transactions only (where the walsender's per-transaction
   * work bounds every reader), each over loopback TCP and over the Unix-domain socket. Debezium reads the
   * first three.
   */
  public List<Figure> run(int runs, int scale, int seconds, int clients) throws Exception {
    once(0, 0, 1, 5, clients, new Series(true, false, true));   // warm-up (JIT) of all three readers, not counted
    List<Figure> figures = new ArrayList<>();
    figures.addAll(series(runs, scale, seconds, clients, new Series(true, false, true)));
    figures.addAll(series(runs, scale, seconds, clients, new Series(false, false, true)));
    figures.addAll(series(runs, scale, seconds, clients, new Series(true, true, true)));
    figures.addAll(series(runs, scale, seconds, clients, new Series(false, true, false)));
    return figures;
  }

  /** The figures of one series over {@code runs} runs (medians of the per-run rates and ratios). */
  private List<Figure> series(int runs, int scale, int seconds, int clients, Series s) throws Exception {
    List<Rates> rates = new ArrayList<>();
    cpu.clear();
    startups.clear();
    for (int run = 1; run <= runs; run++) {
      rates.add(once(run, run - 1, scale, seconds, clients, s));
    }
    String wal = s.loadInWal()
        ? String.format("the WAL of pgbench -i -s %d (one COPY transaction) and of pgbench -N -T %d -c %d", scale,
            seconds, clients)
        : String.format("the WAL of pgbench -N -T %d -c %d only (two-row transactions; pgbench -i -s %d ran before the"
            + " slots)", seconds, clients, scale);
    String how = String.format("%s, ~%,d row changes per run, on PostgreSQL 17 over %s (fsync off); each reader from"
        + " its own slot created before the workload, the order rotating per run: raw = a pgoutput reader that only"
        + " counts row messages (PgJDBC, proto 1), Sluice = capture into a durable RocksEventStore%s; rows/s from the"
        + " moment each reader streams to the marker row (start-up, median: raw %.2f s, Sluice %.2f s%s, not counted);"
        + " after one small warm-up run of all; JVM CPU per row (all threads of the reading JVM, PostgreSQL excluded),"
        + " median: raw %.1f µs, Sluice %.1f µs%s",
        wal, rates.get(rates.size() - 1).rows(), s.unixSocket() ? "its Unix-domain socket (every reader)" : "loopback TCP",
        s.debezium() ? ", Debezium = embedded engine 3.6.1.Final (PostgresConnector, pgoutput, Connect format, in-memory"
            + " offsets)" : "",
        median(startups, 1), median(startups, 0),
        s.debezium() ? String.format(", Debezium %.2f s", median(startups, 2)) : "",
        median(cpu, 1), median(cpu, 0), s.debezium() ? String.format(", Debezium %.1f µs", median(cpu, 2)) : "");
    String x = s.suffix();
    double sluice = Stats.median(rates.stream().map(Rates::sluice).toList());
    double raw = Stats.median(rates.stream().map(Rates::raw).toList());
    double debezium = s.debezium() ? Stats.median(rates.stream().map(Rates::debezium).toList()) : Double.NaN;
    List<Figure> out = new ArrayList<>();
    out.add(new Figure("capture_rows_per_s" + x, "Sluice capture rows/s (" + s.what() + ")", sluice, "rows/s",
        Double.NaN, true, debezium, runs, how + (s.debezium() ? "; peer = Debezium rows/s" : "")));
    out.add(new Figure("raw_rows_per_s" + x, "raw pgoutput read rows/s, counting only (" + s.what() + ")", raw, "rows/s",
        Double.NaN, true, Double.NaN, runs, how));
    out.add(new Figure("capture_vs_raw" + x, "Sluice capture ÷ raw pgoutput read (" + s.what() + "), same run",
        Stats.median(rates.stream().map(r -> r.sluice() / r.raw()).toList()), "ratio", CAPTURE_VS_RAW_TARGET, true,
        Double.NaN, runs, how));
    if (s.debezium()) {
      // over TCP the walsender bounds both sides of this ratio: reported beside raw ÷ Debezium, no target of its own
      out.add(new Figure("capture_vs_debezium" + x, "Sluice capture ÷ Debezium embedded engine (" + s.what()
          + "), same run", Stats.median(rates.stream().map(r -> r.sluice() / r.debezium()).toList()), "ratio",
          s.unixSocket() && s.loadInWal() ? CAPTURE_VS_DEBEZIUM_TARGET : Double.NaN, true, Double.NaN, runs, how));
      out.add(new Figure("raw_vs_debezium" + x, "raw pgoutput read ÷ Debezium embedded engine (" + s.what()
          + "), same run: the most any capture could reach here", Stats.median(rates.stream()
          .map(r -> r.raw() / r.debezium()).toList()), "ratio", Double.NaN, true, Double.NaN, runs, how));
    }
    return out;
  }

  private static double median(List<double[]> rows, int column) {
    return Stats.median(rows.stream().map(x -> x[column]).toList());
  }

  /** One run: each reader of the series over the same WAL, the first reader {@code rotation} places on. */
  private Rates once(int run, int rotation, int scale, int seconds, int clients, Series s) throws Exception {
    Path dir = Files.createTempDirectory(work, "capture-" + run);
    try (PostgresServer pg = PostgresServer.upstream(Map.of("max_wal_size", "4GB", "checkpoint_timeout", "30min"))) {
      if (!s.loadInWal()) {
        Pgbench.run(pg, "-i", "-s", Integer.toString(scale), "-q");
      }
      pg.exec("CREATE TABLE bench_end (id int PRIMARY KEY)",
          "CREATE PUBLICATION " + CaptureConfig.DEFAULT_PUBLICATION + " FOR ALL TABLES",
          "SELECT pg_create_logical_replication_slot('" + RAW_SLOT + "', 'pgoutput')");
      if (s.debezium()) {
        pg.exec("SELECT pg_create_logical_replication_slot('" + DEBEZIUM_SLOT + "', 'pgoutput')");
      }
      String url = s.unixSocket() ? pg.socketJdbcUrl() : pg.jdbcUrl();
      try (Stores st = new Stores(dir.resolve("sluice"))) {   // creates Sluice's slot before the workload
        PgLogicalCapture c = st.capture(url);
        c.start();
        c.close();
      }
      if (s.loadInWal()) {
        Pgbench.run(pg, "-i", "-s", Integer.toString(scale), "-q");
      }
      String out = Pgbench.run(pg, "-T", Integer.toString(seconds), "-c", Integer.toString(clients), "-j",
          Integer.toString(clients), "-N");
      pg.exec("INSERT INTO bench_end VALUES (1)");
      long endOid = pg.queryLong("SELECT 'bench_end'::regclass::oid");
      List<String> readers = new ArrayList<>(s.debezium() ? List.of("Sluice", "raw", "Debezium") : List.of("Sluice", "raw"));
      java.util.Collections.rotate(readers, -(rotation % readers.size()));
      double[] sl = null;
      double[] raw = null;
      double[] dz = null;
      double[] cpuPerRow = {Double.NaN, Double.NaN, Double.NaN};
      for (String reader : readers) {
        double c0 = ProcessCpu.self();
        switch (reader) {
          case "Sluice" -> sl = readSluice(pg, url, dir.resolve("sluice"), endOid, s.unixSocket());
          case "raw" -> {
            raw = RawPgoutputRead.untilMarker(url, RAW_SLOT, endOid, () -> requireTransport(pg, RAW_SLOT, s.unixSocket()));
          }
          default -> dz = readDebezium(pg, dir.resolve("debezium"), s.unixSocket());
        }
        double used = (ProcessCpu.self() - c0) * 1e6;
        switch (reader) {
          case "Sluice" -> cpuPerRow[0] = used / sl[0];
          case "raw" -> cpuPerRow[1] = used / raw[0];
          default -> cpuPerRow[2] = used / dz[0];
        }
      }
      double sluiceRate = sl[0] / sl[1];
      double rawRate = raw[0] / raw[1];
      double dzRate = dz == null ? Double.NaN : dz[0] / dz[1];
      System.out.printf("capture run %d, %s (%s; pgbench %.0f tps): raw %,.0f rows in %.2f s = %,.0f rows/s; Sluice"
              + " %,.0f rows in %.2f s = %,.0f rows/s (%.2f of raw)%s%n", run, s.what(), String.join(", ", readers),
          Pgbench.tps(out), raw[0], raw[1], rawRate, sl[0], sl[1], sluiceRate, sluiceRate / rawRate,
          dz == null ? "" : String.format("; Debezium %,.0f rows in %.2f s = %,.0f rows/s (Sluice %.2fx, raw %.2fx)",
              dz[0], dz[1], dzRate, sluiceRate / dzRate, rawRate / dzRate));
      System.out.printf("capture run %d CPU per row: raw %.1f µs, Sluice %.1f µs%s (start-up included)%n", run,
          cpuPerRow[1], cpuPerRow[0], dz == null ? "" : String.format(", Debezium %.1f µs", cpuPerRow[2]));
      cpu.add(cpuPerRow);
      startups.add(new double[] {sl[2], raw[2], dz == null ? Double.NaN : dz[2]});
      return new Rates(sluiceRate, rawRate, dzRate, (long) raw[0]);
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
