package dev.sluice.it.bench;

import dev.sluice.api.error.SluiceException;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.SnapshotOutcome;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.dispatcher.sink.JdbcSinkConfig;
import dev.sluice.dispatcher.sink.JdbcUpsertSink;
import dev.sluice.it.BrokerProcess;
import dev.sluice.it.ChildJvm;
import dev.sluice.it.workload.Pgbench;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.data.Struct;

/**
 * Question: how fast does a Sluice snapshot copy an existing table into a downstream PostgreSQL, against
 * {@code pg_dump -t | psql} and against the Debezium embedded engine's initial snapshot of the same table,
 * in the same run on the same machine; and what does a live dispatcher's latency do meanwhile?
 *
 * <p>Per run: a PostgreSQL of the machine's installation as the upstream ({@link SystemPostgres}: its pg_dump
 * cannot dump a newer server) and another as the downstream, both fsync off; {@code pgbench -i -s <scale>}
 * ({@code pgbench_accounts}: 100,000 rows per scale unit). Then, in an order that alternates per run:
 * <ul>
 *   <li>Sluice: a broker process captures the upstream; a client library subscription with a snapshot
 *       ({@code Subscription.withSnapshot()}) in the harness JVM applies {@code pgbench_accounts}' READ rows
 *       through the JDBC sink ({@code JdbcUpsertSink}, one sink transaction per chunk with its checkpoint) into
 *       an empty database of the downstream; timed from the subscription until its snapshot is complete (every
 *       chunk applied): the sink a hosted changefeed with {@code initial_load: snapshot} drives, here driven by
 *       the library directly. Meanwhile two paced writers insert 2,000 rows/s into another table, and client
 *       library subscriptions on that table measure listener time minus commit time (the live p99 during the
 *       snapshot): one in a JVM of its own ({@link LiveProbe}, another application's), one in the harness JVM;
 *       an {@link FsyncProbe} in the broker's data directory measures the ceiling: the fsync every group of
 *       captured transactions waits for before its events go out.</li>
 *   <li>{@code pg_dump -t public.pgbench_accounts | psql} into another empty database, timed from start to psql's
 *       exit (its COPY, then the primary key's index build).</li>
 *   <li>Debezium 3.6.1.Final embedded, PostgresConnector, {@code snapshot.mode=initial_only} on the same table,
 *       Connect format (no serialization, no downstream writes: its cheapest output), timed from the engine's
 *       start to its last READ record.</li>
 * </ul>
 * Lives in {@code src/bench/java}: compiled with the Maven profile {@code bench} ({@code scripts/bench.sh}).
 */
public final class SnapshotBench {

  private static final String TABLE = "public.pgbench_accounts";
  private static final int CONTROL_PROBES = 200;
  // the live probe is an instrument: C1 only, since at its few hundred transactions a second the C2 compiler kept
  // compiling through the timed phase (43 % of the probe's 1 s of CPU there, on a machine the snapshot keeps busy)
  private static final List<String> PROBE_JVM_ARGS = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1");

  private final Path work;
  private final Path logs;

  public SnapshotBench(Path work, Path logs) {
    this.work = work;
    this.logs = logs;
  }

