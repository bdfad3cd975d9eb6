package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.exception.NotFoundException;
import dev.sluice.it.container.NodeCluster;
import dev.sluice.it.container.SluiceNode;
import dev.sluice.testing.containers.LocalEngine;
import dev.sluice.testing.containers.PostgresContainer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.Network;

/**
 * The cluster harness itself ({@link NodeCluster}): three node containers on one network, each capturing
 * the upstream container under its own slot and publication, reach each other by name and are reached
 * from the host on 127.0.0.1; a cut-off node reaches no one and no one reaches it, the others still
 * talk; healed, it is found under its name at its host ports again and serves; every node's output is in
 * its log file; closed, the containers are gone.
 */
class NodeClusterIT {

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

  @Test
  void nodesTalkByNameUntilOneIsCutOffAndAgainOnceHealed() throws Exception {
    List<String> containerIds;
    try (Network net = Network.newNetwork(); PostgresContainer upstream = new PostgresContainer(net, "upstream")) {
      upstream.start();
      try (NodeCluster cluster = NodeCluster.start(net, 3, a -> List.of("server", "--node-id", a.name(),
          "--upstream", upstream.networkJdbcUrl(), "--upstream-user", PostgresContainer.USER,
          "--publication", "sluice_" + a.name().replace('-', '_'), "--data-dir", SluiceNode.HOME + "/data",
          // --insecure: the nodes listen on the test's own container network, open by design
          "--bind", "0.0.0.0", "--insecure", "--grpc-port", "" + SluiceNode.GRPC_PORT,
          "--admin-port", "" + SluiceNode.ADMIN_PORT,
          "--advertise-address", a.grpcHostAddress()), logs.dir())) {
        containerIds = cluster.nodes().stream().map(SluiceNode::getContainerId).toList();
        for (SluiceNode n : cluster.nodes()) {
          assertThat(status(n.adminUrl() + "/readyz")).as(n.alias() + " ready").isEqualTo(200);
        }
        assertThat(peerAnswers(cluster.node(1), "node-2")).isTrue();
        assertThat(peerAnswers(cluster.node(1), "node-3")).isTrue();
        String node3Admin = cluster.node(3).adminUrl();

        cluster.cutOff(3);
        assertThat(peerAnswers(cluster.node(1), "node-3")).as("node-1 -> cut-off node-3").isFalse();
        assertThat(peerAnswers(cluster.node(3), "node-1")).as("cut-off node-3 -> node-1").isFalse();
        assertThat(peerAnswers(cluster.node(1), "node-2")).as("node-1 -> node-2 during the cut").isTrue();
        assertThat(status(node3Admin + "/healthz")).as("the host -> cut-off node-3").isEqualTo(-1);
        assertThat(status(cluster.node(1).adminUrl() + "/healthz")).isEqualTo(200);

        cluster.heal(3);
        assertThat(cluster.node(3).adminUrl()).isEqualTo(node3Admin);
        assertThat(peerAnswers(cluster.node(1), "node-3")).as("node-1 -> healed node-3").isTrue();
        // its capture lost the upstream during the cut: ready again once it streams
        await().atMost(Duration.ofSeconds(60)).until(() -> status(node3Admin + "/readyz") == 200);
        for (SluiceNode n : cluster.nodes()) {
          assertThat(Files.readString(cluster.logDir().resolve(n.alias() + ".log"))).contains("sluice server running");
        }
      }
    }
    for (String id : containerIds) {
      assertThat(gone(id)).as("container " + id + " removed").isTrue();
    }
  }

  /** An HTTP GET of {@code /healthz} on the peer's admin port, from inside {@code from}, answered "up". */
  private static boolean peerAnswers(SluiceNode from, String peer) throws IOException, InterruptedException {
    String get = "exec 3<>/dev/tcp/" + peer + "/" + SluiceNode.ADMIN_PORT
        + " && printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3";
    ExecResult r = from.execInContainer("timeout", "5", "bash", "-c", get);
    return r.getExitCode() == 0 && r.getStdout().contains("\"up\"");
  }

  /** The HTTP status, or -1 when nothing answers. */
  private int status(String url) throws InterruptedException {
    try {
      return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    }
  }

  private static boolean gone(String containerId) {
    try {
      LocalEngine.client().inspectContainerCmd(containerId).exec();
      return false;
    } catch (NotFoundException e) {
      return true;
    }
  }
}
