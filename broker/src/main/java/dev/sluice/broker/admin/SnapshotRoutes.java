package dev.sluice.broker.admin;

import dev.sluice.api.DispatcherId;
import dev.sluice.broker.snapshot.SessionView;
import dev.sluice.broker.snapshot.SnapshotService;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Optional;
import java.util.Set;

/**
 * The snapshots this broker reads for its dispatchers (docs/EVENT-SERVICE.md "Snapshots"):
 * {@code GET /api/v1/snapshots} lists each with its progress (rows read of the estimate, rate, ETA) and the
 * readers' shared limits; {@code DELETE /api/v1/snapshots/{dispatcher_id}} cancels one at an operator's
 * request, and its dispatcher hears SnapshotDone(CANCELLED) in its stream (changes go on).
 */
final class SnapshotRoutes {

  private final AdminResources resources;

  SnapshotRoutes(AdminResources resources) {
    this.resources = resources;
  }

  void register(AdminRoutes routes) {
    routes.add(HttpMethod.GET, "/api/v1/snapshots", Set.of("changefeed"), ex -> {
      SnapshotService s = resources.eventService().snapshots();
      String changefeed = ex.query("changefeed");
      JsonArray list = new JsonArray();
      if (s != null) {
        for (SessionView v : s.sessions()) {
          if (changefeed == null || changefeed.equals(v.changefeedId())) {
            list.add(render(v));
          }
        }
      }
      JsonObject body = new JsonObject().put("snapshots", list).put("available", s != null);
      if (s != null) {
        var limits = resources.eventService().limits();
        body.put("readers", s.config().readers()).put("chunk_rows", s.config().chunkRows())
            .put("chunk_bytes", s.config().chunkBytes()).put("memory_max_bytes", s.config().memoryBytes())
            .put("rows_per_second_limit", limits.snapshotRowsPerSecond())
            .put("bytes_per_second_limit", limits.snapshotBytesPerSecond());
      }
      ex.json(200, body);
    });
    routes.add(HttpMethod.DELETE, "/api/v1/snapshots/{dispatcher_id}", Set.of(), ex -> {
      ex.checkNoBody();
      String raw = ex.path("dispatcher_id");
      DispatcherId id;
      try {
        id = DispatcherId.parse(raw);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("dispatcher_id must be 32 hex digits, got \"" + raw + "\"");
      }
      SnapshotService s = resources.eventService().snapshots();
      Optional<SessionView> cancelled = s == null ? Optional.empty()
          : s.cancel(id, "cancelled by an operator (DELETE /api/v1/snapshots/" + id + ")");
      if (cancelled.isEmpty()) {
        ex.json(404, AdminErrors.error("NOT_FOUND", "no snapshot runs for dispatcher " + id + " on this broker;"
            + " GET /api/v1/snapshots lists them"));
        return;
      }
      ex.json(200, render(cancelled.get()));
    });
  }

  static JsonObject render(SessionView v) {
    return new JsonObject().put("dispatcher_id", v.dispatcherId()).put("epoch", v.epoch())
        .put("changefeed_id", v.changefeedId()).put("table", v.table()).put("keyless", v.keyless())
        .put("state", v.state().name()).put("rows_read", v.rowsRead()).put("rows_estimate", v.rowsEstimate())
        .put("percent", v.percent() < 0 ? null : Math.round(v.percent() * 10) / 10.0)
        .put("rows_per_second", Math.round(v.rowsPerSecond())).put("eta_seconds", v.etaSeconds() < 0 ? null
            : v.etaSeconds()).put("chunks", v.chunks()).put("rereads", v.rereads()).put("last_error", v.lastError());
  }
}