  /** Called by {@code BenchMain} through reflection. */
  public List<Figure> run(int runs, int scale) throws Exception {
    List<Double> sluice = new ArrayList<>();
    List<Double> dump = new ArrayList<>();
    List<Double> debezium = new ArrayList<>();
    List<Double> vsDump = new ArrayList<>();
    List<Double> vsDebezium = new ArrayList<>();
    List<Double> p99s = new ArrayList<>();
    List<Double> sameJvmP99s = new ArrayList<>();
    List<Double> fsyncP99s = new ArrayList<>();
    List<Double> fsyncMaxes = new ArrayList<>();
    List<Double> toMemory = new ArrayList<>();
    List<Double> indexed = new ArrayList<>();
    List<Double> vsIndexed = new ArrayList<>();
    List<Double> indexedVsDump = new ArrayList<>();
    List<Double> toMemoryVsDebezium = new ArrayList<>();
    List<Double> readyP99s = new ArrayList<>();
    List<Double> handshakeP99s = new ArrayList<>();
    List<Double> hosted = new ArrayList<>();
    List<Double> hostedVsDump = new ArrayList<>();
    boolean probedDuring = true;
    long rows = 0;
    for (int run = 1; run <= runs; run++) {
      double[] r = once(run, scale, run % 2 == 1);
      rows = (long) r[0];
      sluice.add(r[1]);
      dump.add(r[2]);
      debezium.add(r[3]);
      p99s.add(r[4]);
      sameJvmP99s.add(r[5]);
      fsyncP99s.add(r[6]);
      fsyncMaxes.add(r[7]);
      readyP99s.add(r[8]);
      handshakeP99s.add(r[9]);
      probedDuring &= r[10] > 0;
      toMemory.add(r[11]);
      toMemoryVsDebezium.add(r[11] / r[3]);
      indexed.add(r[12]);
      vsIndexed.add(r[1] / r[12]);
      indexedVsDump.add(r[12] / r[2]);
      hosted.add(r[13]);
      hostedVsDump.add(r[13] / r[2]);
      vsDump.add(r[1] / r[2]);
      vsDebezium.add(r[1] / r[3]);
    }
    String how = String.format("pgbench_accounts at scale %d (%,d rows) on PostgreSQL %s (the machine's installation,"
        + " fsync off), upstream and downstream on this machine, 2 paced writers inserting 2,000 rows/s into another"
        + " table of the upstream through every phase (each tool copies from a live database); Sluice: a broker"
        + " process that first served the same snapshot into memory (a running broker), then a client library"
        + " subscription with a snapshot (READ rows as COPY text, feature copy-text) applying through the JDBC sink"
        + " (JdbcUpsertSink, one sink transaction per chunk, the key deferred to after the last chunk) into an empty"
        + " downstream database, subscribe to snapshot complete (default snapshot settings: 2 readers, 8,192-row"
        + " chunks), two live subscriptions on the written table meanwhile; pg_dump -t | psql of the same table"
        + " (COPY, then the key's index build); Debezium embedded 3.6.1.Final initial_only snapshot into memory"
        + " (Connect records, no downstream); medians over %d runs, alternating order, each phase from the same state"
        + " (targets and idle slots dropped, both servers checkpointed, dirty pages synced)", scale, rows,
        SystemPostgres.installation().getParent().getFileName(), runs);
    return List.of(
        new Figure("snapshot_rows_per_s", "Sluice snapshot rows/s into a downstream PostgreSQL", Stats.median(sluice),
            "rows/s", Double.NaN, true, Stats.median(dump), runs, how + "; peer = pg_dump | psql rows/s"),
        new Figure("snapshot_vs_pg_dump", "Sluice snapshot ÷ pg_dump -t | psql, same table, same run",
            Stats.median(vsDump), "ratio", 1.0, true, Double.NaN, runs, how),
        new Figure("snapshot_vs_debezium", "Sluice snapshot ÷ Debezium embedded initial snapshot, same table, same run",
            Stats.median(vsDebezium), "ratio", 3.0, true, Stats.median(debezium), runs,
            how + "; peer = Debezium rows/s"),
        new Figure("snapshot_hosted_rows_per_s", "a hosted changefeed's initial load (initial_load snapshot) rows/s"
            + " into a downstream PostgreSQL", Stats.median(hosted), "rows/s", Double.NaN, true, Stats.median(dump), runs,
            "the user's path for the same load: POST /api/v1/changefeeds with initial_load snapshot into another empty"
            + " database, timed from the POST until GET says its snapshot is done (polled every 100 ms); the library"
            + " and the JDBC sink in the broker's process, after the timed library snapshot (a warm broker); " + how
            + "; peer = pg_dump | psql rows/s"),
        new Figure("snapshot_hosted_vs_pg_dump", "a hosted changefeed's initial load ÷ pg_dump -t | psql, same run",
            Stats.median(hostedVsDump), "ratio", Double.NaN, true, Double.NaN, runs, how),
        new Figure("snapshot_to_memory_rows_per_s", "Sluice snapshot rows/s into memory (a counting listener)",
            Stats.median(toMemory), "rows/s", Double.NaN, true, Stats.median(debezium), runs,
            "the same library subscription with a snapshot, its listener counting READ rows and acknowledging, no"
            + " sink: Debezium's output here, like for like; the broker's first snapshot after its start, the"
            + " control-plane probe running meanwhile; " + how + "; peer = Debezium rows/s"),
        new Figure("snapshot_to_memory_vs_debezium", "Sluice snapshot into memory ÷ Debezium's, same run",
            Stats.median(toMemoryVsDebezium), "ratio", Double.NaN, true, Double.NaN, runs,
            "both into memory (a counting listener; Connect records): what the two pipelines cost without a"
            + " downstream; " + how),
        new Figure("snapshot_indexed_copy_rows_per_s", "COPY of the same rows into the table with its key"
            + " (pg_dump -a | psql), the downstream's own ceiling for an online load", Stats.median(indexed), "rows/s",
            Double.NaN, true, Stats.median(dump), runs, "the table created first with its primary key (pg_dump -s),"
            + " then its rows by COPY from a data-only dump on disk; an online load must keep the key's index (live"
            + " changes upsert through it), pg_dump builds it after its COPY; per run ÷ pg_dump | psql "
            + indexedVsDump.stream().map(v -> String.format("%.2f", v)).toList() + "; " + how + "; peer = pg_dump | psql rows/s"),
        new Figure("snapshot_vs_indexed_copy", "Sluice snapshot ÷ COPY into the indexed table, same run",
            Stats.median(vsIndexed), "ratio", Double.NaN, true, Double.NaN, runs, how),
        new Figure("snapshot_e2e_p99_ms", "live upstream commit -> listener p99 while the snapshot runs",
            Stats.median(p99s), "ms", 100, false, Double.NaN, runs,
            "2 writers x 100 txns/s x 10-row inserts into another table, one library subscription on it in a JVM"
            + " of its own (another application's; -Xmx256m, C1 only: an instrument), during the timed snapshot"
            + " into PostgreSQL; the broker's fsync on its filesystem in the same phase for comparison (snapshot_fsync_max_ms: capture"
            + " serves each group of transactions when written and fsyncs it behind, and the downstream database's"
            + " COPY writes to the same disk); " + how),
        new Figure("snapshot_fsync_p99_ms", "fsync p99 on the broker's filesystem while the snapshot runs",
            Stats.median(fsyncP99s), "ms", Double.NaN, false, Double.NaN, runs,
            "100 bytes appended and forced every 10 ms in the broker's data directory during the Sluice phase; "
            + how),
        new Figure("snapshot_fsync_max_ms", "longest fsync on the broker's filesystem while the snapshot runs",
            Stats.median(fsyncMaxes), "ms", Double.NaN, false, Double.NaN, runs,
            "100 bytes appended and forced every 10 ms in the broker's data directory during the Sluice phase; "
            + how),
        new Figure("snapshot_control_plane_p99_ms", "control plane (REGISTER+RESET -> Handshake) p99 while the"
            + " snapshot runs", Stats.median(handshakeP99s), "ms", 20, false, Double.NaN, runs,
            CONTROL_PROBES + " sequential register+reset probes from a JVM of its own (ControlProbe, quiet: its"
            + " stream carries only its control traffic) on the live table while the snapshot into memory runs (still running"
            + " at the last probe in every run: " + probedDuring + "); per run p99 Ready " + oneDecimal(readyP99s) + " ms,"
            + " Handshake " + oneDecimal(handshakeP99s) + " ms; the same target as control_plane_p99_ms; " + how),
        new Figure("snapshot_e2e_p99_ms_loader_jvm",
            "live upstream commit -> listener p99 while the snapshot runs, listener in the loading JVM",
            Stats.median(sameJvmP99s), "ms", Double.NaN, false, Double.NaN, runs,
            "the same live subscription in the JVM that loads the snapshot (its own client and connection), for"
            + " comparison: a listener there also waits out that JVM's garbage collection under the load; " + how));
  }

