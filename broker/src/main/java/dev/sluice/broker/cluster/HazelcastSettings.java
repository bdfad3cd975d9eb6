package dev.sluice.broker.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.config.cp.CPSubsystemConfig;
import com.hazelcast.config.cp.FencedLockConfig;
import dev.sluice.broker.ServeConfig;
import dev.sluice.dispatcher.BrokerAddress;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The Hazelcast configuration of a node, built in code from {@link ClusterConfig} (no XML on the
 * classpath): TCP-IP join with the explicit {@code host:port} members, multicast and auto-detection
 * off, the cluster port bound to the given interface only (no wildcard unless asked), the advertised
 * address as the public address, the CP subsystem for the coordinator lock and the token counter, and
 * maps with a synchronous backup on up to two other members.
 *
 * <p>Failure detection: members heartbeat every {@code memberHeartbeat} and one silent for
 * {@code memberTimeout} is removed (a killed process is noticed sooner: its connections are refused).
 * CP sessions heartbeat every second and expire after {@code cpSessionTtl}; the Raft leader heartbeats
 * every 500 ms and is replaced after 3 missed ones. Split clusters look for each other every 5 s.
 */
final class HazelcastSettings {

  /** The changefeed assignment table. */
  static final String ASSIGNMENTS = "sluice.assignments";
  /** The hosted changefeeds' records. */
  static final String CHANGEFEEDS = "sluice.changefeeds";
  /** Every node's {@link MemberInfo}. */
  static final String MEMBERS = "sluice.members";
  /** The CP lock whose holder is the coordinator. */
  static final String COORDINATOR_LOCK = "sluice.coordinator";
  /** The CP counter fencing tokens come from. */
  static final String TOKEN_COUNTER = "sluice.tokens";
  /** Partitions of the maps; every member of a cluster must use the same count. */
  static final int PARTITIONS = 23;
  /** Backups of each map entry: with three members, every member holds every entry. */
  static final int MAP_BACKUPS = 2;

  private HazelcastSettings() {}

  static Config of(ClusterConfig c, String nodeId) {
    Config cfg = new Config();
    cfg.setClusterName(c.name());
    cfg.setInstanceName("sluice-" + nodeId + "-" + Long.toHexString(System.nanoTime()));
    cfg.setProperty("hazelcast.phone.home.enabled", "false");
    cfg.setProperty("hazelcast.logging.type", "slf4j");
    cfg.setProperty("hazelcast.shutdownhook.enabled", "false");   // the broker leaves in its own shutdown hook
    cfg.setProperty("hazelcast.graceful.shutdown.max.wait", "30");
    cfg.setProperty("hazelcast.heartbeat.interval.seconds", Long.toString(c.memberHeartbeat().toSeconds()));
    cfg.setProperty("hazelcast.max.no.heartbeat.seconds", Long.toString(c.memberTimeout().toSeconds()));
    cfg.setProperty("hazelcast.merge.first.run.delay.seconds", "5");
    cfg.setProperty("hazelcast.merge.next.run.delay.seconds", "5");
    cfg.setProperty("hazelcast.wait.seconds.before.join", "1");
    // the maps hold a few hundred small entries: 271 partitions (the default) only make a member's death
    // cost more migration work on the survivors, which stalls their serving threads on 2 cores
    cfg.setProperty("hazelcast.partition.count", Integer.toString(PARTITIONS));

    NetworkConfig net = cfg.getNetworkConfig();
    net.setPort(c.port()).setPortAutoIncrement(false).setPortCount(1);
    net.setPublicAddress(c.announced().toString());
    boolean wildcard = ServeConfig.isWildcard(c.bindHost());
    cfg.setProperty("hazelcast.socket.bind.any", Boolean.toString(wildcard));
    if (!wildcard) {
      String ip = ip(c.bindHost());
      net.getInterfaces().setEnabled(true).addInterface(ip);
      cfg.setProperty("hazelcast.local.localAddress", ip);
    }
    if (c.outboundPorts() != null) {
      net.addOutboundPortDefinition(c.outboundPorts());
    }
    JoinConfig join = net.getJoin();
    join.getAutoDetectionConfig().setEnabled(false);
    join.getMulticastConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).setConnectionTimeoutSeconds(2);
    for (BrokerAddress m : c.join()) {
      join.getTcpIpConfig().addMember(m.toString());   // host:port, never a range (TOOLCHAIN.md G8)
    }

    CPSubsystemConfig cp = cfg.getCPSubsystemConfig();
    cp.setCPMemberCount(c.cpMemberCount());
    cp.setSessionHeartbeatIntervalSeconds(1);
    cp.setSessionTimeToLiveSeconds((int) c.cpSessionTtl().toSeconds());
    cp.setMissingCPMemberAutoRemovalSeconds((int) c.cpMissingMemberAutoRemoval().toSeconds());
    // a dead Raft leader is noticed after 3 missed 500 ms heartbeats; an election round lasts 500-1000 ms
    cp.getRaftAlgorithmConfig().setLeaderHeartbeatPeriodInMillis(500).setLeaderElectionTimeoutInMillis(500)
        .setMaxMissedLeaderHeartbeatCount(3);
    cp.addLockConfig(new FencedLockConfig(COORDINATOR_LOCK, 1));   // not reentrant

    for (String name : new String[] {ASSIGNMENTS, CHANGEFEEDS, MEMBERS}) {
      cfg.addMapConfig(new MapConfig(name).setBackupCount(MAP_BACKUPS).setReadBackupData(false));
    }
    return cfg;
  }

  private static String ip(String host) {
    try {
      return InetAddress.getByName(host).getHostAddress();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("the cluster bind host '" + host + "' does not resolve: " + e.getMessage(), e);
    }
  }
}
