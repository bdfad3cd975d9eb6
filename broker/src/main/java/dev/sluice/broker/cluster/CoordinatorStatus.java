package dev.sluice.broker.cluster;

import io.vertx.core.json.JsonObject;

/**
 * Where the coordinator election stands on this node.
 *
 * <pre>{@code
 * CoordinatorStatus s = coordinator.status();
 * if (s.phase() == CoordinatorStatus.Phase.NO_QUORUM) warn(s.detail());
 * }</pre>
 *
 * @param phase    what this node knows
 * @param detail   a sentence for people: why there is no coordinator, or since when this node is it
 * @param lockFence the coordinator lock's fence while this node holds it, else 0
 * @param cpMembers CP members known (0 when standalone or unknown)
 */
public record CoordinatorStatus(Phase phase, String detail, long lockFence, int cpMembers) {

  /** The election phases. */
  public enum Phase {
    /** A standalone node: it coordinates itself. */
    STANDALONE,
    /** This node holds the lock. */
    LOCAL,
    /** Another node holds it (or the election is under way); this node follows the assignments. */
    FOLLOWER,
    /** No CP quorum (fewer than the CP member count ever joined, or a majority of them is gone): nothing is scheduled. */
    NO_QUORUM
  }

  public JsonObject toJson() {
    return new JsonObject().put("phase", phase.name()).put("detail", detail).put("lock_fence", lockFence)
        .put("cp_members", cpMembers);
  }
}
