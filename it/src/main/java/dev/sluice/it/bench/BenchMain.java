package dev.sluice.it.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Entry point of {@code make bench} / {@code make bench-quick} ({@code scripts/bench.sh}): runs the
 * end-to-end benchmarks and writes their figures into {@code docs/BENCHMARKS.md} (one section per
 * benchmark, plus a summary of every figure) and {@code docs/benchmarks.json} (one object per figure,
 * merged by id).
 *
 * <pre>
 * java -cp "$(cat it/target/bench.classpath):it/target/classes" dev.sluice.it.bench.BenchMain \
 *     --mode quick --docs docs --only capture,e2e,catchup,stalled-sink,event-service
 * </pre>
 * Benchmarks: {@code capture} (Sluice vs the raw pgoutput read and Debezium; needs the Maven profile
 * {@code bench}), {@code snapshot} (Sluice's snapshot vs pg_dump | psql and Debezium's initial snapshot; profile
 * {@code bench} too), {@code e2e}, {@code catchup}, {@code stalled-sink}, {@code apply-mode}, {@code event-service}
 * (= {@code fanout}, {@code control-plane}, {@code idle-scale}), {@code cluster-failover}; {@code all} runs every
 * one.
 */
public final class BenchMain {

  private static final List<String> ALL = List.of("capture", "snapshot", "e2e", "catchup", "stalled-sink", "apply-mode",
      "fanout", "control-plane", "idle-scale", "cluster-failover");

  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    List<String> a = Arrays.asList(args);
    String mode = value(a, "--mode", "full");
    Path docs = Path.of(value(a, "--docs", "docs"));
    Set<String> only = expand(value(a, "--only", "all"));
    boolean quick = mode.equals("quick");
    Path work = Files.createDirectories(Path.of(value(a, "--work", "it/target/bench")));
    Path logs = Files.createDirectories(work.resolve("logs"));
    String command = quick ? "make bench-quick" : "make bench";
    BenchReport report = new BenchReport(docs, mode, command);
    int runs = quick ? 1 : 3;
    long started = System.nanoTime();

