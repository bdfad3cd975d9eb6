package dev.sluice.broker.admin;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.broker.config.LiveConfig;
import io.vertx.core.Future;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.util.Set;

/**
 * {@code /api/v1/config}: GET shows every setting's effective value and where it came from (default,
 * file, env, flag, runtime; secrets as {@code ***}); PATCH changes runtime settings (the event
 * service's limits), keeps the change in the data directory (synced) so it survives a restart, then
 * applies it. An unknown key, a key fixed at start or a bad value is a 400 and nothing changes (see
 * {@link LiveConfig} for how runtime values combine with the file, environment and flags).
 *
 * <p>PATCHes are handled one after another, each planned from the state the previous one left.
 */
final class ConfigRoutes {

  private final AdminResources resources;
  private Future<?> last = Future.succeededFuture();   // the PATCH in progress; event-loop confined

  ConfigRoutes(AdminResources resources) {
    this.resources = resources;
  }

  void register(AdminRoutes routes) {
    routes.add(HttpMethod.GET, "/api/v1/config", Set.of(), ex ->
        ex.json(200, resources.config().view(resources.eventService().limits())));
    routes.add(HttpMethod.PATCH, "/api/v1/config", Set.of(), ex -> {
      JsonObject patch = ex.bodyObject(true);
      Future<JsonObject> done = last.transform(ignored -> patch(ex, patch));
      last = done;
      ex.reply(200, done);
    });
  }

  private Future<JsonObject> patch(AdminExchange ex, JsonObject patch) {
    LiveConfig live = resources.config();
    LiveConfig.Plan plan;
    try {
      plan = live.plan(patch);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    Future<Void> kept = live.dir() == null ? Future.succeededFuture() : ex.context().vertx().executeBlocking(() -> {
      plan.overrides().save(live.dir());
      return null;
    }, true);
    return kept.recover(e -> Future.failedFuture(SluiceException.of(ErrorCode.STORE_UNAVAILABLE, "could not keep the"
        + " runtime settings in " + live.dir() + " (" + e.getMessage() + "); nothing was changed", e)))
        .map(v -> {
          resources.eventService().updateLimits(plan.limits());
          live.commit(plan);
          return live.view(resources.eventService().limits());
        });
  }
}
