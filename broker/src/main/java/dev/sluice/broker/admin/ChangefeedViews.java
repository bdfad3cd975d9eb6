package dev.sluice.broker.admin;

import dev.sluice.broker.changefeed.ChangefeedRecord;
import dev.sluice.broker.changefeed.ChangefeedSnapshot;
import dev.sluice.broker.changefeed.ChangefeedState;
import dev.sluice.broker.changefeed.CommitClock;
import dev.sluice.broker.changefeed.FeedCheckpoint;
import dev.sluice.broker.changefeed.GcHolds;
import dev.sluice.broker.cluster.Assignments;
import dev.sluice.dispatcher.changefeed.ChangefeedStatus;
import dev.sluice.dispatcher.sink.TableSnapshot;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Renders a changefeed for the API: definition (sink URI without passwords), state, generation,
 * checkpoint and lag, per-table state and lag, warnings, last error and retry schedule, and the
 * deletion in progress. Reads the event store's time marks: call it off the event loop.
 *
 * <p><b>Lag</b>, for the changefeed and for each table alike, from its checkpoint {@code C} (the
 * changefeed's is the minimum of its tables', never below the start ts): {@code lag_ts} is the
 * servable ts (the lower of the event and schema stores' resolved ts) minus {@code C}, in commit-ts
 * units; {@code lag_ms} is how long the oldest upstream transaction committed after {@code C} has
 * waited since its commit (0 when none: caught up), null unless NORMAL. The changefeed's lag is the
 * larger of its own checkpoint's and its furthest table's, from one clock reading per answer, so it is
 * never below any table's.
 * Also which node hosts it with which fencing token.
 */
final class ChangefeedViews {

  private final CommitClock clock;
  private final LongSupplier servableTs;
  private final Assignments assignments;

  ChangefeedViews(CommitClock clock, LongSupplier servableTs, Assignments assignments) {
    this.clock = clock;
    this.servableTs = servableTs;
    this.assignments = assignments;
  }

  JsonObject render(ChangefeedSnapshot s) {
    ChangefeedRecord r = s.record();
    long servable = servableTs.getAsLong();
    long checkpoint = s.checkpointTs();
    boolean normal = r.state() == ChangefeedState.NORMAL;
    Map<Long, Long> lagMs = new HashMap<>();   // one clock reading per checkpoint within this answer
    JsonArray tables = tables(s, servable, normal, lagMs);
    long lagTs = Math.max(0, servable - checkpoint);
    Long lag = normal ? lagMs.computeIfAbsent(checkpoint, clock::lagMs) : null;
    for (Object t : tables) {   // the changefeed is as far behind as its furthest table, at least
      JsonObject table = (JsonObject) t;
      lagTs = Math.max(lagTs, table.getLong("lag_ts"));
      lag = lag == null ? null : Math.max(lag, table.getLong("lag_ms"));
    }
    JsonObject o = new JsonObject().put("id", r.id()).put("generation", r.generation()).put("state", r.state().name())
        .put("definition", r.spec().toPublicJson()).put("checkpoint_ts", checkpoint).put("resolved_ts", servable)
        .put("lag_ts", lagTs).put("lag_ms", lag)
        .put("runtime_state", s.live() == null ? null : s.live().state().name())
        .put("apply_mode", r.spec().options().applyMode().name().toLowerCase(java.util.Locale.ROOT))
        .put("initial_load", r.spec().initialLoad().name().toLowerCase(java.util.Locale.ROOT))
        .put("tables", tables)
        .put("snapshot", snapshot(s))
        .put("warnings", new JsonArray(s.live() == null ? java.util.List.of() : s.live().warnings()))
        .put("divergences", divergences(s))
        .put("gc_hold", gcHold(s.gcHold()))
        .put("error", r.lastError() == null ? null : r.lastError().toJson())
        .put("retry", new JsonObject().put("count", r.retryCount()).put("next_retry_at_ms",
            r.nextRetryAtMs() == 0 ? null : r.nextRetryAtMs()))
        .put("created_at_ms", r.createdAtMs()).put("updated_at_ms", r.updatedAtMs());
    assignments.of(r.id()).ifPresentOrElse(a -> o.put("placement", new JsonObject().put("node_id", a.nodeId())
            .put("state", a.state().name()).put("token", a.token()).put("target", a.target())),
        () -> o.put("placement", null));
    if (r.state() == ChangefeedState.REMOVING && r.deletion() != null) {
      o.put("deletion", r.deletion().toJson().put("status_url", "/api/v1/changefeeds/" + r.id() + "/deletion/"
          + r.generation()));
    }
    return o;
  }

  private JsonArray tables(ChangefeedSnapshot s, long servable, boolean normal, Map<Long, Long> lagMs) {
    JsonArray arr = new JsonArray();
    if (s.live() != null) {
      for (ChangefeedStatus.TableStatus t : s.live().tables()) {
        long ts = t.checkpoint().ts();
        boolean ended = t.phase() == ChangefeedStatus.TablePhase.ENDED;   // nothing of it is behind any more
        arr.add(new JsonObject().put("table_id", t.tableId()).put("table", t.table())
            .put("phase", t.phase().name())
            .put("dispatcher_state", t.dispatcherState() == null ? null : t.dispatcherState().name())
            .put("checkpoint_ts", ts).put("resolved_ts", t.resolvedTs())
            .put("lag_ts", ended ? 0 : Math.max(0, servable - ts))
            .put("lag_ms", !normal ? null : ended ? 0L : lagMs.computeIfAbsent(ts, clock::lagMs))
            .put("note", t.note()).put("snapshot", t.snapshot() == null ? null : snapshot(t.table(), t.snapshot())));
      }
      return arr;
    }
    for (FeedCheckpoint.TableCheckpoint t : s.record().checkpoint().tables()) {
      long ts = t.applied().ts();
      boolean ended = t.droppedTs() > 0;
      arr.add(new JsonObject().put("table_id", t.tableId()).put("table", t.table())
          .put("phase", ended ? ChangefeedStatus.TablePhase.ENDED.name() : ChangefeedStatus.TablePhase.FOLLOWING.name())
          .put("dispatcher_state", null).put("checkpoint_ts", ts).put("resolved_ts", null)
          .put("lag_ts", ended ? 0 : Math.max(0, servable - ts))
          .put("lag_ms", !normal ? null : ended ? 0L : lagMs.computeIfAbsent(ts, clock::lagMs)).put("note", null)
          .put("snapshot", t.snapshot().state() == TableSnapshot.State.NONE ? null
              : storedSnapshot(s.record().state(), t)));
    }
    return arr;
  }

  /**
   * The changefeed's snapshots: {@code state} (none, running, paused, failed, cancelled, done: the first that
   * any table is in, in that order after none), one entry per table that has one, and {@code as_of}: "live"
   * (the runtime's figures) or, while no runtime runs, "stored" (the last the server recorded, see
   * {@link #storedSnapshot}).
   *
   * <pre>{@code
   * {"state": "paused", "as_of": "stored", "tables": [{"table": "public.items", "state": "paused",
   *   "rows_done": 1200, "rows_estimated": null, "percent": null, "rows_per_s": null, "eta_s": null,
   *   "reason": "the changefeed is paused: resuming it continues the snapshot"}]}
   * }</pre>
   */
  static JsonObject snapshot(ChangefeedSnapshot s) {
    JsonArray tables = new JsonArray();
    java.util.EnumSet<TableSnapshot.State> states = java.util.EnumSet.noneOf(TableSnapshot.State.class);
    if (s.live() != null) {
      for (ChangefeedStatus.TableStatus t : s.live().tables()) {
        if (t.snapshot() != null) {
          tables.add(snapshot(t.table(), t.snapshot()));
          states.add(t.snapshot().state());
        }
      }
    } else {
      for (FeedCheckpoint.TableCheckpoint t : s.record().checkpoint().tables()) {
        if (t.snapshot().state() != TableSnapshot.State.NONE) {
          JsonObject table = storedSnapshot(s.record().state(), t);
          tables.add(table);
          states.add(TableSnapshot.State.valueOf(table.getString("state").toUpperCase(java.util.Locale.ROOT)));
        }
      }
    }
    String state = "none";
    for (TableSnapshot.State candidate : java.util.List.of(TableSnapshot.State.RUNNING, TableSnapshot.State.PAUSED,
        TableSnapshot.State.FAILED, TableSnapshot.State.CANCELLED, TableSnapshot.State.DONE)) {
      if (states.contains(candidate)) {
        state = candidate.name().toLowerCase(java.util.Locale.ROOT);
        break;
      }
    }
    return new JsonObject().put("state", state).put("as_of", s.live() == null ? "stored" : "live")
        .put("tables", tables);
  }

  /**
   * A table's snapshot as last recorded, for a changefeed whose runtime does not run: its stored state and rows
   * (no estimate, rate or time left: those belong to a run). A snapshot stored as running is not running: it
   * shows as "paused" while the changefeed is PAUSED and "failed" while it is FAILED (a resume, or the retry,
   * continues it from its last chunk); in any other state (NORMAL between runs, REMOVING) it shows as running.
   * The stored record keeps no reason: a snapshot stored as failed or cancelled has none.
   */
  static JsonObject storedSnapshot(ChangefeedState feed, FeedCheckpoint.TableCheckpoint t) {
    TableSnapshot.State stored = t.snapshot().state();
    TableSnapshot.State shown = stored != TableSnapshot.State.RUNNING ? stored
        : feed == ChangefeedState.PAUSED ? TableSnapshot.State.PAUSED
        : feed == ChangefeedState.FAILED ? TableSnapshot.State.FAILED : stored;
    String reason = shown == stored ? null : feed == ChangefeedState.PAUSED
        ? "the changefeed is paused: resuming it continues the snapshot"
        : "the changefeed failed (see its error): its retry or a resume continues the snapshot";
    return new JsonObject().put("table", t.table()).put("state", shown.name().toLowerCase(java.util.Locale.ROOT))
        .put("rows_done", t.snapshot().rows()).put("rows_estimated", null).put("percent", null)
        .put("rows_per_s", null).put("eta_s", null).put("reason", reason);
  }

  private static JsonObject snapshot(String table, ChangefeedStatus.SnapshotStatus p) {
    return new JsonObject().put("table", table).put("state", p.state().name().toLowerCase(java.util.Locale.ROOT))
        .put("rows_done", p.rowsDone()).put("rows_estimated", p.rowsEstimated()).put("percent", p.percent())
        .put("rows_per_s", Math.round(p.rowsPerSecond() * 10) / 10.0).put("eta_s", p.etaSeconds())
        .put("reason", p.reason());
  }

  private static JsonArray divergences(ChangefeedSnapshot s) {
    JsonArray arr = new JsonArray();
    if (s.live() != null) {
      for (ChangefeedStatus.Divergence d : s.live().divergences()) {
        arr.add(new JsonObject().put("table", d.table()).put("column", d.column()).put("since_ts", d.sinceTs())
            .put("reason", d.reason()));
      }
    }
    return arr;
  }

  private static JsonObject gcHold(GcHolds.Hold h) {
    return new JsonObject().put("phase", h.phase().name()).put("held_ts", h.phase() == GcHolds.Phase.NONE ? null
        : h.heldTs()).put("expires_at_ms", h.expiresAtMs() == 0 ? null : h.expiresAtMs());
  }
}
