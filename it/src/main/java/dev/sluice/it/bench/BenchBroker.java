package dev.sluice.it.bench;

import dev.sluice.broker.NodeIdentity;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.server.EventService;
import dev.sluice.broker.store.EventStoreConfig;
import dev.sluice.broker.store.RocksEventStore;
import dev.sluice.schema.RocksSchemaStore;
import dev.sluice.schema.SchemaStoreConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The broker side of the event-service benchmarks, in its own JVM: real stores preloaded with
 * synthetic tables, the real event service on a free port, heartbeats every 200 ms like an idle
 * upstream, and a stdin command protocol for the harness.
 *
 * <pre>
 * java -cp ... dev.sluice.it.bench.BenchBroker DIR TABLES ROWS_PER_TABLE ROW_BYTES TXN_ROWS [LOADED_TABLES]
 * stdout: READY &lt;port&gt; &lt;lastTs&gt;
 * stdin:  HEAP            -> HEAP &lt;bytes used after GC&gt;
 *         INSERT t rows   -> INSERTED &lt;commitTs&gt;
 *         RESOLVED        -> RESOLVED &lt;ts&gt;
 * </pre>
 */
public final class BenchBroker {

  private BenchBroker() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int tables = Integer.parseInt(args[1]);
    int rowsPerTable = Integer.parseInt(args[2]);
    int rowBytes = Integer.parseInt(args[3]);
    int txnRows = Integer.parseInt(args[4]);
    int loadedTables = args.length > 5 ? Integer.parseInt(args[5]) : tables;   // the others start empty
    var meters = new SimpleMeterRegistry();
    RocksEventStore events = RocksEventStore.open(EventStoreConfig.defaults(dir.resolve("events")), meters);
    RocksSchemaStore schema = RocksSchemaStore.open(SchemaStoreConfig.at(dir.resolve("schema")), meters);
    SyntheticSource source = new SyntheticSource(events, schema);
    Object writer = new Object();
    for (int t = 1; t <= tables; t++) {
      source.createTable(t);
    }
    for (int t = 1; t <= loadedTables; t++) {
      for (int done = 0; done < rowsPerTable; done += txnRows) {
        source.insert(t, Math.min(txnRows, rowsPerTable - done), rowBytes, false);
      }
    }
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(4));
    EventService service = EventService.start(vertx, EventServiceConfig.defaults(),
        NodeIdentity.fresh("bench", null, null), "127.0.0.1", 0, events, schema, meters).await(60, TimeUnit.SECONDS);
    ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor();
    heartbeats.scheduleAtFixedRate(() -> {
      synchronized (writer) {
        source.heartbeat();
      }
    }, 200, 200, TimeUnit.MILLISECONDS);
    System.out.println("READY " + service.port() + " " + source.lastTs());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] w = line.trim().split("\\s+");
      switch (w[0]) {
        case "HEAP" -> {
          for (int i = 0; i < 3; i++) {
            System.gc();
          }
          System.out.println("HEAP " + ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        case "INSERT" -> {
          long ts;
          synchronized (writer) {
            ts = source.insert(Long.parseLong(w[1]), Integer.parseInt(w[2]), rowBytes, false);
          }
          System.out.println("INSERTED " + ts);
        }
        case "RESOLVED" -> System.out.println("RESOLVED " + events.resolvedTs());
        case "TIMERS" -> {
          var timers = new java.util.ArrayList<io.micrometer.core.instrument.Timer>();
          timers.addAll(meters.find("sluice.control.request.latency").timers());
          timers.addAll(meters.find("sluice.control.inbox.wait").timers());
          timers.addAll(meters.find("sluice.streams.control.wait").timers());
          timers.addAll(meters.find("sluice.control.handshake.latency").timers());
          for (var t : timers) {
            System.out.printf("TIMER %s %s count=%d total=%.3fms mean=%.3fms max=%.3fms%n", t.getId().getName(),
                t.getId().getTags(), t.count(), t.totalTime(TimeUnit.MILLISECONDS), t.mean(TimeUnit.MILLISECONDS),
                t.max(TimeUnit.MILLISECONDS));
          }
          System.out.println("TIMERS END");
        }
        case "EXIT" -> {
          heartbeats.shutdownNow();
          service.close().await(30, TimeUnit.SECONDS);
          vertx.close().await(30, TimeUnit.SECONDS);
          events.close();
          schema.close();
          System.exit(0);
        }
        default -> System.out.println("UNKNOWN " + line);
      }
    }
    System.exit(0);
  }
}
