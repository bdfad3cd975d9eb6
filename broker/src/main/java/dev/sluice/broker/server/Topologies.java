package dev.sluice.broker.server;

import dev.sluice.api.v1.Member;
import dev.sluice.api.v1.MemberState;
import dev.sluice.api.v1.Topology;
import dev.sluice.broker.NodeIdentity;
import dev.sluice.broker.store.EventStore;
import dev.sluice.schema.SchemaStore;

/**
 * Answers GetTopology. One node today: itself, serving, with the stores' resolved ts; cluster members
 * join here when membership lands. Thread-safe.
 */
final class Topologies {

  private final EventStore store;
  private final SchemaStore schema;
  private volatile NodeIdentity identity;

  Topologies(NodeIdentity identity, EventStore store, SchemaStore schema) {
    this.identity = identity;
    this.store = store;
    this.schema = schema;
  }

  void update(NodeIdentity me) {
    identity = me;
  }

  NodeIdentity identity() {
    return identity;
  }

  Topology topology() {
    NodeIdentity me = identity;
    return Topology.newBuilder().setThisNodeId(me.nodeId())
        .addMembers(Member.newBuilder().setNodeId(me.nodeId()).setGrpcAddress(nullToEmpty(me.grpcAddress()))
            .setAdminAddress(nullToEmpty(me.adminAddress())).setIncarnation(me.incarnation())
            .setResolvedTs(Math.min(store.resolvedTs(), schema.resolvedTs())).setState(MemberState.MEMBER_STATE_SERVING))
        .build();
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
