package dev.sluice.broker.admin;

import dev.sluice.broker.changefeed.ChangefeedRecord;
import dev.sluice.broker.changefeed.ChangefeedSnapshot;
import dev.sluice.broker.changefeed.ChangefeedState;
import dev.sluice.broker.changefeed.CommitClock;
import dev.sluice.broker.changefeed.FeedCheckpoint;
import dev.sluice.dispatcher.changefeed.ChangefeedStatus;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Renders a changefeed for the API: definition (sink URI without passwords), state, generation,
 * checkpoint and lag (in commit-ts units and in ms), per-table state, last error and retry schedule,
 * and the deletion in progress. Reads the event store's time marks: call it off the event loop.
 */
final class ChangefeedViews {

  private final CommitClock clock;

  ChangefeedViews(CommitClock clock) {
    this.clock = clock;
  }

  JsonObject render(ChangefeedSnapshot s) {
    ChangefeedRecord r = s.record();
    long resolved = clock.resolvedTs();
    long checkpoint = s.checkpointTs();
    JsonObject o = new JsonObject().put("id", r.id()).put("generation", r.generation()).put("state", r.state().name())
        .put("definition", r.spec().toPublicJson()).put("checkpoint_ts", checkpoint).put("resolved_ts", resolved)
        .put("lag_ts", Math.max(0, resolved - checkpoint))
        .put("lag_ms", r.state() == ChangefeedState.NORMAL ? clock.lagMs(checkpoint) : null)
        .put("runtime_state", s.live() == null ? null : s.live().state().name())
        .put("tables", tables(s, resolved))
        .put("error", r.lastError() == null ? null : r.lastError().toJson())
        .put("retry", new JsonObject().put("count", r.retryCount()).put("next_retry_at_ms",
            r.nextRetryAtMs() == 0 ? null : r.nextRetryAtMs()))
        .put("created_at_ms", r.createdAtMs()).put("updated_at_ms", r.updatedAtMs());
    if (r.state() == ChangefeedState.REMOVING && r.deletion() != null) {
      o.put("deletion", r.deletion().toJson().put("status_url", "/api/v1/changefeeds/" + r.id() + "/deletion/"
          + r.generation()));
    }
    return o;
  }

  private static JsonArray tables(ChangefeedSnapshot s, long resolved) {
    JsonArray arr = new JsonArray();
    if (s.live() != null) {
      for (ChangefeedStatus.TableStatus t : s.live().tables()) {
        arr.add(new JsonObject().put("table_id", t.tableId()).put("table", t.table())
            .put("dispatcher_state", t.dispatcherState() == null ? null : t.dispatcherState().name())
            .put("checkpoint_ts", t.checkpoint().ts()).put("resolved_ts", t.resolvedTs()).put("lag_ts", t.lag()));
      }
      return arr;
    }
    for (FeedCheckpoint.TableCheckpoint t : s.record().checkpoint().tables()) {
      arr.add(new JsonObject().put("table_id", t.tableId()).put("table", t.table()).put("dispatcher_state", null)
          .put("checkpoint_ts", t.applied().ts()).put("resolved_ts", null)
          .put("lag_ts", Math.max(0, resolved - t.applied().ts())));
    }
    return arr;
  }
}
