package dev.sluice.broker.admin;

import dev.sluice.broker.NodeIdentity;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Set;

/**
 * {@code GET /api/v1/members}: the cluster topology as this node sees it (today: itself), with the
 * same facts as the gRPC GetTopology: node id, gRPC and admin addresses, incarnation, resolved ts.
 */
final class MemberRoutes {

  private final AdminResources resources;

  MemberRoutes(AdminResources resources) {
    this.resources = resources;
  }

  void register(AdminRoutes routes) {
    routes.add(HttpMethod.GET, "/api/v1/members", Set.of(), ex -> {
      NodeIdentity me = resources.eventService().identity();
      JsonObject member = new JsonObject().put("node_id", me.nodeId()).put("grpc_address", me.grpcAddress())
          .put("admin_address", me.adminAddress() == null ? "" : me.adminAddress()).put("incarnation", Long.toUnsignedString(me.incarnation()))
          .put("resolved_ts", resources.servableTs()).put("state", "SERVING");
      ex.json(200, new JsonObject().put("this_node_id", me.nodeId()).put("members", new JsonArray().add(member)));
    });
  }
}
