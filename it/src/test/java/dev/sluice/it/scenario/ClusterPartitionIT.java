package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.LoopbackCluster;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Full tier: the coordinator, which also hosts a changefeed, is cut off from the other two nodes for
 * 30 s (its cluster connections both ways and its gRPC port, through the fault proxies) while it keeps
 * running and still reaches both databases ({@link ClusterLoad} runs throughout).
 *
 * <p>Asserted: the other two elect a new coordinator and move the cut-off node's changefeed to one of
 * them with a higher token; the cut-off node's runtime keeps going until the sink refuses its writes
 * (its own log and its {@code sluice_changefeed_fenced_out_total} say so); nothing is applied twice;
 * once the cut heals the node is a SERVING member again, the CP subsystem whole, one coordinator.
 */
@EnabledIfSystemProperty(named = "it.tier", matches = "full")
class ClusterPartitionIT {

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  @Test
  void aCutOffCoordinatorIsReplacedItsWritesAreFencedAndItRejoinsWhenTheCutHeals() throws Exception {
    try (LoopbackCluster rig = LoopbackCluster.start(logs::data, logs.dir(), 3)) {
      await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).until(rig::formed);
      try (ClusterLoad load = ClusterLoad.start(rig)) {
        // balanced: one changefeed per node, so the coordinator hosts one
        await().atMost(Duration.ofMinutes(2)).until(() -> rig.alive().stream()
            .allMatch(n -> rig.alive().get(0).members().getJsonArray("members").stream()
                .map(o -> (JsonObject) o).filter(m -> m.getString("node_id").equals(n.id))
                .allMatch(m -> m.getJsonObject("changefeeds").size() == 1)));
        LoopbackCluster.Node cut = rig.coordinator().orElseThrow();
        String hosted = ClusterLoad.CHANGEFEEDS.stream().filter(cf -> rig.owner(cf).filter(cut.id::equals).isPresent())
            .findFirst().orElseThrow();
        long oldToken = rig.token(hosted);
        LoopbackCluster.Node witness = rig.nodes.stream().filter(n -> n != cut).findFirst().orElseThrow();

        rig.isolate(cut);
        long cutAt = System.nanoTime();
        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(() -> {
          JsonObject m = witness.members();
          Optional<String> owner = owner(witness, hosted);
          return m.getString("coordinator_node_id") != null && !cut.id.equals(m.getString("coordinator_node_id"))
              && owner.isPresent() && !owner.get().equals(cut.id)
              && witness.admin.send("GET", "/api/v1/changefeeds/" + hosted, null).json().getJsonObject("placement")
                  .getLong("token") > oldToken;
        });
        System.out.printf("cluster: new coordinator and owner of %s %d ms after the cut%n", hosted,
            (System.nanoTime() - cutAt) / 1_000_000);
        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(() ->
            !cut.broker.logLines("JDBC sink refused a write").isEmpty()
                && !cut.broker.logLines("changefeed fenced out").isEmpty());
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(cut.admin.send("GET", "/metrics", null)
            .body()).containsPattern("sluice_changefeed_fenced_out_total(\\{[^}]*})? [1-9]"));
        await().atMost(Duration.ofMinutes(1)).until(() -> System.nanoTime() - cutAt >= Duration.ofSeconds(30).toNanos());
        assertThat(cut.states()).as("the cut-off node sees the others unreachable")
            .containsEntry(witness.id, "UNREACHABLE");

        rig.heal(cut);
        long healedAt = System.nanoTime();
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).until(rig::formed);
        System.out.printf("cluster: %s SERVING again, 3 CP members and one coordinator %d ms after the heal%n", cut.id,
            (System.nanoTime() - healedAt) / 1_000_000);
        load.verify();
      }
    }
  }

  private static Optional<String> owner(LoopbackCluster.Node node, String cf) {
    JsonObject p = node.admin.send("GET", "/api/v1/changefeeds/" + cf, null).json().getJsonObject("placement");
    return p == null || !"ASSIGNED".equals(p.getString("state")) ? Optional.empty() : Optional.of(p.getString("node_id"));
  }
}
