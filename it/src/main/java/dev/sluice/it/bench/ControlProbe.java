package dev.sluice.it.bench;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.concurrent.TimeUnit;

/**
 * The control-plane latency probe in its own JVM, so the load collectors' parsing and garbage do not
 * delay what it measures: sequential register+reset of fresh dispatchers, each timed from sending the
 * request to receiving Ready and Handshake. {@code quiet}: the probe's dispatchers report no credit, so
 * its stream carries only control messages and watermarks; {@code busy}: each reports credit at its
 * handshake and catches up on the probe's stream, so later Readys and Handshakes queue behind that data.
 *
 * <pre>
 * java -cp ... dev.sluice.it.bench.ControlProbe PORT TABLE START_TS PROBES quiet|busy
 * stdout: PROBE &lt;i&gt; &lt;readyNanos&gt; &lt;handshakeNanos&gt; ... then DONE
 * </pre>
 */
public final class ControlProbe {

  private ControlProbe() {}

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    long table = Long.parseLong(args[1]);
    long startTs = Long.parseLong(args[2]);
    int probes = Integer.parseInt(args[3]);
    boolean busy = args[4].equals("busy");
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    BenchCollector probe = new BenchCollector(vertx, port, "probe-" + args[4], false, busy);
    // a few unmeasured rounds warm the JIT of both ends
    for (int i = -10; i < probes; i++) {
      DispatcherId id = DispatcherId.random();
      probe.subscribe(id, TableSpan.wholeTable(table), startTs);
      BenchCollector.Stream s;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      do {
        java.util.concurrent.locks.LockSupport.parkNanos(100_000); // a poll interval of the probe, not a wait for time
        s = probe.snapshot(id);
      } while ((s.readyNanos == 0 || s.handshakeNanos == 0) && System.nanoTime() < deadline);
      if (s.readyNanos == 0 || s.handshakeNanos == 0) {
        System.out.println("FAILED probe " + i + " got no Ready/Handshake within 30 s");
        System.exit(1);
      }
      if (i >= 0) {
        System.out.println("PROBE " + i + " " + (s.readyNanos - s.registerSentNanos) + " "
            + (s.handshakeNanos - s.resetSentNanos));
      }
    }
    System.out.println("DONE");
    probe.close();
    vertx.close().await(10, TimeUnit.SECONDS);
    System.exit(0);
  }
}
