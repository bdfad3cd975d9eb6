package dev.sluice.broker.cluster;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node in a Hazelcast cluster: the instance ({@link HazelcastSettings}), membership over the
 * {@code sluice.members} map, the coordinator election over the CP lock, the assignment and record
 * maps, and the keeper of the CP membership. Meters: {@code sluice.cluster.members} (by state),
 * {@code sluice.cluster.coordinator} (1 on the coordinator), {@code sluice.cluster.cp.members}.
 */
final class HazelcastNode implements ClusterNode {

  private static final Logger log = LoggerFactory.getLogger(HazelcastNode.class);

  private final ClusterConfig config;
  private final String nodeId;
  private final HazelcastInstance hz;
  private final TokenFloor floor;
  private final HazelcastMembership membership;
  private final HazelcastCoordinator coordinator;
  private final CpMembership cp;
  private final Assignments assignments;
  private final HazelcastMap records;
  private final ScheduledExecutorService refresher;
  private final Coordinator port;

  private HazelcastNode(ClusterConfig config, String nodeId, HazelcastInstance hz, TokenFloor floor) {
    this.config = config;
    this.nodeId = nodeId;
    this.hz = hz;
    this.floor = floor;
    this.membership = new HazelcastMembership(hz, nodeId, config.unreachableRetention().toMillis(),
        System::currentTimeMillis);
    this.coordinator = new HazelcastCoordinator(hz, nodeId, config.cpMemberCount(), config.cpSessionTtl().toMillis());
    this.cp = new CpMembership(hz, nodeId, config.cpMemberCount());
    this.assignments = new Assignments(new HazelcastMap(hz.getMap(HazelcastSettings.ASSIGNMENTS)));
    this.records = new HazelcastMap(hz.getMap(HazelcastSettings.CHANGEFEEDS));
    this.port = new CoordinatorPort();
    this.refresher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sluice-cluster-refresh");
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts the Hazelcast member and joins the configured members (or waits for them, merging later). */
  static HazelcastNode join(ClusterConfig config, String nodeId, TokenFloor floor, MeterRegistry registry) {
    long started = System.nanoTime();
    HazelcastInstance hz;
    try {
      hz = Hazelcast.newHazelcastInstance(HazelcastSettings.of(config, nodeId));
    } catch (RuntimeException e) {
      throw new IllegalStateException("could not start the cluster member on " + config.bindHost() + ":"
          + config.port() + " (cluster " + config.name() + "): " + e.getMessage(), e);
    }
    HazelcastNode node = new HazelcastNode(config, nodeId, hz, floor);
    // every node remembers the highest token it saw: a restarted cluster's new CP counter starts above it
    node.assignments.onChange(id -> node.assignments.of(id).ifPresent(a -> floor.observe(a.token())));
    node.coordinator.start();
    node.cp.start();
    node.refresher.scheduleWithFixedDelay(() -> {
      try {
        node.membership.refresh();
      } catch (RuntimeException e) {
        log.atDebug().addKeyValue("nodeId", nodeId).log("member refresh failed: {}", String.valueOf(e));
      }
    }, 3, 3, TimeUnit.SECONDS);
    for (MemberState s : MemberState.values()) {
      Gauge.builder("sluice.cluster.members", node.membership, m -> m.members().stream()
          .filter(x -> x.state() == s).count()).tag("state", s.name()).description("cluster members by state")
          .register(registry);
    }
    Gauge.builder("sluice.cluster.coordinator", node.coordinator, c -> c.isLocal() ? 1 : 0)
        .description("1 while this node is the coordinator").register(registry);
    Gauge.builder("sluice.cluster.cp.members", node.cp, CpMembership::cpMembers)
        .description("members of the CP subsystem (the coordinator election needs a majority of the configured count)")
        .register(registry);
    log.atInfo().addKeyValue("nodeId", nodeId).addKeyValue("cluster", config.name())
        .addKeyValue("clusterAddress", config.announced()).addKeyValue("join", config.join())
        .addKeyValue("members", hz.getCluster().getMembers().size())
        .addKeyValue("tookMs", (System.nanoTime() - started) / 1_000_000).log("joined the cluster");
    return node;
  }

  @Override
  public Membership membership() {
    return membership;
  }

  @Override
  public Coordinator coordinator() {
    return port;
  }

  @Override
  public boolean cpMember() {
    return cp.localCpMember();
  }

  @Override
  public Assignments assignments() {
    return assignments;
  }

  @Override
  public ClusterMap changefeedRecords() {
    return records;
  }

  @Override
  public TokenFloor tokenFloor() {
    return floor;
  }

  @Override
  public ClusterConfig config() {
    return config;
  }

  /** Whether the Hazelcast member still runs. */
  boolean isRunning() {
    return hz.getLifecycleService().isRunning();
  }

  /** Stops the member as a crash would: no leave, no hand-over (tests). */
  void terminate() {
    hz.getLifecycleService().terminate();   // first: a lock still held is released by the survivors, not by us
    refresher.shutdownNow();
    coordinator.close();
    cp.close();
  }

  @Override
  public void close() {
    refresher.shutdownNow();
    coordinator.close();
    cp.close();
    membership.leave();
    long started = System.nanoTime();
    try {
      hz.shutdown();
    } catch (RuntimeException e) {
      log.atWarn().addKeyValue("nodeId", nodeId).setCause(e).log("the cluster member did not shut down cleanly");
    }
    log.atInfo().addKeyValue("nodeId", nodeId).addKeyValue("tookMs", (System.nanoTime() - started) / 1_000_000)
        .log("left the cluster");
  }

  /** The coordinator as the broker sees it, with the CP member count in its status. */
  private final class CoordinatorPort implements Coordinator {
    @Override
    public boolean isLocal() {
      return coordinator.isLocal();
    }

    @Override
    public long nextToken() {
      return coordinator.nextToken();
    }

    @Override
    public void raiseFloor(long value) {
      coordinator.raiseFloor(value);
    }

    @Override
    public void onChange(Runnable listener) {
      coordinator.onChange(listener);
    }

    @Override
    public CoordinatorStatus status() {
      CoordinatorStatus s = coordinator.status();
      String detail = cp.staleCpIdentity() ? s.detail() + "; this node was removed from the CP subsystem while cut off:"
          + " restart it to rejoin" : s.detail();
      return new CoordinatorStatus(s.phase(), detail, s.lockFence(), cp.cpMembers());
    }
  }
}
