package dev.sluice.broker.changefeed;

import io.vertx.core.json.JsonObject;

/**
 * How a changefeed is deleted: a named value, so a destructive delete is never one transposed
 * boolean away from a keeping one.
 *
 * <pre>{@code
 * supervisor.delete("orders", DeleteOptions.KEEP_META);
 * }</pre>
 *
 * @param keepMeta keep the checkpoint and per-table progress (on the server, and the sink's own
 *                 checkpoint rows or file) so that re-creating the same id resumes from them
 */
public record DeleteOptions(boolean keepMeta) {

  /** Keep the checkpoint and per-table progress for a later re-create of the same id. */
  public static final DeleteOptions KEEP_META = new DeleteOptions(true);
  /** Remove the changefeed with its checkpoints (the default). */
  public static final DeleteOptions REMOVE_META = new DeleteOptions(false);

  public JsonObject toJson() {
    return new JsonObject().put("keep_meta", keepMeta);
  }

  static DeleteOptions fromJson(JsonObject o) {
    return o.getBoolean("keep_meta", false) ? KEEP_META : REMOVE_META;
  }
}