    if (only.contains("capture")) {
      report.write("## Capture: Sluice vs the raw read and Debezium (it/ harness)", capture(work, runs, quick), """
          Three readers run in the harness JVM, one after the other, each from its own slot over the same WAL;
          PostgreSQL runs beside them on the same 2 cores. The raw reader only counts pgoutput row messages: it is
          the physical limit of any capture here, so `capture_vs_raw*` (target 0.9) says how close Sluice comes to
          what PostgreSQL delivers. Over loopback TCP the walsender's one `send()` per message bounds every reader,
          the raw one included, so there `capture_vs_debezium` measures PostgreSQL more than Sluice: it has no
          target and `raw_vs_debezium` beside it says the most any capture could reach; over the Unix-domain socket
          `capture_vs_debezium_unix_socket` keeps its target of 3. Two WALs: the whole pgbench WAL (`pgbench -i`
          after the slots, so its COPY of the accounts is one large transaction, then the run) and the run's
          two-row transactions alone, each over TCP and over the socket (Debezium reads all but the last). Each rate
          runs from the moment its reader streams to the marker row: Sluice counts a transaction's rows at its
          commit, so a first-row clock would leave out the walsender's replay of the large transaction. Sluice's
          figure includes making every batch durable (synced RocksDB writes) before confirming the flush LSN; the
          raw reader and Debezium (in-memory offsets, Connect-format records) do no durable work.""");
    }
    if (only.contains("snapshot")) {
      report.write("## Snapshot: Sluice vs pg_dump | psql and Debezium (it/ harness)", snapshot(work, logs,
          quick ? 1 : 3, Integer.getInteger("sluice.bench.snapshotScale", quick ? 2 : 50)), """
          A client library subscription with a snapshot copies `pgbench_accounts` through the JDBC sink
          (`JdbcUpsertSink`: each chunk's READ rows by COPY, with the sink's checkpoint) into an empty downstream
          database, the path a hosted changefeed with `initial_load: snapshot` takes. The peers copy the same table in the same
          run. The upstream and downstream are PostgreSQL of the machine's installation (its `pg_dump` refuses a
          newer server), sharing the 2 cores with the broker, the harness and the peers. The live figure is a second table's stream while the snapshot runs.""");
    }
    if (only.contains("e2e")) {
      report.write("## End-to-end latency (it/ harness)", new EndToEndLatencyBench(work, logs)
          .run(quick ? Duration.ofSeconds(15) : Duration.ofSeconds(60), quick ? Duration.ofSeconds(5) : Duration.ofSeconds(10)),
          """
          The broker, PostgreSQL and the harness (writers and the dispatcher) share the machine's cores. The
          latency includes capture (decode, group commit with fsync), the store notification, the scan, gRPC and
          the library's transaction assembly and listener hand-off.""");
    }
    if (only.contains("catchup")) {
      report.write("## Catch-up (it/ harness)", new CatchUpBench(work, logs)
          .run(quick ? 1_000_000 : 10_000_000, runs, quick ? Duration.ofSeconds(5) : Duration.ofSeconds(10)), """
          The store is preloaded synthetically (`BenchBroker`, the rows and time marks capture would write), so the
          figure measures the event service, not capture. The raw iteration is the ceiling of any reader of this
          store: one RocksIterator pass copying keys and values, no decoding, no network.""");
    }
    if (only.contains("stalled-sink")) {
      report.write("## Stalled sink (it/ harness)", new StalledSinkBench(work, logs)
          .run(quick ? Duration.ofSeconds(10) : Duration.ofSeconds(60)), """
          Scenario 6 of the integration suite (`SlowConsumerIT`) as a measurement.""");
    }
    if (only.contains("apply-mode")) {
      report.write("## Changefeed apply modes (it/ harness)", new ApplyModeBench(work, logs)
          .run(quick ? 3_000 : 20_000, runs), """
          Issue #16's two apply modes on the same captured load: `transaction` (the default) merges the tables'
          streams and applies each upstream transaction whole in commit order, one target transaction per batch;
          `table` applies each table's transactions as they arrive. One applier thread and one JDBC connection in
          both.""");
    }
    List<Figure> es = new ArrayList<>();
    if (only.contains("fanout") || only.contains("control-plane") || only.contains("idle-scale")) {
      EventServiceBench bench = new EventServiceBench(work, logs, quick);
      if (only.contains("fanout")) {
        es.add(bench.fanOut(1, 1, quick ? 300_000 : 2_000_000, runs));
        es.add(bench.fanOut(100, 10, quick ? 5_000 : 50_000, runs));
        es.add(bench.fanOut(10_000, 100, quick ? 100 : 1_000, runs));
      }
      if (only.contains("control-plane")) {
        es.addAll(bench.controlPlaneLatency(quick ? 2_000 : 10_000, 100, quick ? 4_000 : 10_000, quick ? 50 : 200,
            runs));
      }
      if (only.contains("idle-scale")) {
        es.addAll(bench.idleScale(quick ? 20_000 : 100_000, 100));
      }
      report.write("## Event service (end to end, it/ harness)", es, """
          The broker runs in its own JVM (`BenchBroker`: real RocksDB stores preloaded with synthetic rows, the
          real event service) and the collectors in the harness JVM, over loopback gRPC; both share the 2 cores.
          Collectors parse every message, as a consumer must. Quick mode (`make bench-quick`) uses smaller
          workloads and one run; its figures are for regressions, not for the targets.""");
    }
    if (only.contains("cluster-failover")) {
      report.write("## Cluster failover (it/ harness)", new ClusterFailoverBench(work, logs).run(quick ? 3 : 20), """
          Three broker processes, both PostgreSQL servers and the harness share the 2 cores; the cluster's
          connections and the collectors go through the harness's loopback fault proxies. The changefeed figure
          includes the member's removal (its connections are refused at once), the dead coordinator's CP session
          closed by the survivors, a Raft leader election when the dead node led the CP group, the new owner's
          sink claiming its token and its first transaction; the dispatcher figure includes the move to the next member (0-50 ms of jitter),
          the Welcome, REGISTER, Ready, RESET and the first delivery. Quick mode: 3 kills.""");
    }
    report.writeSummary(Duration.ofNanos(System.nanoTime() - started), only.containsAll(ALL));
    System.exit(0);
  }

  private static List<Figure> capture(Path work, int runs, boolean quick) throws Exception {
    Object bench;
    try {
      bench = Class.forName("dev.sluice.it.bench.CaptureBench").getConstructor(Path.class)
          .newInstance(work);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("the capture benchmark needs Debezium: build it/ with the Maven profile 'bench'"
          + " (scripts/bench.sh does)", e);
    }
    @SuppressWarnings("unchecked")
    List<Figure> figures = (List<Figure>) bench.getClass().getMethod("run", int.class, int.class, int.class, int.class)
        .invoke(bench, runs, quick ? 1 : 10, quick ? 10 : 30, 4);
    return figures;
  }

  private static List<Figure> snapshot(Path work, Path logs, int runs, int scale) throws Exception {
    Object bench;
    try {
      bench = Class.forName("dev.sluice.it.bench.SnapshotBench").getConstructor(Path.class, Path.class)
          .newInstance(work, logs);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("the snapshot benchmark needs Debezium: build it/ with the Maven profile 'bench'"
          + " (scripts/bench.sh does)", e);
    }
    @SuppressWarnings("unchecked")
    List<Figure> figures = (List<Figure>) bench.getClass().getMethod("run", int.class, int.class)
        .invoke(bench, runs, scale);
    return figures;
  }

  private static Set<String> expand(String only) {
    Set<String> out = new LinkedHashSet<>();
    for (String w : only.split(",")) {
      switch (w.trim()) {
        case "all" -> out.addAll(ALL);
        case "event-service" -> out.addAll(List.of("fanout", "control-plane", "idle-scale"));
        default -> {
          if (!ALL.contains(w.trim())) {
            throw new IllegalArgumentException("unknown benchmark '" + w + "'; known: all, event-service, " + ALL);
          }
          out.add(w.trim());
        }
      }
    }
    return out;
  }

  private static String value(List<String> args, String key, String dflt) {
    int i = args.indexOf(key);
    return i >= 0 && i + 1 < args.size() ? args.get(i + 1) : dflt;
  }
}
