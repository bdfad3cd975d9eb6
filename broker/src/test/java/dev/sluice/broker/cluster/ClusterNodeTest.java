package dev.sluice.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.dispatcher.BrokerAddress;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real Hazelcast members in this JVM on loopback (free ports): membership, the coordinator
 * election over the CP lock, placement with fencing tokens, and what happens when a member crashes.
 * The nodes' "hosting" is played by the test (each hosts what it is assigned), the rest is the product.
 */
class ClusterNodeTest {

  @TempDir Path dir;
  final List<Node> nodes = new ArrayList<>();
  final Map<String, PlacedChangefeed> changefeeds = new ConcurrentHashMap<>();
  final List<ClusterConfig> configs = new ArrayList<>();

  /** A cluster node with a scheduler and a publisher that hosts whatever it is assigned. */
  final class Node {
    final String id;
    final HazelcastNode cluster;
    final Scheduler scheduler;

    Node(String id, HazelcastNode cluster) {
      this.id = id;
      this.cluster = cluster;
      this.scheduler = Scheduler.start(cluster.config(), cluster.membership(), cluster.coordinator(),
          cluster.assignments(), () -> List.copyOf(changefeeds.values()), cluster.tokenFloor(),
          System::currentTimeMillis, new SimpleMeterRegistry());
    }

    void publish() {
      Map<String, Long> hosting = new java.util.TreeMap<>();
      cluster.assignments().all().values().stream().filter(a -> a.nodeId().equals(id) && a.state() == AssignmentState.ASSIGNED)
          .forEach(a -> hosting.put(a.changefeedId(), a.token()));
      cluster.membership().publish(new MemberInfo(id, 1, "", "127.0.0.1:1", "127.0.0.1:2", MemberState.SERVING, 0, 10,
          0, cluster.coordinator().isLocal(), cluster.tokenFloor().value(), hosting, Map.of(), cluster.cpMember(),
          System.currentTimeMillis()));
    }
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  List<Node> startThree() throws Exception {
    List<Integer> ports = List.of(freePort(), freePort(), freePort());
    List<BrokerAddress> join = ports.stream().map(p -> new BrokerAddress("127.0.0.1", p)).toList();
    String name = "test-" + Long.toHexString(System.nanoTime());
    List<CompletableFuture<HazelcastNode>> starting = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ClusterConfig c = ClusterConfig.standalone().withJoin(join).withName(name).withNetwork("127.0.0.1", ports.get(i),
          null);
      configs.add(c);
      String id = "n" + (i + 1);
      Path d = dir.resolve(id);
      starting.add(CompletableFuture.supplyAsync(() -> HazelcastNode.join(c, id, TokenFloor.open(d),
          new SimpleMeterRegistry())));
    }
    for (int i = 0; i < 3; i++) {
      nodes.add(new Node("n" + (i + 1), starting.get(i).get()));
    }
    return nodes;
  }

  void publishAll() {
    nodes.stream().filter(n -> n.cluster.isRunning()).forEach(Node::publish);
  }

  Node coordinator() {
    return nodes.stream().filter(n -> n.cluster.isRunning() && n.cluster.coordinator().isLocal()).findFirst()
        .orElse(null);
  }

  @AfterEach
  void stop() {
    for (Node n : nodes) {
      n.scheduler.close();
      if (n.cluster.isRunning()) {
        n.cluster.terminate();
      }
    }
  }

