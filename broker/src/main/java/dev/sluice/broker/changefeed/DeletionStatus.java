package dev.sluice.broker.changefeed;

import io.vertx.core.json.JsonObject;

/**
 * Where the deletion of one generation of a changefeed stands.
 *
 * <pre>{@code
 * DeletionStatus s = supervisor.deletion("orders", 3).join();
 * boolean done = s.phase() == DeletionStatus.Phase.COMPLETED;
 * }</pre>
 *
 * @param id         the changefeed id
 * @param generation the generation
 * @param phase      in progress (possibly after failed attempts) or completed
 * @param deletion   its details, or null when a later generation replaced them (then it completed)
 */
public record DeletionStatus(String id, long generation, Phase phase, Deletion deletion) {

  /** The phases of a deletion. */
  public enum Phase {
    /** The cleanup runs or waits for its next attempt (see the last error). */
    IN_PROGRESS,
    /** The cleanup completed; the id can be created again. */
    COMPLETED
  }

  public JsonObject toJson() {
    JsonObject o = new JsonObject().put("id", id).put("generation", generation).put("phase", phase.name());
    if (deletion != null) {
      o.put("keep_meta", deletion.options().keepMeta()).put("attempts", deletion.attempts())
          .put("requested_at_ms", deletion.requestedAtMs()).put("completed_at_ms", deletion.completedAtMs());
      if (deletion.lastError() != null) {
        o.put("last_error", deletion.lastError().toJson());
      }
    }
    return o;
  }
}
