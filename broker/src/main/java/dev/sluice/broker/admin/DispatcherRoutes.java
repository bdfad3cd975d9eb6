package dev.sluice.broker.admin;

import dev.sluice.broker.changefeed.InvalidChangefeedException;
import dev.sluice.broker.control.DispatcherView;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code GET /api/v1/dispatchers}: every dispatcher registered on this broker with its lag: the
 * servable ts (the lower of the event and schema stores' resolved ts) minus its checkpoint, in
 * commit-ts units and, from the store's time marks, in ms. {@code changefeed} filters,
 * {@code limit} (default {@value #DEFAULT_LIMIT}) caps the answer. {@code published} is false for a dispatcher
 * whose table the upstream publication has left out since it registered: none of its changes arrive any more.
 */
final class DispatcherRoutes {

  static final int DEFAULT_LIMIT = 1000;

  private final AdminResources resources;

  DispatcherRoutes(AdminResources resources) {
    this.resources = resources;
  }

  void register(AdminRoutes routes) {
    routes.add(HttpMethod.GET, "/api/v1/dispatchers", Set.of("changefeed", "limit"), ex -> {
      String changefeed = ex.query("changefeed");
      int limit = limit(ex.query("limit"));
      ex.reply(200, resources.eventService().controlPlane().dispatchers().compose(all -> ex.blocking(() ->
          render(all, changefeed, limit))));
    });
  }

  private JsonObject render(List<DispatcherView> all, String changefeed, int limit) {
    long servable = resources.servableTs();
    JsonArray arr = new JsonArray();
    Map<Long, Long> lagMsByCheckpoint = new HashMap<>();
    int matched = 0;
    for (DispatcherView d : all) {
      if (changefeed != null && !changefeed.equals(d.changefeedId())) {
        continue;
      }
      matched++;
      if (arr.size() >= limit) {
        continue;
      }
      long lagMs = lagMsByCheckpoint.computeIfAbsent(d.checkpointTs(), ts -> resources.clock().lagMs(ts));
      arr.add(new JsonObject().put("id", d.id()).put("changefeed_id", d.changefeedId()).put("span", d.span())
          .put("collector_id", d.collectorId()).put("epoch", d.epoch()).put("streaming", d.streaming())
          .put("checkpoint_ts", d.checkpointTs()).put("lag_ts", Math.max(0, servable - d.checkpointTs()))
          .put("lag_ms", lagMs).put("published", d.published()));
    }
    return new JsonObject().put("resolved_ts", servable).put("total", matched).put("truncated", matched > arr.size())
        .put("dispatchers", arr);
  }

  private static int limit(String value) {
    if (value == null) {
      return DEFAULT_LIMIT;
    }
    try {
      int v = Integer.parseInt(value);
      if (v >= 1 && v <= 100_000) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw InvalidChangefeedException.field("limit", "must be an integer in [1, 100000], got \"" + value + "\"");
  }
}