  @Test
  void threeMembersElectOneCoordinatorPlaceOneChangefeedEachAndReplaceACrashedOwnerWithAHigherToken()
      throws Exception {
    startThree();
    for (String id : List.of("a", "b", "c")) {
      changefeeds.put(id, new PlacedChangefeed(id, false));
    }
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
      publishAll();
      assertThat(nodes.stream().filter(n -> n.cluster.coordinator().isLocal()).count()).isEqualTo(1);
      for (Node n : nodes) {
        assertThat(n.cluster.membership().members()).extracting(MemberInfo::nodeId).containsExactly("n1", "n2", "n3");
        assertThat(n.cluster.membership().members()).allMatch(m -> m.state() == MemberState.SERVING);
      }
      Map<String, Assignment> all = nodes.get(0).cluster.assignments().all();
      assertThat(all).containsOnlyKeys("a", "b", "c");
      assertThat(all.values().stream().map(Assignment::nodeId).collect(Collectors.toSet())).hasSize(3);
    });
    Node coordinator = coordinator();
    assertThat(coordinator.cluster.coordinator().status().phase()).isEqualTo(CoordinatorStatus.Phase.LOCAL);
    assertThat(nodes.stream().filter(n -> n != coordinator).map(n -> n.cluster.coordinator().status().phase()))
        .containsOnly(CoordinatorStatus.Phase.FOLLOWER);

    // the coordinator crashes: its changefeed moves with a higher token, another node coordinates
    Assignment before = coordinator.cluster.assignments().all().values().stream()
        .filter(a -> a.nodeId().equals(coordinator.id)).findFirst().orElseThrow();
    long maxToken = coordinator.cluster.assignments().all().values().stream().mapToLong(Assignment::token).max()
        .orElseThrow();
    long crashedAt = System.nanoTime();
    coordinator.cluster.terminate();
    Node survivor = nodes.stream().filter(n -> n != coordinator).findFirst().orElseThrow();
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
      publishAll();
      Assignment now = survivor.cluster.assignments().of(before.changefeedId()).orElseThrow();
      assertThat(now.nodeId()).isNotEqualTo(coordinator.id);
      assertThat(now.token()).isGreaterThan(maxToken);
    });
    System.out.printf("changefeed reassigned %d ms after its owner (the coordinator) crashed%n",
        (System.nanoTime() - crashedAt) / 1_000_000);
    assertThat(survivor.cluster.membership().member(coordinator.id)).get().extracting(MemberInfo::state)
        .isEqualTo(MemberState.UNREACHABLE);
    assertThat(nodes.stream().filter(n -> n != coordinator && n.cluster.coordinator().isLocal()).count()).isEqualTo(1);
    Collection<Assignment> left = survivor.cluster.assignments().all().values();
    assertThat(left).extracting(Assignment::nodeId).doesNotContain(coordinator.id);
  }

  /**
   * A node killed and started again at its address takes its old place in the CP subsystem, so a second
   * loss right after still leaves a CP majority. Before the fix the oldest node took the new CP identity
   * for a stale one (a CP identity's UUID is not the member's) and removed it again after each promotion.
   */
  @Test
  void aNodeRestartedAtItsAddressRejoinsTheCpSubsystemSoASecondLossKeepsACoordinator() throws Exception {
    startThree();
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
      publishAll();
      assertThat(nodes).allSatisfy(n -> assertThat(n.cluster.coordinator().status().cpMembers()).isEqualTo(3));
      assertThat(coordinator()).isNotNull();
    });
    Node victim = nodes.get(1);
    victim.scheduler.close();
    victim.cluster.terminate();
    long restarted = System.nanoTime();
    Node again = new Node(victim.id, HazelcastNode.join(configs.get(1), victim.id,
        TokenFloor.open(dir.resolve(victim.id + "-2")), new SimpleMeterRegistry()));
    nodes.set(1, again);
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
      assertThat(again.cluster.cpMember()).as("the restarted node is a CP member").isTrue();
      assertThat(nodes).allSatisfy(n -> assertThat(n.cluster.coordinator().status().cpMembers())
          .as(n.id + " counts CP members").isEqualTo(3));
    });
    System.out.printf("restarted node back in the CP subsystem %d ms after it started%n",
        (System.nanoTime() - restarted) / 1_000_000);
    // it stays there: no check removes the fresh identity again
    await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200))
        .untilAsserted(() -> assertThat(again.cluster.cpMember()).as("still a CP member").isTrue());

    Node second = nodes.get(2);
    second.scheduler.close();
    second.cluster.terminate();
    changefeeds.put("after", new PlacedChangefeed("after", false));
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
      publishAll();
      assertThat(coordinator()).as("a coordinator among the two left").isNotNull();
      assertThat(nodes.get(0).cluster.assignments().of("after")).as("placed by it").isPresent();
    });
  }
}
