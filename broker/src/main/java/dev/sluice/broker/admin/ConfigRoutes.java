package dev.sluice.broker.admin;

import dev.sluice.broker.changefeed.InvalidChangefeedException;
import dev.sluice.broker.control.EventServiceLimits;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.util.Set;

/**
 * {@code /api/v1/config}: the event service's runtime limits. GET shows them; PATCH applies the keys
 * given (validated by {@link EventServiceLimits#patchedWith}; an unknown key or a bad value is a 400
 * and nothing changes).
 */
final class ConfigRoutes {

  private final AdminResources resources;

  ConfigRoutes(AdminResources resources) {
    this.resources = resources;
  }

  void register(AdminRoutes routes) {
    routes.add(HttpMethod.GET, "/api/v1/config", Set.of(), ex ->
        ex.json(200, resources.eventService().limits().toJson()));
    routes.add(HttpMethod.PATCH, "/api/v1/config", Set.of(), ex -> {
      JsonObject patch = ex.bodyObject(true);
      for (String key : patch.fieldNames()) {
        Object v = patch.getValue(key);
        if (!(v instanceof Integer || v instanceof Long)) {
          throw InvalidChangefeedException.field(key, "must be an integer, got " + v);
        }
      }
      EventServiceLimits next = resources.eventService().limits().patchedWith(patch);
      resources.eventService().updateLimits(next);
      ex.json(200, next.toJson());
    });
  }
}
