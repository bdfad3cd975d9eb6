package dev.sluice.it.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Entry point of {@code make bench} / {@code make bench-quick}: runs the end-to-end benchmarks and
 * writes their figures into {@code docs/BENCHMARKS.md} and {@code docs/benchmarks.json}.
 *
 * <pre>
 * java -cp "$(cat it/target/bench.classpath):it/target/classes" dev.sluice.it.bench.BenchMain \
 *     --mode quick --docs docs --only event-service
 * </pre>
 */
public final class BenchMain {

  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    List<String> a = Arrays.asList(args);
    String mode = value(a, "--mode", "full");
    Path docs = Path.of(value(a, "--docs", "docs"));
    Set<String> only = Set.of(value(a, "--only", "event-service").split(","));
    boolean quick = mode.equals("quick");
    Path work = Files.createDirectories(Path.of(value(a, "--work", "it/target/bench")));
    Path logs = Files.createDirectories(work.resolve("logs"));
    String command = quick ? "make bench-quick" : "make bench";
    BenchReport report = new BenchReport(docs, mode, command);

    boolean all = only.contains("event-service");
    if (all || only.contains("fanout") || only.contains("control-plane") || only.contains("idle-scale")) {
      EventServiceBench es = new EventServiceBench(work, logs, quick);
      List<Figure> figures = new ArrayList<>();
      int runs = quick ? 1 : 3;
      if (all || only.contains("fanout")) {
        figures.add(es.fanOut(1, 1, quick ? 300_000 : 2_000_000, runs));
        figures.add(es.fanOut(100, 10, quick ? 5_000 : 50_000, runs));
        figures.add(es.fanOut(10_000, 100, quick ? 100 : 1_000, runs));
      }
      if (all || only.contains("control-plane")) {
        figures.addAll(es.controlPlaneLatency(quick ? 2_000 : 10_000, 100, quick ? 2_000 : 5_000, quick ? 50 : 200));
      }
      if (all || only.contains("idle-scale")) {
        figures.addAll(es.idleScale(quick ? 20_000 : 100_000, 100));
      }
      report.write("## Event service (end to end, it/ harness)", figures, """
          The broker runs in its own JVM (`BenchBroker`: real RocksDB stores preloaded with synthetic rows, the
          real event service) and the collectors in the harness JVM, over loopback gRPC; both share the 2 cores.
          Collectors parse every message, as a consumer must. Quick mode (`make bench-quick`) uses smaller
          workloads and one run; its figures are for regressions, not for the targets.""");
    }
    System.exit(0);
  }

  private static String value(List<String> args, String key, String dflt) {
    int i = args.indexOf(key);
    return i >= 0 && i + 1 < args.size() ? args.get(i + 1) : dflt;
  }
}
