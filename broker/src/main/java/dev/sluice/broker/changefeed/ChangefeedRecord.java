package dev.sluice.broker.changefeed;

import io.vertx.core.json.JsonObject;
import java.util.Objects;

/**
 * Everything the server persists about one changefeed id: its definition, state and generation, the
 * last error and retry schedule, the last known checkpoint, and the deletion in progress or done.
 * Immutable; the supervisor replaces it on every change.
 *
 * <p>The generation grows by one on every create of the id and is never reused: the record of a
 * deleted id stays (state REMOVED) with its last generation, so a re-create gets a higher one and
 * a deletion, which acts on one generation only, can never touch a later one.
 *
 * <pre>{@code
 * ChangefeedRecord r = store.get("orders").orElse(ChangefeedRecord.absent("orders"));
 * if (r.state() == ChangefeedState.REMOVED && r.keptCheckpoint()) resumeFrom(r.checkpoint());
 * }</pre>
 *
 * @param id            the changefeed id
 * @param generation    0 for an id never created; +1 per create
 * @param state         where it stands
 * @param spec          the definition; null when REMOVED
 * @param checkpoint    the last known progress (kept after a keep_meta delete, NONE otherwise)
 * @param keptMeta      REMOVED by a keep_meta delete: a re-create resumes from {@code checkpoint}
 * @param lastError     the last runtime error, null when none
 * @param retryCount    failed attempts since the last successful start or RESUME
 * @param nextRetryAtMs when the next automatic attempt is due, 0 when none is armed
 * @param deletion      the deletion of the current (REMOVING) or last (REMOVED) generation, or null
 * @param createdAtMs   when this generation was created
 * @param updatedAtMs   when this record last changed
 * @param gc            when the checkpoint last advanced, and when its GC hold expired ({@link GcHolds})
 * @param writerToken   the fencing token of the node that wrote it (0: written by the coordinator before any
 *                      node hosted it, or by a standalone node before it was fenced)
 * @param revision      +1 per write; with the generation and the token it orders copies of the record that
 *                      different nodes hold ({@link #supersedes})
 */
