package dev.sluice.broker.admin;

import dev.sluice.broker.cluster.MemberInfo;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Set;

/**
 * {@code /api/v1/members}: the cluster as this node sees it, every member with the same facts as the
 * gRPC GetTopology (node id, addresses, incarnation, state, servable range, capture lag, coordinator)
 * plus the changefeeds each hosts and the CP/coordinator status; {@code GET /api/v1/members/{id}} one of
 * them with its drain progress when it is this node; {@code POST /api/v1/members/{id}/drain} drains a
 * member (forwarded to it when it is another node).
 */
final class MemberRoutes {

  private final AdminResources resources;
  private final AdminForwarder forwarder;

  MemberRoutes(AdminResources resources, AdminForwarder forwarder) {
    this.resources = resources;
    this.forwarder = forwarder;
  }

  void register(AdminRoutes routes) {
    routes.add(HttpMethod.GET, "/api/v1/members", Set.of(), ex -> {
      JsonArray members = new JsonArray();
      resources.eventService().members().forEach(m -> members.add(render(m)));
      String me = resources.eventService().identity().nodeId();
      String coordinator = resources.eventService().topology().getCoordinatorNodeId();
      ex.json(200, new JsonObject().put("this_node_id", me).put("cluster", resources.cluster().membership().clustered()
              ? resources.cluster().config().name() : null)
          .put("coordinator_node_id", coordinator.isEmpty() ? null : coordinator)
          .put("coordinator", resources.cluster().coordinator().status().toJson()).put("members", members));
    });
    routes.add(HttpMethod.GET, "/api/v1/members/{id}", Set.of(), ex -> {
      String id = ex.path("id");
      MemberInfo m = member(id);
      boolean self = id.equals(resources.eventService().identity().nodeId());
      if (!self && !AdminForwarder.isForwarded(ex) && m.state() != dev.sluice.broker.cluster.MemberState.UNREACHABLE) {
        forwarder.forward(ex, id, m.adminAddress());   // its drain progress is known there
        return;
      }
      JsonObject body = render(m);
      if (self) {
        body.put("drain", resources.node().drainStatus());
      }
      ex.json(200, body);
    });
    routes.add(HttpMethod.POST, "/api/v1/members/{id}/drain", Set.of(), ex -> {
      ex.checkNoBody();
      String id = ex.path("id");
      MemberInfo m = member(id);
      if (!id.equals(resources.eventService().identity().nodeId())) {
        forwarder.forward(ex, m.nodeId(), m.adminAddress());
        return;
      }
      try {
        resources.node().drain();
      } catch (IllegalStateException e) {
        ex.json(409, AdminErrors.error("INVALID_STATE", e.getMessage()).put("node_id", id));
        return;
      }
      ex.json(202, render(member(id)).put("drain", resources.node().drainStatus()));
    });
  }

  private MemberInfo member(String id) {
    return resources.eventService().members().stream().filter(m -> m.nodeId().equals(id)).findFirst()
        .orElseThrow(() -> new MemberNotFoundException(id));
  }

  static JsonObject render(MemberInfo m) {
    JsonObject hosting = new JsonObject();
    m.hosting().forEach(hosting::put);
    return new JsonObject().put("node_id", m.nodeId()).put("grpc_address", m.grpcAddress())
        .put("admin_address", m.adminAddress()).put("incarnation", Long.toUnsignedString(m.incarnation()))
        .put("state", m.state().name()).put("gc_ts", m.servableFromTs()).put("resolved_ts", m.resolvedTs())
        .put("capture_lag_ms", m.captureLagMs()).put("coordinator", m.coordinator())
        .put("cp_member", m.cpMember()).put("changefeeds", hosting);
  }

  /** No member of that id. */
  static final class MemberNotFoundException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String id;

    MemberNotFoundException(String id) {
      super("no member \"" + id + "\" in this cluster; GET /api/v1/members lists them");
      this.id = id;
    }
  }
}
