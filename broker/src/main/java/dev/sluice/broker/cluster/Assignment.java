package dev.sluice.broker.cluster;

import io.vertx.core.json.JsonObject;
import java.util.Objects;

/**
 * Where one hosted changefeed runs: its owner node and the fencing token the owner writes with, and
 * during a move the target that takes over. Written by the coordinator only.
 *
 * <pre>{@code
 * Assignment a = Assignment.assigned("orders", "node-2", 17, now);
 * if (a.state() == AssignmentState.MOVING) ownerStops(a.changefeedId());
 * }</pre>
 *
 * @param changefeedId the changefeed
 * @param state        ASSIGNED or MOVING (UNASSIGNED has no entry)
 * @param nodeId       the owner
 * @param token        the owner's fencing token
 * @param target       during a move, the node that takes over; else null
 * @param sinceMs      when this state began (the coordinator's clock): a move times out from it
 */
public record Assignment(String changefeedId, AssignmentState state, String nodeId, long token, String target,
    long sinceMs) {

  public Assignment {
    Objects.requireNonNull(changefeedId, "changefeedId");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(nodeId, "nodeId");
    if (state == AssignmentState.UNASSIGNED) {
      throw new IllegalArgumentException("an UNASSIGNED changefeed has no assignment entry: " + changefeedId);
    }
    if ((state == AssignmentState.MOVING) != (target != null)) {
      throw new IllegalArgumentException("a MOVING assignment has a target, an ASSIGNED one none: " + changefeedId);
    }
  }

  public static Assignment assigned(String id, String node, long token, long nowMs) {
    return new Assignment(id, AssignmentState.ASSIGNED, node, token, null, nowMs);
  }

  public Assignment moving(String to, long nowMs) {
    return new Assignment(changefeedId, AssignmentState.MOVING, nodeId, token, to, nowMs);
  }

  public JsonObject toJson() {
    JsonObject o = new JsonObject().put("changefeed_id", changefeedId).put("state", state.name()).put("node_id", nodeId)
        .put("token", token).put("since_ms", sinceMs);
    if (target != null) {
      o.put("target", target);
    }
    return o;
  }

  public static Assignment fromJson(JsonObject o) {
    return new Assignment(o.getString("changefeed_id"), AssignmentState.valueOf(o.getString("state")),
        o.getString("node_id"), o.getLong("token"), o.getString("target"), o.getLong("since_ms", 0L));
  }
}
