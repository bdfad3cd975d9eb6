package dev.sluice.broker.cluster;

import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;

/**
 * This node's part of the cluster: the ports the rest of the broker uses, and nothing of Hazelcast.
 * {@link #start} joins the configured members, or, without any, runs standalone: the same ports with a
 * one-member membership, a coordinator that is always this node and in-memory maps, so no path of the
 * broker exists only in cluster mode.
 *
 * <pre>{@code
 * try (ClusterNode cluster = ClusterNode.start(config, "node-1", incarnation, dataDir.resolve("cluster"), registry)) {
 *   cluster.membership().members();
 * }
 * }</pre>
 */
public interface ClusterNode extends AutoCloseable {

  Membership membership();

  Coordinator coordinator();

  /** Which node hosts which changefeed. */
  Assignments assignments();

  /** The hosted changefeeds' records, replicated (every node also persists them in its own store). */
  ClusterMap changefeedRecords();

  /** The highest fencing token this node has seen, persisted. */
  TokenFloor tokenFloor();

  ClusterConfig config();

  /** Whether this node is a member of the CP subsystem (a standalone node has none). */
  default boolean cpMember() {
    return false;
  }

  /** Leaves the cluster (gracefully: this node's entry goes, its CP role is handed on). */
  @Override
  void close();

  /**
   * Joins the cluster of {@code config}, or runs standalone when it names no members.
   *
   * @param dir where this node keeps its cluster state (the token floor)
   */
  static ClusterNode start(ClusterConfig config, String nodeId, Path dir, MeterRegistry registry) {
    TokenFloor floor = TokenFloor.open(dir);
    if (!config.clustered()) {
      return new StandaloneNode(config, nodeId, floor);
    }
    return HazelcastNode.join(config, nodeId, floor, registry);
  }
}
