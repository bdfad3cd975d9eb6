package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.cli.AdminClient;
import dev.sluice.it.LoopbackCluster;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Full tier: planned restarts of a three-node cluster under load ({@link ClusterLoad}).
 *
 * <p>A rolling restart (drain, stop with SIGTERM, start, wait until the cluster is whole) of every
 * node: collectors see resets, never errors, and nothing is lost or applied twice. A full stop and
 * start of the whole cluster: every changefeed comes back in its state (one paused before the stop
 * stays paused, then resumes), and nothing is lost.
 */
@EnabledIfSystemProperty(named = "it.tier", matches = "full")
class ClusterRollingRestartIT {

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  @Test
  void aRollingRestartOfEveryNodeUnderLoadLosesNothingAndCollectorsOnlyReset() throws Exception {
    try (LoopbackCluster rig = LoopbackCluster.start(logs::data, logs.dir(), 3)) {
      await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).until(rig::formed);
      try (ClusterLoad load = ClusterLoad.start(rig)) {
        for (LoopbackCluster.Node node : rig.nodes) {
          await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).until(rig::formed);
          LoopbackCluster.Node other = rig.nodes.stream().filter(n -> n != node).findFirst().orElseThrow();
          AdminClient.Response r = other.admin.send("POST", "/api/v1/members/" + node.id + "/drain", null);
          assertThat(r.status()).as(r.body()).isEqualTo(202);
          await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200)).until(() ->
              node.admin.send("GET", "/api/v1/members/" + node.id, null).json().getJsonObject("drain")
                  .getBoolean("drained"));
          node.broker.stop();
          load.awaitApplying(Duration.ofMinutes(2));
          node.broker.restart();
        }
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).until(rig::formed);
        load.verify();
      }
    }
  }

  @Test
  void aFullStopAndStartBringsEveryChangefeedBackInItsState() throws Exception {
    try (LoopbackCluster rig = LoopbackCluster.start(logs::data, logs.dir(), 3)) {
      await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).until(rig::formed);
      try (ClusterLoad load = ClusterLoad.start(rig)) {
        AdminClient admin = rig.nodes.get(0).admin;
        assertThat(admin.send("POST", "/api/v1/changefeeds/cf-steady/pause", null).status()).isEqualTo(200);
        for (LoopbackCluster.Node n : rig.nodes) {
          n.broker.stop();
        }
        List<CompletableFuture<Void>> starts = rig.nodes.stream()
            .map(n -> CompletableFuture.runAsync(n.broker::restart, r -> new Thread(r).start())).toList();
        starts.forEach(CompletableFuture::join);
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).until(rig::formed);
        await().atMost(Duration.ofMinutes(2)).until(() -> ClusterLoad.CHANGEFEEDS.stream()
            .allMatch(cf -> rig.owner(cf).isPresent()));
        for (String cf : ClusterLoad.CHANGEFEEDS) {
          JsonObject got = admin.send("GET", "/api/v1/changefeeds/" + cf, null).json();
          assertThat(got.getString("state")).as(cf).isEqualTo(cf.equals("cf-steady") ? "PAUSED" : "NORMAL");
        }
        assertThat(admin.send("POST", "/api/v1/changefeeds/cf-steady/resume", null).status()).isEqualTo(200);
        load.verify();
      }
    }
  }
}
