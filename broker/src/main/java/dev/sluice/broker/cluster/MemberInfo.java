package dev.sluice.broker.cluster;

import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What one node publishes about itself in the cluster, replaced every publish interval: who it is
 * (node id, incarnation, the Hazelcast member it runs as), where clients and peers reach it, its state,
 * the range of commit ts it can serve ({@code [servableFromTs, resolvedTs]}), how far its capture lags,
 * whether it is the coordinator, and the changefeeds it hosts with their fencing tokens.
 *
 * <pre>{@code
 * MemberInfo me = MemberInfo.starting("node-1", incarnation, "", "127.0.0.1:8300", "127.0.0.1:8301");
 * boolean canServe = me.covers(checkpoint);
 * }</pre>
 *
 * @param nodeId         the node's id
 * @param incarnation    random per process start
 * @param memberUuid     the Hazelcast member uuid; empty when standalone
 * @param grpcAddress    advertised gRPC address
 * @param adminAddress   advertised admin API address
 * @param state          STARTING, SERVING or DRAINING as published; UNREACHABLE in views
 * @param servableFromTs the lowest checkpoint it can serve: max(GC point, where its capture began)
 * @param resolvedTs     what it has resolved (event store and schema store)
 * @param captureLagMs   capture lag, -1 before its first transaction
 * @param coordinator    holds the coordinator lock now
 * @param tokenFloor     the highest fencing token this node has seen (persisted: survives a restart of the
 *                       whole cluster, whose new CP subsystem starts counting from zero)
 * @param hosting        changefeed id to the fencing token it runs with
 * @param fencedOut      changefeed id to the higher token a sink showed when it refused this node's writes
 * @param cpMember       a member of the CP subsystem
 * @param updatedAtMs    when it was published (the publisher's clock)
 */
public record MemberInfo(String nodeId, long incarnation, String memberUuid, String grpcAddress, String adminAddress,
    MemberState state, long servableFromTs, long resolvedTs, long captureLagMs, boolean coordinator, long tokenFloor,
    Map<String, Long> hosting, Map<String, Long> fencedOut, boolean cpMember, long updatedAtMs) {

  public MemberInfo {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(state, "state");
    memberUuid = memberUuid == null ? "" : memberUuid;
    grpcAddress = grpcAddress == null ? "" : grpcAddress;
    adminAddress = adminAddress == null ? "" : adminAddress;
    hosting = Map.copyOf(hosting);
    fencedOut = Map.copyOf(fencedOut);
  }

  /** A node that has just started. */
  public static MemberInfo starting(String nodeId, long incarnation, String memberUuid, String grpc, String admin) {
    return new MemberInfo(nodeId, incarnation, memberUuid, grpc, admin, MemberState.STARTING, 0, 0, -1, false, 0,
        Map.of(), Map.of(), false, 0);
  }

  /** Whether a dispatcher resuming from {@code checkpoint} can move here: serving and the rows are kept. */
  public boolean covers(long checkpoint) {
    return state == MemberState.SERVING && (checkpoint == 0 || checkpoint >= servableFromTs);
  }

  /** Whether it takes changefeeds and collectors. */
  public boolean serving() {
    return state == MemberState.SERVING;
  }

  public MemberInfo withState(MemberState s) {
    return new MemberInfo(nodeId, incarnation, memberUuid, grpcAddress, adminAddress, s, servableFromTs, resolvedTs,
        captureLagMs, coordinator, tokenFloor, hosting, fencedOut, cpMember, updatedAtMs);
  }

  public JsonObject toJson() {
    JsonObject h = new JsonObject();
    new TreeMap<>(hosting).forEach(h::put);
    JsonObject f = new JsonObject();
    new TreeMap<>(fencedOut).forEach(f::put);
    return new JsonObject().put("node_id", nodeId).put("incarnation", Long.toUnsignedString(incarnation))
        .put("member_uuid", memberUuid).put("grpc_address", grpcAddress).put("admin_address", adminAddress)
        .put("state", state.name()).put("servable_from_ts", servableFromTs).put("resolved_ts", resolvedTs)
        .put("capture_lag_ms", captureLagMs).put("coordinator", coordinator).put("token_floor", tokenFloor)
        .put("hosting", h).put("fenced_out", f).put("cp_member", cpMember).put("updated_at_ms", updatedAtMs);
  }

  /** Reads what {@link #toJson()} wrote. */
  public static MemberInfo fromJson(JsonObject o) {
    Map<String, Long> hosting = new TreeMap<>();
    JsonObject h = o.getJsonObject("hosting", new JsonObject());
    h.fieldNames().forEach(k -> hosting.put(k, h.getLong(k)));
    Map<String, Long> fenced = new TreeMap<>();
    JsonObject f = o.getJsonObject("fenced_out", new JsonObject());
    f.fieldNames().forEach(k -> fenced.put(k, f.getLong(k)));
    return new MemberInfo(o.getString("node_id"), Long.parseUnsignedLong(o.getString("incarnation", "0")),
        o.getString("member_uuid", ""), o.getString("grpc_address", ""), o.getString("admin_address", ""),
        MemberState.valueOf(o.getString("state")), o.getLong("servable_from_ts", 0L), o.getLong("resolved_ts", 0L),
        o.getLong("capture_lag_ms", -1L), o.getBoolean("coordinator", false), o.getLong("token_floor", 0L), hosting,
        fenced, o.getBoolean("cp_member", false), o.getLong("updated_at_ms", 0L));
  }
}
