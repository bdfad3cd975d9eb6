package dev.sluice.broker.changefeed;

import io.vertx.core.json.JsonObject;

/**
 * A deletion of one generation of a changefeed: requested, attempted, completed. Kept in the record
 * while REMOVING and after (the status URL {@code /deletion/{generation}} reads it).
 *
 * <pre>{@code
 * Deletion d = supervisor.record("orders").deletion();
 * if (d != null && !d.completed()) System.out.println("attempts " + d.attempts());
 * }</pre>
 *
 * @param generation    the generation being (or that was) deleted
 * @param options       keep_meta or not
 * @param requestedAtMs when the first DELETE arrived
 * @param attempts      cleanup attempts so far
 * @param lastError     the last attempt's error, null when none failed
 * @param completedAtMs when the cleanup completed, 0 while it has not
 */
public record Deletion(long generation, DeleteOptions options, long requestedAtMs, int attempts, FeedError lastError,
    long completedAtMs) {

  public boolean completed() {
    return completedAtMs > 0;
  }

  Deletion attempted(FeedError error) {
    return new Deletion(generation, options, requestedAtMs, attempts + 1, error, completedAtMs);
  }

  Deletion completedAt(long nowMs) {
    return new Deletion(generation, options, requestedAtMs, attempts + 1, null, nowMs);
  }

  public JsonObject toJson() {
    JsonObject o = new JsonObject().put("generation", generation).put("keep_meta", options.keepMeta())
        .put("requested_at_ms", requestedAtMs).put("attempts", attempts).put("completed_at_ms", completedAtMs);
    if (lastError != null) {
      o.put("last_error", lastError.toJson());
    }
    return o;
  }

  static Deletion fromJson(JsonObject o) {
    return o == null ? null : new Deletion(o.getLong("generation"), DeleteOptions.fromJson(o),
        o.getLong("requested_at_ms", 0L), o.getInteger("attempts", 0), FeedError.fromJson(o.getJsonObject("last_error")),
        o.getLong("completed_at_ms", 0L));
  }
}
