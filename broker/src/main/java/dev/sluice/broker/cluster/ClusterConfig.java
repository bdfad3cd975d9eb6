package dev.sluice.broker.cluster;

import dev.sluice.broker.ServeConfig;
import dev.sluice.dispatcher.BrokerAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How a node joins a cluster, or that it runs alone. With no {@link #join} members the node is
 * standalone: no Hazelcast starts, membership is the node itself and it coordinates itself. With
 * members it joins them over TCP (no multicast, no auto-detection) on {@link #bindHost}:{@link #port},
 * announcing {@link #advertised} to its peers. Defaults are {@code DEFAULT_*}; the compact constructor
 * names a bad key and value.
 *
 * <pre>{@code
 * ClusterConfig alone = ClusterConfig.standalone();
 * ClusterConfig three = ClusterConfig.standalone()
 *     .withJoin(List.of(BrokerAddress.parse("10.0.0.1:5701"), BrokerAddress.parse("10.0.0.2:5701")))
 *     .withNetwork("10.0.0.3", 5701, null);
 * }</pre>
 *
 * @param join              peers to join ({@code --cluster-join host:port,...}); empty = standalone
 * @param name              the cluster's name: nodes of another name never join (default {@value #DEFAULT_NAME})
 * @param bindHost          interface the cluster port listens on (default: the node's {@code --bind})
 * @param port              the cluster port (default {@value #DEFAULT_PORT})
 * @param advertised        address peers reach this node's cluster port at; null = {@code bindHost:port}; required
 *                          with a wildcard {@code bindHost}
 * @param outboundPorts     local ports the node's outgoing cluster connections use, as Hazelcast takes them
 *                          ({@code "33000-33010"} or {@code "33000,33001"}); null = any (for firewalls)
 * @param cpMemberCount     members of the CP subsystem (Raft) that elects the coordinator; at least 3, and
 *                          changefeeds are scheduled only while a majority of them is up (default 3)
 * @param memberHeartbeat   how often members heartbeat each other (default 1 s, whole seconds)
 * @param memberTimeout     a member silent this long is removed from the cluster (default 5 s, whole seconds)
 * @param cpSessionTtl      a CP session (the coordinator lock's) not heartbeated this long is closed: bounds
 *                          how long a frozen coordinator keeps the lock (default 10 s, whole seconds)
 * @param cpMissingMemberAutoRemoval a CP member missing this long is removed from the CP subsystem (one that
 *                          restarts at the same address is replaced at once); a node cut off longer than this
 *                          must be restarted to rejoin the CP subsystem (default 5 min)
 * @param publishInterval   how often a node republishes its member info (servable range, lag) (default 500 ms)
 * @param unreachableRetention how long a member that left without leaving cleanly stays listed as
 *                          UNREACHABLE (default 10 min)
 * @param moveTimeout       how long a graceful move (drain, rebalance) waits for the old owner to stop the
 *                          changefeed before the new owner starts it anyway, fenced (default 30 s)
 */
public record ClusterConfig(List<BrokerAddress> join, String name, String bindHost, int port, BrokerAddress advertised,
    String outboundPorts, int cpMemberCount, Duration memberHeartbeat, Duration memberTimeout, Duration cpSessionTtl,
    Duration cpMissingMemberAutoRemoval, Duration publishInterval, Duration unreachableRetention,
    Duration moveTimeout) {

  public static final String DEFAULT_NAME = "sluice";
  public static final int DEFAULT_PORT = 5701;
  public static final int DEFAULT_CP_MEMBER_COUNT = 3;
  public static final Duration DEFAULT_MEMBER_HEARTBEAT = Duration.ofSeconds(1);
  public static final Duration DEFAULT_MEMBER_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_CP_SESSION_TTL = Duration.ofSeconds(10);
  public static final Duration DEFAULT_CP_MISSING_MEMBER_AUTO_REMOVAL = Duration.ofMinutes(5);
  public static final Duration DEFAULT_PUBLISH_INTERVAL = Duration.ofMillis(500);
  public static final Duration DEFAULT_UNREACHABLE_RETENTION = Duration.ofMinutes(10);
  public static final Duration DEFAULT_MOVE_TIMEOUT = Duration.ofSeconds(30);
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");
  private static final Pattern PORTS = Pattern.compile("\\d{1,5}(-\\d{1,5})?(,\\d{1,5}(-\\d{1,5})?)*");

  public ClusterConfig {
    join = List.copyOf(Objects.requireNonNull(join, "join"));
    Objects.requireNonNull(bindHost, "bindHost");
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("--cluster-name must be 1-63 of [A-Za-z0-9_.-] starting with a letter or"
          + " digit, got '" + name + "'");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("--cluster-port must be in [1, 65535], got " + port);
    }
    if (outboundPorts != null && !PORTS.matcher(outboundPorts).matches()) {
      throw new IllegalArgumentException("--cluster-outbound-ports must be ports or ranges like 33000-33010,33020, got '"
          + outboundPorts + "'");
    }
    if (cpMemberCount < 3 || cpMemberCount > 7) {
      throw new IllegalArgumentException("cpMemberCount must be in [3, 7] (Raft needs 3 for a majority that survives a"
          + " loss), got " + cpMemberCount);
    }
    wholeSeconds("memberHeartbeat", memberHeartbeat);
    wholeSeconds("memberTimeout", memberTimeout);
    wholeSeconds("cpSessionTtl", cpSessionTtl);
    wholeSeconds("cpMissingMemberAutoRemoval", cpMissingMemberAutoRemoval);
    if (memberTimeout.compareTo(memberHeartbeat.multipliedBy(2)) < 0) {
      throw new IllegalArgumentException("memberTimeout must be at least twice memberHeartbeat (" + memberHeartbeat
          + "), got " + memberTimeout);
    }
    if (cpSessionTtl.compareTo(Duration.ofSeconds(2)) < 0) {
      throw new IllegalArgumentException("cpSessionTtl must be at least 2 s (sessions heartbeat every second), got "
          + cpSessionTtl);
    }
    if (cpMissingMemberAutoRemoval.compareTo(cpSessionTtl) < 0) {
      throw new IllegalArgumentException("cpMissingMemberAutoRemoval must be at least cpSessionTtl (" + cpSessionTtl
          + "), got " + cpMissingMemberAutoRemoval);
    }
    positive("publishInterval", publishInterval);
    positive("unreachableRetention", unreachableRetention);
    positive("moveTimeout", moveTimeout);
    if (!join.isEmpty()) {
      checkNetwork(bindHost, port, advertised);
    }
  }

  /**
   * The one place that decides whether the cluster port may listen where asked and what it announces
   * (the same rules as the gRPC address: a wildcard bind needs an advertised address, and an advertised
   * address is never a wildcard).
   */
  static void checkNetwork(String bindHost, int port, BrokerAddress advertised) {
    if (ServeConfig.isWildcard(bindHost) && advertised == null) {
      throw new IllegalArgumentException("the cluster port would listen on every interface (" + bindHost + "), so"
          + " there is no single address to announce to the other members: add --cluster-advertise-address"
          + " <host>:<port>, the address they reach this node's cluster port " + port + " at");
    }
    if (advertised != null && ServeConfig.isWildcard(advertised.host())) {
      throw new IllegalArgumentException("--cluster-advertise-address " + advertised + " is a wildcard; name the host"
          + " or IP the other members connect to");
    }
  }

  /** A node on its own (no {@code --cluster-join}): no Hazelcast, it coordinates itself. */
  public static ClusterConfig standalone() {
    return new ClusterConfig(List.of(), DEFAULT_NAME, ServeConfig.DEFAULT_BIND_HOST, DEFAULT_PORT, null, null,
        DEFAULT_CP_MEMBER_COUNT, DEFAULT_MEMBER_HEARTBEAT, DEFAULT_MEMBER_TIMEOUT, DEFAULT_CP_SESSION_TTL,
        DEFAULT_CP_MISSING_MEMBER_AUTO_REMOVAL, DEFAULT_PUBLISH_INTERVAL, DEFAULT_UNREACHABLE_RETENTION,
        DEFAULT_MOVE_TIMEOUT);
  }

  /** Whether this node joins others (false: standalone). */
  public boolean clustered() {
    return !join.isEmpty();
  }

  /** The address peers reach this node's cluster port at. */
  public BrokerAddress announced() {
    return advertised != null ? advertised : new BrokerAddress(bindHost, port);
  }

  public ClusterConfig withJoin(List<BrokerAddress> members) {
    return new ClusterConfig(members, name, bindHost, port, advertised, outboundPorts, cpMemberCount, memberHeartbeat,
        memberTimeout, cpSessionTtl, cpMissingMemberAutoRemoval, publishInterval, unreachableRetention, moveTimeout);
  }

  public ClusterConfig withName(String n) {
    return new ClusterConfig(join, n, bindHost, port, advertised, outboundPorts, cpMemberCount, memberHeartbeat,
        memberTimeout, cpSessionTtl, cpMissingMemberAutoRemoval, publishInterval, unreachableRetention, moveTimeout);
  }

  /** Where the cluster port listens and what it announces ({@code advertisedAddress} may be null). */
  public ClusterConfig withNetwork(String host, int clusterPort, BrokerAddress advertisedAddress) {
    return new ClusterConfig(join, name, host, clusterPort, advertisedAddress, outboundPorts, cpMemberCount,
        memberHeartbeat, memberTimeout, cpSessionTtl, cpMissingMemberAutoRemoval, publishInterval, unreachableRetention,
        moveTimeout);
  }

  public ClusterConfig withOutboundPorts(String ports) {
    return new ClusterConfig(join, name, bindHost, port, advertised, ports, cpMemberCount, memberHeartbeat,
        memberTimeout, cpSessionTtl, cpMissingMemberAutoRemoval, publishInterval, unreachableRetention, moveTimeout);
  }

  /** The failure-detection timings. */
  public ClusterConfig withTimings(Duration heartbeat, Duration timeout, Duration sessionTtl, Duration autoRemoval) {
    return new ClusterConfig(join, name, bindHost, port, advertised, outboundPorts, cpMemberCount, heartbeat, timeout,
        sessionTtl, autoRemoval, publishInterval, unreachableRetention, moveTimeout);
  }

  public ClusterConfig withMoveTimeout(Duration d) {
    return new ClusterConfig(join, name, bindHost, port, advertised, outboundPorts, cpMemberCount, memberHeartbeat,
        memberTimeout, cpSessionTtl, cpMissingMemberAutoRemoval, publishInterval, unreachableRetention, d);
  }

  public ClusterConfig withUnreachableRetention(Duration d) {
    return new ClusterConfig(join, name, bindHost, port, advertised, outboundPorts, cpMemberCount, memberHeartbeat,
        memberTimeout, cpSessionTtl, cpMissingMemberAutoRemoval, publishInterval, d, moveTimeout);
  }

  private static void wholeSeconds(String key, Duration d) {
    positive(key, d);
    if (d.toMillis() % 1000 != 0) {
      throw new IllegalArgumentException(key + " must be whole seconds (Hazelcast counts in seconds), got " + d);
    }
  }

  private static void positive(String key, Duration d) {
    Objects.requireNonNull(d, key);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(key + " must be positive, got " + d);
    }
  }
}
