package dev.sluice.it;

import dev.sluice.broker.cli.AdminClient;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A cluster of broker processes on loopback, an upstream and a downstream PostgreSQL. Each node has
 * its own data dir, slot ({@code sluice_<node id>}), fixed gRPC, admin and cluster ports, and two fault
 * proxies: one in front of its cluster port (the address it advertises to its peers, which join
 * through the proxies) and one in front of its gRPC port (the address it advertises to collectors).
 * Its outgoing cluster connections use ports of its own ({@code --cluster-outbound-ports}), so
 * {@link #isolate} can cut one node off from the others, both ways, while it keeps running and still
 * reaches both databases.
 *
 * <pre>{@code
 * try (LoopbackCluster rig = LoopbackCluster.start(dataDirs, logDir, 3)) {
 *   rig.awaitFormed();
 *   rig.isolate(0);  ...  rig.heal(0);
 * }
 * }</pre>
 */
public final class LoopbackCluster implements AutoCloseable {

  /** One node and its proxies. */
  public static final class Node {
    public final int index;
    public final String id;
    public final BrokerProcess broker;
    public final FaultProxy clusterProxy;
    public final FaultProxy grpcProxy;
    final Set<Integer> outboundPorts;
    public final AdminClient admin;

    Node(int index, String id, BrokerProcess broker, FaultProxy clusterProxy, FaultProxy grpcProxy,
        Set<Integer> outboundPorts) {
      this.index = index;
      this.id = id;
      this.broker = broker;
      this.clusterProxy = clusterProxy;
      this.grpcProxy = grpcProxy;
      this.outboundPorts = outboundPorts;
      this.admin = AdminClient.of(broker.adminUrl(), Duration.ofSeconds(30));
    }

    /** GET /api/v1/members from this node. */
    public JsonObject members() {
      return admin.send("GET", "/api/v1/members", null).json();
    }

    /** The member states this node sees, by node id. */
    public java.util.Map<String, String> states() {
      java.util.Map<String, String> out = new java.util.TreeMap<>();
      for (Object o : members().getJsonArray("members")) {
        JsonObject m = (JsonObject) o;
        out.put(m.getString("node_id"), m.getString("state"));
      }
      return out;
    }
  }

  public final PostgresServer upstream;
  public final PostgresServer downstream;
  public final List<Node> nodes = new ArrayList<>();
  private final List<FaultProxy> proxies = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final String clusterName = "it-" + Long.toHexString(System.nanoTime());

  private LoopbackCluster(PostgresServer upstream, PostgresServer downstream) {
    this.upstream = upstream;
    this.downstream = downstream;
  }

  /**
   * Starts the databases and {@code size} nodes at once (a node waits for its peers to join); node
   * {@code id}'s data goes to {@code dataDirs.apply(id)}, every process's log to {@code logDir}.
   */
  public static LoopbackCluster start(java.util.function.Function<String, java.nio.file.Path> dataDirs,
      java.nio.file.Path logDir, int size) {
    PostgresServer up = PostgresServer.upstream();
    PostgresServer down;
    try {
      down = PostgresServer.downstream();
    } catch (RuntimeException e) {
      up.close();
      throw e;
    }
    LoopbackCluster rig = new LoopbackCluster(up, down);
    try {
      return rig.startNodes(dataDirs, logDir, size);
    } catch (RuntimeException e) {
      rig.close();
      throw e;
    }
  }

  private LoopbackCluster startNodes(java.util.function.Function<String, java.nio.file.Path> dataDirs,
      java.nio.file.Path logDir, int size) {
    List<Integer> clusterPorts = IntStream.range(0, size).mapToObj(i -> LoopbackPorts.free()).toList();
    List<FaultProxy> clusterProxies = clusterPorts.stream().map(FaultProxy::start).toList();
    proxies.addAll(clusterProxies);
    String join = clusterProxies.stream().map(FaultProxy::address).collect(Collectors.joining(","));
    List<CompletableFuture<Node>> starting = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      int index = i;
      String id = "n" + (i + 1);
      Set<Integer> outbound = new HashSet<>();
      while (outbound.size() < 8) {
        outbound.add(LoopbackPorts.free());
      }
      int grpcPort = LoopbackPorts.free();
      FaultProxy grpcProxy = FaultProxy.start(grpcPort);
      proxies.add(grpcProxy);
      BrokerProcess.Options options = BrokerProcess.options(dataDirs.apply(id), upstream).withNodeId(id)
          .withAdvertiseAddress(grpcProxy.address())
          .withExtraArgs(List.of("--cluster-join", join, "--cluster-name", clusterName,
              "--cluster-port", Integer.toString(clusterPorts.get(i)),
              "--cluster-advertise-address", clusterProxies.get(i).address(),
              "--cluster-outbound-ports", outbound.stream().map(String::valueOf).collect(Collectors.joining(","))));
      BrokerProcess.Options withPort = new BrokerProcess.Options(options.dataDir(), options.upstreamJdbcUrl(),
          options.nodeId(), grpcPort, options.heartbeatInterval(), List.of("-Xmx512m"), options.advertiseAddress(),
          options.adminPort(), options.extraArgs());
      starting.add(CompletableFuture.supplyAsync(() -> new Node(index, id, BrokerProcess.start(id, withPort, logDir),
          clusterProxies.get(index), grpcProxy, outbound)));
    }
    RuntimeException failed = null;
    for (CompletableFuture<Node> f : starting) {
      try {
        nodes.add(f.join());
      } catch (RuntimeException e) {
        failed = failed == null ? e : failed;
      }
    }
    if (failed != null) {
      throw failed;
    }
    return this;
  }

  public Node node(String id) {
    return nodes.stream().filter(n -> n.id.equals(id)).findFirst().orElseThrow();
  }

  /** Nodes whose process runs. */
  public List<Node> alive() {
    return nodes.stream().filter(n -> n.broker.isAlive()).toList();
  }

  /** Every live node sees every node SERVING, one coordinator, the CP subsystem whole. */
  public boolean formed() {
    for (Node n : alive()) {
      JsonObject m = n.members();
      JsonArray members = m.getJsonArray("members");
      // every member a CP member itself: cp_members alone also counts a restarted node's old identity until
      // the node removed it
      if (members.size() != nodes.size() || members.stream().anyMatch(o -> !"SERVING".equals(((JsonObject) o)
          .getString("state")) || !((JsonObject) o).getBoolean("cp_member", false))
          || m.getString("coordinator_node_id") == null
          || m.getJsonObject("coordinator").getInteger("cp_members", 0) < 3) {
        return false;
      }
    }
    return true;
  }

  /** Whether every live node knows {@code table} at its servable ts (a table subscription may start there). */
  public boolean knowTable(String table) {
    return alive().stream().allMatch(n -> {
      AdminClient.Response r = n.admin.send("GET", "/api/v1/tables?include=" + table, null);
      return r.status() == 200 && !r.json().getJsonArray("tables").isEmpty();
    });
  }

  /** The coordinator as the first live node sees it. */
  public Optional<Node> coordinator() {
    String id = alive().get(0).members().getString("coordinator_node_id");
    return id == null ? Optional.empty() : Optional.of(node(id));
  }

  /** The node hosting changefeed {@code id}, as any live node's admin API says. */
  public Optional<String> owner(String changefeed) {
    AdminClient.Response r = alive().get(0).admin.send("GET", "/api/v1/changefeeds/" + changefeed, null);
    if (r.status() != 200) {
      return Optional.empty();
    }
    JsonObject p = r.json().getJsonObject("placement");
    return p == null || !"ASSIGNED".equals(p.getString("state")) ? Optional.empty() : Optional.of(p.getString("node_id"));
  }

  /** The fencing token changefeed {@code id}'s placement carries. */
  public long token(String changefeed) {
    JsonObject p = alive().get(0).admin.send("GET", "/api/v1/changefeeds/" + changefeed, null).json()
        .getJsonObject("placement");
    return p == null ? 0 : p.getLong("token");
  }

  /**
   * Cuts {@code node} off from the others, both ways (its cluster proxy and the others' proxies drop its
   * connections) and from collectors (its gRPC proxy drops everything); it keeps running.
   */
  public void isolate(Node node) {
    node.clusterProxy.set(FaultProxy.Fault.blackHole());
    node.clusterProxy.silenceOpen();
    node.grpcProxy.set(FaultProxy.Fault.blackHole());
    node.grpcProxy.silenceOpen();
    for (Node other : nodes) {
      if (other != node) {
        other.clusterProxy.silenceFrom(node.outboundPorts);
      }
    }
  }

  /** Ends {@link #isolate}: new connections pass again (the silenced ones stay dead and are replaced). */
  public void heal(Node node) {
    for (Node other : nodes) {
      other.clusterProxy.silenceFrom(Set.of());
      other.clusterProxy.cutFrom(node.outboundPorts);   // its silenced connections close: both sides reconnect
    }
    node.clusterProxy.set(FaultProxy.Fault.pass());
    node.grpcProxy.set(FaultProxy.Fault.pass());
    node.clusterProxy.cutAll();   // the silent connections close, so both sides reconnect at once
    node.grpcProxy.cutAll();
  }

  /** The gRPC addresses collectors may start from (through the proxies). */
  public List<String> grpcAddresses() {
    return nodes.stream().map(n -> n.grpcProxy.address()).toList();
  }

  @Override
  public void close() {
    for (Node n : nodes) {
      n.broker.kill9();   // a cluster's graceful stop waits for the CP hand-over; the test is over
    }
    proxies.forEach(FaultProxy::close);
    downstream.close();
    upstream.close();
  }
}
