package dev.sluice.broker.admin;

import dev.sluice.api.secret.Redactor;
import dev.sluice.broker.capture.CaptureState;
import dev.sluice.broker.capture.CaptureStatus;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Set;

/**
 * The process endpoints: {@code GET /} (an index of links), {@code /healthz} (the process answers),
 * {@code /readyz} (capture streams and the event service listens; 503 with the reasons otherwise) and
 * {@code /metrics} (Prometheus text of every meter, redacted like every other answer).
 */
final class HealthRoutes {

  private final AdminResources resources;

  HealthRoutes(AdminResources resources) {
    this.resources = resources;
  }

  void register(AdminRoutes routes) {
    routes.add(HttpMethod.GET, "/", Set.of(), ex -> ex.json(200, new JsonObject().put("name", "sluice")
        .put("node_id", resources.eventService().identity().nodeId())
        .put("links", new JsonObject().put("changefeeds", "/api/v1/changefeeds").put("dispatchers", "/api/v1/dispatchers")
            .put("captures", "/api/v1/captures").put("tables", "/api/v1/tables").put("members", "/api/v1/members").put("config", "/api/v1/config")
            .put("health", "/healthz").put("ready", "/readyz").put("metrics", "/metrics"))));
    routes.add(HttpMethod.GET, "/healthz", Set.of(), ex -> ex.json(200, new JsonObject().put("status", "up")));
    routes.add(HttpMethod.GET, "/readyz", Set.of(), ex -> {
      JsonArray reasons = new JsonArray();
      CaptureStatus c = resources.capture().get();
      if (c.state() != CaptureState.STREAMING) {
        reasons.add("capture is " + c.state() + (c.lastError() == null ? "" : ": " + c.lastError()));
      }
      if (resources.eventService().port() <= 0) {
        reasons.add("the event service is not listening");
      }
      ex.json(reasons.isEmpty() ? 200 : 503, new JsonObject().put("status", reasons.isEmpty() ? "ready" : "not_ready")
          .put("reasons", reasons));
    });
    routes.add(HttpMethod.GET, "/metrics", Set.of(), ex -> ex.blocking(() -> Redactor.redact(resources.registry().scrape()))
        .onSuccess(text -> ex.context().response().putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            .end(text))
        .onFailure(ex::fail));
  }
}
