package dev.sluice.it.bench;

import dev.sluice.api.error.SluiceException;
import dev.sluice.broker.cli.AdminClient;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.it.LoopbackCluster;
import dev.sluice.it.workload.CounterWorkload;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Failover of a three-node cluster, over {@code kills} kill -9s of a changefeed's owner: how long from a
 * member's death until (a) the hosted changefeed applies again on another member (the downstream sink
 * holds a higher fencing token and its checkpoint moved after the new owner claimed it), and (b) a
 * dispatcher that streamed from the dead member streams again from another one (its first delivery after
 * the collector was welcomed elsewhere). Each kill hits the changefeed's owner, which is also the first
 * address of that round's dispatcher; after each kill the node is restarted and the cluster is whole
 * again (the CP subsystem promoted it) before the next one. A paced counter workload (200 transactions/s)
 * runs throughout.
 *
 * <pre>
 * scripts/bench.sh full cluster-failover
 * </pre>
 */
final class ClusterFailoverBench {

  private static final String CF = "bench-failover";
  private static final Duration FORM_TIMEOUT = Duration.ofMinutes(3);

  private final Path work;
  private final Path logs;

  ClusterFailoverBench(Path work, Path logs) {
    this.work = work;
    this.logs = logs;
  }

  List<Figure> run(int kills) throws Exception {
    Path dir = Files.createTempDirectory(work, "cluster");
    List<Double> changefeedMs = new ArrayList<>();
    List<Double> collectorMs = new ArrayList<>();
    try (LoopbackCluster rig = LoopbackCluster.start(dir::resolve, logs, 3)) {
      awaitTrue(rig::formed, FORM_TIMEOUT, "the cluster did not form");
      long startTs = rig.upstream.currentLsn();
      CounterWorkload counters = CounterWorkload.create(rig.upstream, 50);
      AdminClient.Response created = rig.nodes.get(0).admin.send("POST", "/api/v1/changefeeds", new JsonObject()
          .put("id", CF).put("include", new JsonArray().add(CounterWorkload.TABLE)).put("start_ts", startTs)
          .put("sink_uri", rig.downstream.jdbcUrl() + "?user=postgres"));
      if (created.status() != 201) {
        throw new IllegalStateException("changefeed not created: " + created.body());
      }
      counters.paced(200).start(1);
      try {
        for (int k = 1; k <= kills; k++) {
          awaitTrue(rig::formed, FORM_TIMEOUT, "the cluster did not heal before kill " + k);
          awaitTrue(() -> rig.owner(CF).isPresent() && checkpoint(rig) > startTs, Duration.ofMinutes(2),
              "the changefeed is not applying before kill " + k);
          LoopbackCluster.Node owner = rig.node(rig.owner(CF).orElseThrow());
          List<String> addresses = new ArrayList<>();
          addresses.add(owner.grpcProxy.address());
          rig.nodes.stream().filter(n -> n != owner).forEach(n -> addresses.add(n.grpcProxy.address()));
          try (SluiceClient client = SluiceClient.connect(ClientConfig.of(addresses.toArray(String[]::new))
              .withCollectorId("failover-bench-" + k))) {
            Deliveries deliveries = new Deliveries();
            deliveries.handle = client.subscribe(Subscription.table(CounterWorkload.TABLE)
                .from(rig.upstream.currentLsn()), deliveries);
            deliveries.handle.streaming().toCompletableFuture().get(60, TimeUnit.SECONDS);
            awaitTrue(() -> client.connectedBroker() != null && client.connectedBroker().startsWith(owner.id + "@"),
                Duration.ofSeconds(30), "the dispatcher is not on the owner " + owner.id);
            long oldToken = token(rig);
            long killed = System.nanoTime();
            owner.broker.kill9();
            long welcomedElsewhere = 0;
            long collectorAt = 0;
            long changefeedAt = 0;
            long claimedCheckpoint = -1;
            long deadline = killed + Duration.ofMinutes(2).toNanos();
            while ((collectorAt == 0 || changefeedAt == 0) && System.nanoTime() < deadline) {
              String at = client.connectedBroker();
              if (welcomedElsewhere == 0 && at != null && !at.startsWith(owner.id + "@")) {
                welcomedElsewhere = System.nanoTime();
              }
              if (collectorAt == 0 && welcomedElsewhere > 0 && deliveries.lastNanos.get() > welcomedElsewhere) {
                collectorAt = deliveries.lastNanos.get();
              }
              if (changefeedAt == 0) {
                long[] fc = fenceAndCheckpoint(rig);
                if (fc[0] > oldToken) {
                  if (claimedCheckpoint < 0) {
                    claimedCheckpoint = fc[1];
                  } else if (fc[1] > claimedCheckpoint) {
                    changefeedAt = System.nanoTime();
                  }
                }
              }
              LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));   // sampling interval of the measurement
            }
            if (collectorAt == 0 || changefeedAt == 0) {
              throw new IllegalStateException("kill " + k + " of " + owner.id + ": no failover within 2 min (collector "
                  + (collectorAt > 0) + ", changefeed " + (changefeedAt > 0) + ")");
            }
            changefeedMs.add((changefeedAt - killed) / 1e6);
            collectorMs.add((collectorAt - killed) / 1e6);
            System.out.printf("cluster failover %d/%d: %s killed; changefeed applying again after %.0f ms, dispatcher"
                + " streaming again after %.0f ms%n", k, kills, owner.id, changefeedMs.get(k - 1), collectorMs.get(k - 1));
          }
          owner.broker.restart();
        }
      } finally {
        counters.stop();
        closeProbe();
      }
    }
    double[] cf = changefeedMs.stream().mapToDouble(Double::doubleValue).toArray();
    double[] co = collectorMs.stream().mapToDouble(Double::doubleValue).toArray();
    String how = kills + " kill -9s of the changefeed's owner in a 3-node loopback cluster (each node restarted and"
        + " the CP subsystem whole again before the next); samples every 10 ms";
    return List.of(
        new Figure("cluster_changefeed_failover_p50_ms", "member death -> hosted changefeed applying on another member, p50",
            Stats.percentile(cf, 50), "ms", Double.NaN, false, Double.NaN, kills, how),
        new Figure("cluster_changefeed_failover_p99_ms", "member death -> hosted changefeed applying on another member, p99",
            Stats.percentile(cf, 99), "ms", 5_000, false, Double.NaN, kills, how),
        new Figure("cluster_collector_failover_p50_ms", "member death -> dispatcher streaming from another member, p50",
            Stats.percentile(co, 50), "ms", Double.NaN, false, Double.NaN, kills, how),
        new Figure("cluster_collector_failover_p99_ms", "member death -> dispatcher streaming from another member, p99",
            Stats.percentile(co, 99), "ms", 2_000, false, Double.NaN, kills, how));
  }

  /** Records when the listener last got something (a transaction or a resolved ts). */
  private static final class Deliveries implements ChangeListener {
    final AtomicLong lastNanos = new AtomicLong();
    volatile SubscriptionHandle handle;

    @Override
    public void onTransaction(Transaction txn) {
      lastNanos.set(System.nanoTime());
      handle.acknowledge(txn.checkpoint());
    }

    @Override
    public void onResolved(long ts) {
      lastNanos.set(System.nanoTime());
      handle.acknowledge(ts);
    }

    @Override
    public void onError(SluiceException error) {
      System.out.println("failover bench: subscription failed: " + error);
    }
  }

  private static long token(LoopbackCluster rig) {
    return fenceAndCheckpoint(rig)[0];
  }

  private static long checkpoint(LoopbackCluster rig) {
    return fenceAndCheckpoint(rig)[1];
  }

  /** The sampling loop's one connection to the downstream (a new one per 10 ms sample loaded the 2 cores). */
  private static Connection probe;

  /** {fence token, checkpoint ts} the downstream holds for the changefeed. */
  private static long[] fenceAndCheckpoint(LoopbackCluster rig) {
    try {
      if (probe == null || probe.isClosed()) {
        probe = rig.downstream.connect();
      }
      try (Statement s = probe.createStatement();
           ResultSet rs = s.executeQuery("SELECT (SELECT fence_token FROM sluice_fence WHERE changefeed_id = '" + CF
               + "'), (SELECT checkpoint_ts FROM sluice_checkpoint WHERE changefeed_id = '" + CF + "')")) {
        rs.next();
        return new long[] {rs.getLong(1), rs.getLong(2)};
      }
    } catch (java.sql.SQLException e) {
      closeProbe();
      return new long[] {0, 0};   // the sink has not created its tables yet
    }
  }

  private static void closeProbe() {
    try {
      if (probe != null) {
        probe.close();
      }
    } catch (java.sql.SQLException ignored) {
      // closing a broken probe connection: nothing to keep
    } finally {
      probe = null;
    }
  }

  private static void awaitTrue(java.util.function.BooleanSupplier condition, Duration timeout, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(what + " within " + timeout);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
    }
  }
}
