package dev.sluice.broker.cluster;

import java.util.List;
import java.util.Optional;

/**
 * The cluster's members as this node sees them: every node's published {@link MemberInfo}, with
 * those that left the cluster without leaving cleanly shown UNREACHABLE. A standalone node's
 * membership is itself. Thread-safe; listeners run on a cluster thread and must not block.
 *
 * <pre>{@code
 * membership.publish(me);
 * List<MemberInfo> all = membership.members();        // sorted by node id
 * membership.onChange(() -> scheduler.trigger());
 * }</pre>
 */
public interface Membership {

  /** The membership of a node on its own: itself, as it publishes. */
  static Membership standalone(String nodeId) {
    return new StandaloneNode.LocalMembership(nodeId);
  }

  /** This node's id. */
  String localNodeId();

  /** Every member known, sorted by node id; this node's entry is its latest publish. */
  List<MemberInfo> members();

  default Optional<MemberInfo> member(String nodeId) {
    return members().stream().filter(m -> m.nodeId().equals(nodeId)).findFirst();
  }

  /** Publishes this node's info, replacing what it published before. */
  void publish(MemberInfo self);

  /** Calls {@code listener} after any member joins, leaves or publishes. */
  void onChange(Runnable listener);

  /** Whether the node is part of a cluster (false: standalone). */
  boolean clustered();

  /** Whether every live cluster member has published its info (a coordinator waits for it). */
  boolean allPublished();
}
