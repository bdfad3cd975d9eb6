package dev.sluice.broker.admin;

import dev.sluice.broker.capture.CaptureStatus;
import dev.sluice.broker.publication.PublicationMembers;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.Set;

/**
 * {@code GET /api/v1/captures}: the upstream capture of this node: state, DDL capture mode, slot and
 * publication, position (last stored commit ts, confirmed LSN), the event store's resolved ts, lag in
 * ms behind the upstream's last commit, last error and retry count, and which tables the publication leaves out
 * ({@code publication_tables}: their changes never arrive). A list, for the cluster to come.
 */
final class CaptureRoutes {

  private final AdminResources resources;

  CaptureRoutes(AdminResources resources) {
    this.resources = resources;
  }

  /** At most this many unpublished tables are named; the count says how many there are. */
  private static final int NAMED = 20;

  void register(AdminRoutes routes) {
    routes.add(HttpMethod.GET, "/api/v1/captures", Set.of(), ex -> {
      CaptureStatus s = resources.capture().get();
      JsonObject c = new JsonObject().put("node_id", resources.eventService().identity().nodeId())
          .put("state", s.state().name()).put("ddl_mode", s.mode().name()).put("slot", s.slot())
          .put("publication", s.publication()).put("upstream", s.upstream())
          .put("position", new JsonObject().put("last_commit_ts", s.lastCommitTs()).put("confirmed_lsn",
              s.confirmedLsn()))
          .put("resolved_ts", s.resolvedTs()).put("lag_ms", s.lagMs()).put("last_error", s.lastError())
          .put("retry_count", s.retryCount())
          .put("publication_tables", members(resources.eventService().published().current()));
      ex.json(200, new JsonObject().put("captures", new JsonArray().add(c)));
    });
  }

  /** What the publication leaves out as capture last read it; null before the first read. */
  private static JsonObject members(PublicationMembers m) {
    if (!m.known()) {
      return null;
    }
    JsonArray named = new JsonArray();
    m.unpublished().values().stream().sorted().limit(NAMED).forEach(named::add);
    return new JsonObject().put("all_tables", m.allTables()).put("read_at", Instant.ofEpochMilli(m.readAtMillis())
        .toString()).put("unpublished_count", m.unpublished().size()).put("unpublished", named);
  }
}