  /**
   * {rows, Sluice rows/s, pg_dump rows/s, Debezium rows/s, live p99 ms, same in the loader's JVM, fsync p99 ms, fsync
   * max ms, control-plane Ready p99 ms, Handshake p99 ms, 1 if the snapshot outlasted the probes, Sluice into memory
   * rows/s, COPY into the indexed table rows/s} of one run.
   */
  private double[] once(int run, int scale, boolean sluiceFirst) throws Exception {
    try (SystemPostgres up = SystemPostgres.start(Map.of("wal_level", "logical", "max_replication_slots", "10",
        "max_wal_senders", "10", "synchronous_commit", "on", "max_wal_size", "8GB", "checkpoint_timeout", "30min"));
         SystemPostgres down = SystemPostgres.start(Map.of("synchronous_commit", "off", "max_wal_size", "8GB",
             "checkpoint_timeout", "30min"))) {
      Pgbench.run(up.port(), "-i", "-s", Integer.toString(scale), "-q");
      up.exec("CREATE TABLE public.e2e_live (id bigint PRIMARY KEY, payload text NOT NULL)", "ANALYZE");
      long rows = up.queryLong("postgres", "SELECT count(*) FROM " + TABLE);
      double s;
      double d;
      double z;
      double[] sl;
      double m;
      double x;
      // every tool copies from a live database: the same paced writers run through every phase
      AtomicBoolean writing = new AtomicBoolean(true);
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < 2; w++) {
        int writer = w;
        Thread t = new Thread(() -> write(up, writer, writing), "live-writer-" + w);
        t.setDaemon(true);
        t.start();
        writers.add(t);
      }
      try {
        if (sluiceFirst) {
          sl = ready("sluice", up, down) ? sluice(run, up, down, rows) : SKIPPED_SLUICE;
          d = ready("dump", up, down) ? pgDump(up, down, rows) : Double.NaN;
          x = ready("indexed", up, down) ? indexedCopy(up, down, rows) : Double.NaN;
          z = ready("debezium", up, down) ? debezium(up, rows) : Double.NaN;
        } else {
          z = ready("debezium", up, down) ? debezium(up, rows) : Double.NaN;
          x = ready("indexed", up, down) ? indexedCopy(up, down, rows) : Double.NaN;
          d = ready("dump", up, down) ? pgDump(up, down, rows) : Double.NaN;
          sl = ready("sluice", up, down) ? sluice(run, up, down, rows) : SKIPPED_SLUICE;
        }
      } finally {
        writing.set(false);
        for (Thread t : writers) {
          t.join(TimeUnit.SECONDS.toMillis(30));
        }
      }
      m = sl[8];
      s = sl[0];
      System.out.printf("snapshot run %d (%s first): %,d rows; Sluice %,.0f rows/s (live p99 %.0f ms, %.0f ms in the"
          + " loader's JVM; fsync p99 %.0f ms, max %.0f ms), pg_dump | psql %,.0f rows/s, Debezium %,.0f rows/s;"
          + " ratios %.2f, %.2f%n", run, sluiceFirst ? "Sluice" : "Debezium", rows, s, sl[1], sl[2], sl[3], sl[4], d, z,
          s / d, s / z);
      System.out.printf("snapshot run %d: control plane during the snapshot: Ready p99 %.1f ms, Handshake p99 %.1f ms"
          + " (snapshot still running at the last probe: %s); into memory %,.0f rows/s (%.2f x Debezium's); COPY into"
          + " the indexed table %,.0f rows/s (Sluice %.2f of it)%n", run, sl[5], sl[6], sl[7] > 0, m, m / z, x, s / x);
      System.out.printf("snapshot run %d: a hosted changefeed (initial_load snapshot) into PostgreSQL %,.0f rows/s (%.2f"
          + " of pg_dump | psql)%n", run, sl[9], sl[9] / d);
      return new double[] {rows, s, d, z, sl[1], sl[2], sl[3], sl[4], sl[5], sl[6], sl[7], m, x, sl[9]};
    }
  }

  /**
   * The loader's listener: {@code apply} each transaction, then acknowledge it on {@code handle[0]} (set once
   * subscribe returns; what the listener got before is acknowledged by the next); the snapshot's end or a failure
   * completes {@code outcome}.
   */
  private static ChangeListener loading(java.util.function.Consumer<Transaction> apply, SubscriptionHandle[] handle,
      CompletableFuture<SnapshotOutcome> outcome) {
    return new ChangeListener() {
      @Override
      public void onTransaction(Transaction txn) {
        apply.accept(txn);
        if (handle[0] != null) {
          handle[0].acknowledge(txn.checkpoint());
        }
      }

      @Override
      public void onSnapshotComplete(SnapshotOutcome o) {
        outcome.complete(o);
      }

      @Override
      public void onError(SluiceException error) {
        outcome.completeExceptionally(error);
      }
    };
  }

  /**
   * {rows/s, live p99 ms in its own process, live p99 ms in the loader's JVM, fsync p99 ms, fsync max ms, control
   * plane Ready p99 ms, Handshake p99 ms, 1 if the snapshot outlasted the control probes, rows/s of the snapshot into
   * memory before it}: one broker serves the snapshot into memory (the control-plane probe meanwhile), then the timed
   * snapshot into PostgreSQL (the live subscriptions measured meanwhile).
   */
  private double[] sluice(int run, SystemPostgres up, SystemPostgres down, long rows) throws Exception {
    down.exec("CREATE DATABASE sluice_target");
    Path dir = Files.createTempDirectory(work, "snapshot-broker-" + run);
    try (BrokerProcess broker = BrokerProcess.start("snapshot-broker-" + run, BrokerProcess.options(dir, up.jdbcUrl())
        .withJvmArgs(brokerJvmArgs()), logs)) {
      ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
      // the live dispatcher is another collector's (its own connection), as another changefeed's would be
      try (SluiceClient client = SluiceClient.connect(ClientConfig.of(broker.grpcAddress()).withCollectorId("live"));
           SluiceClient loader = SluiceClient.connect(loaderConfig(broker.grpcAddress()))) {
        long start = up.currentLsn();
        SubscriptionHandle[] handle = new SubscriptionHandle[1];
        handle[0] = client.subscribe(Subscription.table("public.e2e_live").from(start), new ChangeListener() {
          @Override
          public void onTransaction(Transaction txn) {
            java.time.Instant now = java.time.Instant.now();
            latencies.add(now.getEpochSecond() * 1_000_000 + now.getNano() / 1000 - txn.commitTimeMicros());
            handle[0].acknowledge(txn.checkpoint());
          }

          @Override
          public void onError(SluiceException error) {
            System.err.println("live subscription failed: " + error);
          }
        });
        handle[0].streaming().toCompletableFuture().get(60, TimeUnit.SECONDS);
        // and the same subscription in a process of its own: another application's, next to the loader's
        try (ChildJvm probe = ChildJvm.start("live-probe-" + run, LiveProbe.class, PROBE_JVM_ARGS,
            List.of(broker.grpcAddress(), "public.e2e_live", Long.toString(start)), logs)) {
          probe.awaitLine("STREAMING", Duration.ofSeconds(60));
          // first the same snapshot into memory (a counting listener: Debezium's output here, like for like), with
          // the control-plane probe running meanwhile; the broker then is what a running broker is, one that served
          // a snapshot before, when the timed snapshot into PostgreSQL starts
          double toMemory = Double.NaN;
          double[] control = {Double.NaN, Double.NaN, 0};
          if (phase("memory")) {
            AtomicLong read = new AtomicLong();
            CompletableFuture<SnapshotOutcome> counted = new CompletableFuture<>();
            SubscriptionHandle[] count = new SubscriptionHandle[1];
            long m0 = System.nanoTime();
            count[0] = loader.subscribe(Subscription.table(TABLE).from(up.currentLsn()).withSnapshot(),
                loading(txn -> read.addAndGet(txn.rows().size()), count, counted));
            control = controlPlaneDuringSnapshot(broker, client, start, counted, run);
            SnapshotOutcome o = counted.get(1, TimeUnit.HOURS);
            toMemory = rows / ((System.nanoTime() - m0) / 1e9);
            count[0].close();
            if (o.status() != SnapshotOutcome.Status.COMPLETE || read.get() != rows) {
              throw new IllegalStateException("the Sluice snapshot into memory ended " + o.status() + " with "
                  + read.get() + " rows of " + rows);
            }
          }
          TimeUnit.SECONDS.sleep(3);   // the live path settles before the clock starts
          latencies.clear();
          probe.command("RESET");
          probe.awaitLine("RESET done", Duration.ofSeconds(30));
          FsyncProbe fsync = FsyncProbe.start(dir);   // on the broker's filesystem: its capture forces each group
          long t0 = System.nanoTime();
          CompletableFuture<SnapshotOutcome> outcome = new CompletableFuture<>();
          try (JdbcUpsertSink sink = JdbcUpsertSink.open(JdbcSinkConfig.of("jdbc:postgresql://127.0.0.1:" + down.port()
              + "/sluice_target", "postgres", null, "snap"))) {
            SubscriptionHandle[] copy = new SubscriptionHandle[1];
            // the listener applies each chunk's READ rows and their checkpoint in one sink transaction
            Subscription wanted = Subscription.table(TABLE).from(up.currentLsn()).withSnapshot();
            copy[0] = loader.subscribe(wanted,
                loading(txn -> sink.apply(List.of(txn), txn.commitTs()), copy, outcome));
            SnapshotOutcome o = outcome.get(1, TimeUnit.HOURS);
            if (o.status() != SnapshotOutcome.Status.COMPLETE) {
              throw new IllegalStateException("the Sluice snapshot ended " + o.status() + ": " + o.reason());
            }
          }
          double seconds = (System.nanoTime() - t0) / 1e9;
          double fsyncP99 = fsync.percentileMs(99);
          double fsyncMax = fsync.maxMs();
          fsync.close();
          long copied = down.queryLong("sluice_target", "SELECT count(*) FROM " + TABLE);
          if (copied != rows) {
            throw new IllegalStateException("the Sluice snapshot copied " + copied + " rows of " + rows);
          }
          probe.command("REPORT");
          String[] report = probe.awaitLine("P99 ", Duration.ofSeconds(30)).split(" ");
          long[] nanos = latencies.stream().mapToLong(us -> us * 1000).toArray();
          double hosted = phase("hosted") ? hosted(broker, up, down, rows) : Double.NaN;
          return new double[] {rows / seconds, Double.parseDouble(report[0]), Stats.percentileNanosToMs(nanos, 99),
              fsyncP99, fsyncMax, control[0], control[1], control[2], toMemory, hosted};
        }
      }
    } finally {
      CaptureBench.deleteQuietly(dir);
    }
  }

  /**
   * Rows/s of the user's path for the same load: a changefeed the broker hosts ({@code POST /api/v1/changefeeds} with
   * {@code initial_load: snapshot}, the default) into another empty database of the downstream, timed from the POST
   * until {@code GET /api/v1/changefeeds/{id}} says its snapshot is {@code done} (polled every 100 ms): the library and
   * the JDBC sink in the broker's own process, no second JVM.
   */
  private double hosted(BrokerProcess broker, SystemPostgres up, SystemPostgres down, long rows) throws Exception {
    settle(up, down);
    down.exec("CREATE DATABASE sluice_hosted");
    dev.sluice.broker.cli.AdminClient admin = dev.sluice.broker.cli.AdminClient.of(broker.adminUrl());
    io.vertx.core.json.JsonObject body = new io.vertx.core.json.JsonObject().put("id", "bench-hosted")
        .put("include", new io.vertx.core.json.JsonArray().add(TABLE))
        .put("sink_uri", "jdbc:postgresql://127.0.0.1:" + down.port() + "/sluice_hosted?user=postgres")
        .put("initial_load", "snapshot");
    long t0 = System.nanoTime();
    dev.sluice.broker.cli.AdminClient.Response created = admin.send("POST", "/api/v1/changefeeds", body);
    if (created.status() != 201) {
      throw new IllegalStateException("the hosted changefeed was refused: " + created.body());
    }
    long deadline = t0 + TimeUnit.HOURS.toNanos(1);
    while (true) {
      io.vertx.core.json.JsonObject cf = new io.vertx.core.json.JsonObject(
          admin.send("GET", "/api/v1/changefeeds/bench-hosted", null).body());
      String state = cf.getJsonObject("snapshot", new io.vertx.core.json.JsonObject()).getString("state");
      if ("done".equals(state)) {
        break;
      }
      if ("FAILED".equals(cf.getString("state")) || "failed".equals(state) || System.nanoTime() > deadline) {
        throw new IllegalStateException("the hosted changefeed's snapshot did not complete: " + cf.encode());
      }
      TimeUnit.MILLISECONDS.sleep(100);   // a poll interval, as a user's would be: nothing here waits for an event
    }
    double rate = rows / ((System.nanoTime() - t0) / 1e9);
    long copied = down.queryLong("sluice_hosted", "SELECT count(*) FROM " + TABLE);
    admin.send("DELETE", "/api/v1/changefeeds/bench-hosted", null);
    if (copied != rows) {
      throw new IllegalStateException("the hosted changefeed copied " + copied + " rows of " + rows);
    }
    return rate;
  }

  /**
   * {Ready p99 ms, Handshake p99 ms, 1 if the snapshot still ran when the last probe ended}: {@link ControlProbe}'s
   * quiet round (a JVM of its own, sequential register+reset of fresh dispatchers on the live table) while the
   * snapshot runs.
   */
  private double[] controlPlaneDuringSnapshot(BrokerProcess broker, SluiceClient client, long start,
      CompletableFuture<SnapshotOutcome> outcome, int run) throws Exception {
    long table = client.tableSchema("public.e2e_live", 0).toCompletableFuture().get(30, TimeUnit.SECONDS)
        .getTableId();
    long[][] into = {new long[CONTROL_PROBES], new long[CONTROL_PROBES]};
    try (ChildJvm probe = ChildJvm.start("snapshot-control-probe-" + run, ControlProbe.class, List.of("-Xmx256m"),
        List.of(Integer.toString(broker.grpcPort()), Long.toString(table), Long.toString(start),
            Integer.toString(CONTROL_PROBES), "quiet"), logs)) {
      for (int i = 0; i < CONTROL_PROBES; i++) {
        String[] line = probe.awaitLine("PROBE ", Duration.ofMinutes(2)).split(" ");
        into[0][i] = Long.parseLong(line[1]);
        into[1][i] = Long.parseLong(line[2]);
      }
      probe.awaitLine("DONE", Duration.ofMinutes(1));
    }
    return new double[] {Stats.percentileNanosToMs(into[0], 99), Stats.percentileNanosToMs(into[1], 99),
        outcome.isDone() ? 0 : 1};
  }

  private static String oneDecimal(List<Double> values) {
    return values.stream().map(v -> String.format("%.1f", v)).toList().toString();
  }

  /**
   * Puts the machine back to the state the first phase found, so that no phase pays for the one before it: drops
   * the downstream databases and the upstream's inactive replication slots earlier phases left, checkpoints both
   * servers, writes the page cache's dirty pages to disk and collects this JVM's garbage. Without it, in the two
   * full runs of 2026-12-07, Sluice's two slowest runs of six (0.41 and 0.43M rows/s, against 0.42-0.58M) were
   * the two where it went last, after 10M rows written downstream by the phases before it.
   */
  private static void settle(SystemPostgres up, SystemPostgres down) throws Exception {
    for (String db : List.of("sluice_target", "dump_target", "indexed_target", "sluice_hosted")) {
      down.exec("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
    }
    up.exec("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE NOT active");
    up.exec("CHECKPOINT");
    down.exec("CHECKPOINT");
    run("sync", "sync");
    System.gc();
  }

  /** Whether phase {@code name} runs ({@link #phase}); when it does, the machine is settled for it first. */
  private static boolean ready(String name, SystemPostgres up, SystemPostgres down) throws Exception {
    if (!phase(name)) {
      return false;
    }
    settle(up, down);
    return true;
  }

  /** What {@link #sluice} returns when skipped: no figure. */
  private static final double[] SKIPPED_SLUICE = {Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
      Double.NaN, Double.NaN, 0, Double.NaN, Double.NaN};

  /**
   * Whether a phase runs: all of them, unless {@code -Dsluice.bench.snapshotPhases} lists some (sluice, memory, hosted,
   * dump, indexed, debezium), say only {@code sluice} when profiling it; a skipped phase's figures are NaN.
   */
  private static boolean phase(String name) {
    String only = System.getProperty("sluice.bench.snapshotPhases", "").trim();
    return only.isEmpty() || List.of(only.split("\\s*,\\s*")).contains(name);
  }

  /** The loader's client: the library's defaults, or {@code -Dsluice.bench.loaderQueueBytes} when profiling. */
  private static ClientConfig loaderConfig(String address) {
    ClientConfig c = ClientConfig.of(address).withCollectorId("loader");
    long queue = Long.getLong("sluice.bench.loaderQueueBytes", 0L);
    return queue > 0 ? c.withDispatcherQueueBytes(queue) : c;
  }

  /** -Xmx1g, plus {@code -Dsluice.bench.brokerJvmArgs} split at spaces (say a JFR recording when profiling). */
  private static List<String> brokerJvmArgs() {
    List<String> args = new ArrayList<>(List.of("-Xmx1g"));
    String extra = System.getProperty("sluice.bench.brokerJvmArgs", "").trim();
    if (!extra.isEmpty()) {
      args.addAll(List.of(extra.split("\\s+")));
    }
    return args;
  }

  /**
   * rows/s of {@code pg_dump -a -t TABLE | psql} into the same table created beforehand with its key: the
   * downstream's COPY into an indexed table, which any online load that upserts live changes meanwhile must do
   * (pg_dump builds the index once after its COPY, which an online load cannot). The ceiling of a sink's COPY.
   */
  private static double indexedCopy(SystemPostgres up, SystemPostgres down, long rows) throws Exception {
    down.exec("CREATE DATABASE indexed_target");
    Path data = Files.createTempFile("indexed-copy", ".sql");
    try {
      run("pg_dump -s | psql, pg_dump -a", String.format("set -o pipefail; '%1$s' -h 127.0.0.1 -p %2$d -U postgres -s"
          + " -t %3$s postgres | '%4$s' -h 127.0.0.1 -p %5$d -U postgres -q -v ON_ERROR_STOP=1 -o /dev/null"
          + " indexed_target && '%1$s' -h 127.0.0.1 -p %2$d -U postgres -a -t %3$s postgres > '%6$s'",
          up.bin("pg_dump"), up.port(), TABLE, down.bin("psql"), down.port(), data));
      long t0 = System.nanoTime();   // the COPY alone, the dump already on disk (in the page cache)
      run("psql < data", String.format("'%s' -h 127.0.0.1 -p %d -U postgres -q -v ON_ERROR_STOP=1 -o /dev/null"
          + " indexed_target < '%s'", down.bin("psql"), down.port(), data));
      double seconds = (System.nanoTime() - t0) / 1e9;
      long copied = down.queryLong("indexed_target", "SELECT count(*) FROM " + TABLE);
      if (copied != rows) {
        throw new IllegalStateException("the indexed COPY copied " + copied + " rows of " + rows);
      }
      return rows / seconds;
    } finally {
      Files.deleteIfExists(data);
    }
  }

  private static void run(String what, String cmd) throws Exception {
    Process p = new ProcessBuilder("bash", "-c", cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(1, TimeUnit.HOURS) || p.exitValue() != 0) {
      throw new IllegalStateException(what + " failed: " + out);
    }
  }

  /** rows/s of pg_dump -t TABLE | psql into an empty database. */
  private static double pgDump(SystemPostgres up, SystemPostgres down, long rows) throws Exception {
    down.exec("CREATE DATABASE dump_target");
    String cmd = String.format("set -o pipefail; '%s' -h 127.0.0.1 -p %d -U postgres -t %s postgres | '%s' -h 127.0.0.1"
        + " -p %d -U postgres -q -v ON_ERROR_STOP=1 -o /dev/null dump_target", up.bin("pg_dump"), up.port(), TABLE,
        down.bin("psql"), down.port());
    long t0 = System.nanoTime();
    run("pg_dump | psql", cmd);
    double seconds = (System.nanoTime() - t0) / 1e9;
    long copied = down.queryLong("dump_target", "SELECT count(*) FROM " + TABLE);
    if (copied != rows) {
      throw new IllegalStateException("pg_dump | psql copied " + copied + " rows of " + rows);
    }
    return rows / seconds;
  }

  /** rows/s of Debezium's initial snapshot of TABLE, engine start to its last READ record. */
  private double debezium(SystemPostgres up, long rows) throws Exception {
    up.exec("CREATE PUBLICATION dbz_snapshot FOR TABLE " + TABLE);
    Path dir = Files.createTempDirectory(work, "debezium-snapshot");
    Properties p = new Properties();
    p.setProperty("name", "bench-snapshot");
    p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
    p.setProperty("offset.flush.interval.ms", "10000");
    p.setProperty("database.hostname", "127.0.0.1");
    p.setProperty("database.port", Integer.toString(up.port()));
    p.setProperty("database.user", "postgres");
    p.setProperty("database.password", "");
    p.setProperty("database.dbname", "postgres");
    p.setProperty("topic.prefix", "bench");
    p.setProperty("plugin.name", "pgoutput");
    p.setProperty("slot.name", "bench_debezium_snapshot");
    p.setProperty("publication.name", "dbz_snapshot");
    p.setProperty("publication.autocreate.mode", "disabled");
    p.setProperty("table.include.list", TABLE);
    p.setProperty("snapshot.mode", "initial_only");
    p.setProperty("max.batch.size", "8192");
    p.setProperty("max.queue.size", "65536");
    p.setProperty("schema.history.internal", "io.debezium.relational.history.MemorySchemaHistory");
    AtomicLong reads = new AtomicLong();
    CountDownLatch all = new CountDownLatch(1);
    ExecutorService executor = Executors.newSingleThreadExecutor();
    long t0 = System.nanoTime();
    long end;
    try (DebeziumEngine<RecordChangeEvent<SourceRecord>> engine = DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
        .using(p)
        .notifying((records, committer) -> {
          for (RecordChangeEvent<SourceRecord> r : records) {
            SourceRecord sr = r.record();
            if (sr.value() instanceof Struct v && "r".equals(v.getString("op")) && reads.incrementAndGet() == rows) {
              all.countDown();
            }
            committer.markProcessed(r);
          }
          committer.markBatchFinished();
        })
        .build()) {
      executor.execute(engine);
      if (!all.await(1, TimeUnit.HOURS)) {
        throw new IllegalStateException("Debezium read " + reads.get() + " of " + rows + " rows within an hour");
      }
      end = System.nanoTime();
    } finally {
      executor.shutdown();
      executor.awaitTermination(60, TimeUnit.SECONDS);
      CaptureBench.deleteQuietly(dir);
    }
    return rows / ((end - t0) / 1e9);
  }

  private static void write(SystemPostgres up, int writer, AtomicBoolean writing) {
    String sql = "INSERT INTO public.e2e_live SELECT ? + g, repeat('p', 80) FROM generate_series(0, 9) g";
    long pauseNanos = 1_000_000_000L / 100;
    try (Connection c = up.connect(); PreparedStatement ps = c.prepareStatement(sql)) {
      long id = (long) writer << 40;
      long next = System.nanoTime();
      while (writing.get()) {
        ps.setLong(1, id);
        id += 10;
        ps.executeUpdate();
        next += pauseNanos;
        long wait = next - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);   // pacing of the load generator
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("live writer failed", e);
    }
  }
}