public record ChangefeedRecord(String id, long generation, ChangefeedState state, ChangefeedSpec spec,
    FeedCheckpoint checkpoint, boolean keptMeta, FeedError lastError, int retryCount, long nextRetryAtMs,
    Deletion deletion, long createdAtMs, long updatedAtMs, GcMark gc, long writerToken,
    long revision) {

  /**
   * The GC hold's clock.
   *
   * @param progressAtMs when the checkpoint last advanced (or the generation was created)
   * @param expiredAtMs  when its hold expired (the broker may have collected the events after it), 0 while held
   */
  public record GcMark(long progressAtMs, long expiredAtMs) {

    public static final GcMark NONE = new GcMark(0, 0);

    GcMark advancedAt(long nowMs) {
      return new GcMark(nowMs, 0);
    }

    GcMark expiredAt(long nowMs) {
      return new GcMark(progressAtMs, nowMs);
    }

    JsonObject toJson() {
      return new JsonObject().put("progress_at_ms", progressAtMs).put("expired_at_ms", expiredAtMs);
    }

    static GcMark fromJson(JsonObject o, long fallbackMs) {
      return o == null ? new GcMark(fallbackMs, 0)
          : new GcMark(o.getLong("progress_at_ms", fallbackMs), o.getLong("expired_at_ms", 0L));
    }
  }

  /** The persisted format; a record of another format is refused rather than misread. */
  public static final int FORMAT = 1;

  public ChangefeedRecord {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(checkpoint, "checkpoint");
    Objects.requireNonNull(gc, "gc");
    if (spec == null && state != ChangefeedState.REMOVED) {
      throw new IllegalArgumentException("a " + state + " changefeed needs a definition: " + id);
    }
  }

  /** An id that was never created: REMOVED at generation 0. */
  public static ChangefeedRecord absent(String id) {
    return new ChangefeedRecord(id, 0, ChangefeedState.REMOVED, null, FeedCheckpoint.NONE, false, null, 0, 0, null, 0, 0,
        GcMark.NONE, 0, 0);
  }

  /**
   * The changefeed checkpoint as recorded: every followed table is applied up to it. Never below the
   * start ts, which a changefeed that has not recorded progress yet is at (not at 0).
   */
  public long checkpointTs() {
    return Math.max(checkpoint.ts(), spec == null ? 0 : spec.startTs());
  }

  /** Whether list and get show it (everything but REMOVED). */
  public boolean visible() {
    return state != ChangefeedState.REMOVED;
  }

  ChangefeedRecord withState(ChangefeedState s, long nowMs) {
    return new ChangefeedRecord(id, generation, s, spec, checkpoint, keptMeta, lastError, retryCount, nextRetryAtMs,
        deletion, createdAtMs, nowMs, gc, writerToken, revision);
  }

  ChangefeedRecord withSpec(ChangefeedSpec s, long nowMs) {
    return new ChangefeedRecord(id, generation, state, s, checkpoint, keptMeta, lastError, retryCount, nextRetryAtMs,
        deletion, createdAtMs, nowMs, gc, writerToken, revision);
  }

  /** With checkpoint {@code c}; one that advanced restarts the GC hold's clock at {@code nowMs}. */
  ChangefeedRecord withCheckpoint(FeedCheckpoint c, long nowMs) {
    GcMark mark = c.ts() > checkpoint.ts() ? gc.advancedAt(nowMs) : gc;
    return new ChangefeedRecord(id, generation, state, spec, c, keptMeta, lastError, retryCount, nextRetryAtMs, deletion,
        createdAtMs, updatedAtMs, mark, writerToken, revision);
  }

  /** An absent id that keeps its last generation (a purged kept checkpoint without a definition). */
  ChangefeedRecord withGeneration(long g) {
    return new ChangefeedRecord(id, g, state, spec, checkpoint, keptMeta, lastError, retryCount, nextRetryAtMs, deletion,
        createdAtMs, updatedAtMs, gc, writerToken, revision);
  }

  /** Its GC hold expired at {@code nowMs}. */
  ChangefeedRecord withGcExpired(long nowMs) {
    return new ChangefeedRecord(id, generation, state, spec, checkpoint, keptMeta, lastError, retryCount, nextRetryAtMs,
        deletion, createdAtMs, nowMs, gc.expiredAt(nowMs), writerToken, revision);
  }

  ChangefeedRecord withRetry(FeedError error, int count, long nextAtMs, long nowMs) {
    return new ChangefeedRecord(id, generation, state, spec, checkpoint, keptMeta, error, count, nextAtMs, deletion,
        createdAtMs, nowMs, gc, writerToken, revision);
  }

  ChangefeedRecord withDeletion(Deletion d, long nowMs) {
    return new ChangefeedRecord(id, generation, state, spec, checkpoint, keptMeta, lastError, retryCount, nextRetryAtMs,
        d, createdAtMs, nowMs, gc, writerToken, revision);
  }

  /** A new generation from {@code spec}, resuming from the kept checkpoint when there is one. */
  ChangefeedRecord recreated(ChangefeedSpec s, long nowMs) {
    return new ChangefeedRecord(id, generation + 1, ChangefeedState.NORMAL, s, keptMeta ? checkpoint : FeedCheckpoint.NONE,
        false, null, 0, 0, null, nowMs, nowMs, keptMeta ? gc : GcMark.NONE.advancedAt(nowMs),
        writerToken, revision);
  }

  /**
   * The tombstone after the cleanup: the checkpoint survives only with keep_meta, and with it the
   * definition (its sink, for a purge; its GC hold's limit).
   */
  ChangefeedRecord removed(Deletion done, long nowMs) {
    boolean keep = done.options().keepMeta();
    return new ChangefeedRecord(id, generation, ChangefeedState.REMOVED, keep ? spec : null,
        keep ? checkpoint : FeedCheckpoint.NONE, keep, null, 0, 0, done, createdAtMs, nowMs, keep ? gc : GcMark.NONE,
        writerToken, revision);
  }

  /** A kept checkpoint being purged: REMOVING with {@code d}, which removes the sink's checkpoint. */
  ChangefeedRecord purging(Deletion d, long nowMs) {
    return new ChangefeedRecord(id, generation, state, spec, checkpoint, keptMeta, lastError, retryCount, nextRetryAtMs,
        d, createdAtMs, nowMs, gc, writerToken, revision);
  }

  /** This copy written by {@code token}, one revision after this one. */
  ChangefeedRecord writtenBy(long token) {
    return new ChangefeedRecord(id, generation, state, spec, checkpoint, keptMeta, lastError, retryCount, nextRetryAtMs,
        deletion, createdAtMs, updatedAtMs, gc, token, revision + 1);
  }

  /**
   * Whether this copy is newer than {@code other}: a later generation, else a write by a newer owner (a
   * higher token: a replaced owner's late writes lose), else a later revision.
   */
  public boolean supersedes(ChangefeedRecord other) {
    if (generation != other.generation) {
      return generation > other.generation;
    }
    if (writerToken != other.writerToken) {
      return writerToken > other.writerToken;
    }
    return revision > other.revision;
  }

  public JsonObject toJson() {
    JsonObject o = new JsonObject().put("format", FORMAT).put("id", id).put("generation", generation)
        .put("state", state.name()).put("checkpoint", checkpoint.toJson()).put("kept_meta", keptMeta)
        .put("retry_count", retryCount).put("next_retry_at_ms", nextRetryAtMs).put("created_at_ms", createdAtMs)
        .put("updated_at_ms", updatedAtMs).put("gc", gc.toJson())
        .put("writer_token", writerToken).put("revision", revision);
    if (spec != null) {
      o.put("spec", spec.toJson());
    }
    if (lastError != null) {
      o.put("last_error", lastError.toJson());
    }
    if (deletion != null) {
      o.put("deletion", deletion.toJson());
    }
    return o;
  }

  /**
   * Reads a persisted record.
   *
   * @throws IllegalStateException when the record has another format or cannot be read
   */
  public static ChangefeedRecord fromJson(JsonObject o) {
    int format = o.getInteger("format", -1);
    if (format != FORMAT) {
      throw new IllegalStateException("changefeed record of format " + format + " (this server reads " + FORMAT + "): "
          + o.getString("id"));
    }
    JsonObject spec = o.getJsonObject("spec");
    return new ChangefeedRecord(o.getString("id"), o.getLong("generation"), ChangefeedState.valueOf(o.getString("state")),
        spec == null ? null : ChangefeedSpec.fromJson(StrictJson.of(spec, "field", ChangefeedSpec.KEYS), 0,
            dev.sluice.dispatcher.changefeed.InitialLoad.NONE),   // written before initial_load: it never loaded
        FeedCheckpoint.fromJson(o.getJsonObject("checkpoint")), o.getBoolean("kept_meta", false),
        FeedError.fromJson(o.getJsonObject("last_error")), o.getInteger("retry_count", 0),
        o.getLong("next_retry_at_ms", 0L), Deletion.fromJson(o.getJsonObject("deletion")),
        o.getLong("created_at_ms", 0L), o.getLong("updated_at_ms", 0L),
        GcMark.fromJson(o.getJsonObject("gc"), o.getLong("updated_at_ms", 0L)), o.getLong("writer_token", 0L),
        o.getLong("revision", 0L));
  }
}
