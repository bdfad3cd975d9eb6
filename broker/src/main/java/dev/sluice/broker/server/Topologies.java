package dev.sluice.broker.server;

import dev.sluice.api.v1.Member;
import dev.sluice.api.v1.Topology;
import dev.sluice.broker.NodeIdentity;
import dev.sluice.broker.cluster.MemberInfo;
import dev.sluice.broker.cluster.MemberState;
import dev.sluice.broker.cluster.Membership;
import dev.sluice.broker.store.EventStore;
import dev.sluice.schema.SchemaStore;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Answers GetTopology from the {@link Membership}: every member with its servable range, state and
 * role; this node's own entry always carries its stores' current values (the others' are their last
 * publish, at most a publish interval old). Also names, for a refused resume, the members that could
 * serve it. Thread-safe.
 */
final class Topologies {

  private final EventStore store;
  private final SchemaStore schema;
  private final Membership membership;
  private volatile NodeIdentity identity;

  Topologies(NodeIdentity identity, EventStore store, SchemaStore schema, Membership membership) {
    this.identity = identity;
    this.store = store;
    this.schema = schema;
    this.membership = membership;
  }

  void update(NodeIdentity me) {
    identity = me;
  }

  NodeIdentity identity() {
    return identity;
  }

  Topology topology() {
    NodeIdentity me = identity;
    Topology.Builder t = Topology.newBuilder().setThisNodeId(me.nodeId());
    String coordinator = "";
    for (MemberInfo m : members()) {
      Member.Builder b = Member.newBuilder().setNodeId(m.nodeId()).setGrpcAddress(m.grpcAddress())
          .setAdminAddress(m.adminAddress()).setIncarnation(m.incarnation()).setResolvedTs(m.resolvedTs())
          .setGcTs(m.servableFromTs()).setCaptureLagMs(m.captureLagMs()).setState(m.state().toProto())
          .setCoordinator(m.coordinator() && m.state() != MemberState.UNREACHABLE);
      if (b.getCoordinator()) {
        coordinator = m.nodeId();
      }
      t.addMembers(b);
    }
    return t.setCoordinatorNodeId(coordinator).build();
  }

  /** Every member, this node's entry with its live values. */
  List<MemberInfo> members() {
    NodeIdentity me = identity;
    return membership.members().stream().map(m -> m.nodeId().equals(me.nodeId()) ? self(m) : m).toList();
  }

  private MemberInfo self(MemberInfo published) {
    NodeIdentity me = identity;
    // before the first publish (a bare event service, as in tests) the node serves
    MemberState state = published.updatedAtMs() == 0 ? MemberState.SERVING : published.state();
    long servableFrom = Math.max(Math.max(store.gcTs(), store.floorTs()), schema.gcTs());
    return new MemberInfo(me.nodeId(), me.incarnation(), published.memberUuid(), me.grpcAddress(), me.adminAddress(),
        state, servableFrom, Math.min(store.resolvedTs(), schema.resolvedTs()), published.captureLagMs(),
        published.coordinator(), published.tokenFloor(), published.hosting(), published.fencedOut(),
        published.cpMember(), published.updatedAtMs());
  }

  /** "node-2 at 127.0.0.1:8310, ..." of the other members that can serve a resume from {@code ts}, or "". */
  String coveringMembers(long ts) {
    String me = identity.nodeId();
    return members().stream().filter(m -> !m.nodeId().equals(me) && m.covers(ts))
        .map(m -> m.nodeId() + " at " + m.grpcAddress()).collect(Collectors.joining(", "));
  }
}
