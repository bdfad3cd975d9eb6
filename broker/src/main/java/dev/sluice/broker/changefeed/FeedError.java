package dev.sluice.broker.changefeed;

import dev.sluice.api.secret.Redactor;
import io.vertx.core.json.JsonObject;

/**
 * Why a changefeed failed (or why its cleanup failed), as persisted and shown.
 *
 * <pre>{@code
 * FeedError e = record.lastError();
 * if (e != null && !e.retryable()) System.out.println(e.code() + ": " + e.message());
 * }</pre>
 *
 * @param code      the {@code ErrorCode} name
 * @param message   what happened, for a person
 * @param retryable whether it is retried automatically
 * @param atMs      when, ms since the epoch
 */
public record FeedError(String code, String message, boolean retryable, long atMs) {

  public FeedError {
    message = Redactor.redact(message);   // it is persisted and shown: whatever made it, no secret stays in it
  }

  public JsonObject toJson() {
    return new JsonObject().put("code", code).put("message", message).put("retryable", retryable).put("at_ms", atMs);
  }

  static FeedError fromJson(JsonObject o) {
    return o == null ? null : new FeedError(o.getString("code"), o.getString("message"), o.getBoolean("retryable", false),
        o.getLong("at_ms", 0L));
  }
}
