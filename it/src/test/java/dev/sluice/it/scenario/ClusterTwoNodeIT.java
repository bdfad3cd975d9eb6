package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.cli.AdminClient;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.it.LoopbackCluster;
import dev.sluice.it.workload.BankWorkload;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Full tier: a cluster of two nodes has no CP quorum (the CP subsystem needs three members), so, as
 * docs/CLUSTER.md states, it refuses to schedule changefeeds while both nodes serve dispatchers.
 *
 * <p>Asserted: both nodes list both members SERVING, no coordinator, phase NO_QUORUM naming the three
 * members it needs; a create is 503 NO_QUORUM; a dispatcher that knows both nodes streams, and after a
 * kill -9 of the node it streams from it resumes on the other with the bank sum intact at every
 * resolved ts.
 */
@EnabledIfSystemProperty(named = "it.tier", matches = "full")
class ClusterTwoNodeIT {

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  @Test
  void twoNodesServeDispatchersAndFailOverButRefuseToScheduleChangefeeds() throws Exception {
    try (LoopbackCluster rig = LoopbackCluster.start(logs::data, logs.dir(), 2)) {
      await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).until(() -> rig.nodes.stream()
          .allMatch(n -> n.states().size() == 2 && n.states().values().stream().allMatch("SERVING"::equals)));
      for (LoopbackCluster.Node n : rig.nodes) {
        JsonObject m = n.members();
        assertThat(m.getString("coordinator_node_id")).isNull();
        assertThat(m.getJsonObject("coordinator").getString("phase")).isEqualTo("NO_QUORUM");
        assertThat(m.getJsonObject("coordinator").getString("detail")).contains("3 members");
      }
      AdminClient.Response refused = rig.nodes.get(1).admin.send("POST", "/api/v1/changefeeds", new JsonObject()
          .put("id", "cf").put("include", new JsonArray().add("public.*"))
          .put("sink_uri", rig.downstream.jdbcUrl() + "?user=postgres"));
      assertThat(refused.status()).as(refused.body()).isEqualTo(503);
      assertThat(refused.json().getString("code")).isEqualTo("NO_QUORUM");
      assertThat(refused.json().getString("message")).contains("3 members");

      BankWorkload bank = BankWorkload.create(rig.upstream, 20);
      long startTs = rig.upstream.currentLsn();
      await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(() -> rig.knowTable(BankWorkload.TABLE));
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      try (SluiceClient client = SluiceClient.connect(ClientConfig.of(rig.grpcAddresses().toArray(String[]::new))
          .withCollectorId("two-node-observer"), meters)) {
        ReplicaListener l = new ReplicaListener(BankWorkload.TABLE, startTs, "balance");
        for (long id = 0; id < 20; id++) {
          l.rows.put(id, BankWorkload.INITIAL_BALANCE);
        }
        l.onResolvedCheck = ts -> {
          long sum = l.rows.values().stream().mapToLong(Long::longValue).sum();
          if (sum != bank.total()) {
            l.violation("sum " + sum + " at resolved ts " + ts);
          }
        };
        l.handle = client.subscribe(Subscription.table(BankWorkload.TABLE).from(startTs), l);
        l.handle.streaming().toCompletableFuture().get(60, TimeUnit.SECONDS);
        bank.start(2);
        await().atMost(Duration.ofMinutes(1)).until(() -> l.transactions.get() > 20);
        String connected = client.connectedBroker();
        LoopbackCluster.Node victim = rig.nodes.stream().filter(n -> connected != null && connected.startsWith(n.id + "@"))
            .findFirst().orElseThrow();
        victim.broker.kill9();
        long afterKill = rig.upstream.currentLsn();
        await().atMost(Duration.ofMinutes(1)).until(() -> l.resolvedTs() > afterKill);
        bank.stop();
        assertThat(client.connectedBroker()).doesNotStartWith(victim.id + "@");
        assertThat(l.violations()).isEmpty();
        assertThat(Resets.unexpected(meters)).isEmpty();
      }
    }
  }
}
