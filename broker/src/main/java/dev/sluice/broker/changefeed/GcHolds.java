package dev.sluice.broker.changefeed;

import java.util.Collection;

/**
 * How the hosted changefeeds' checkpoints hold the broker's GC, so that a changefeed that does not run
 * (PAUSED, FAILED, being deleted, or deleted with keep_meta) can still resume: each holds the events
 * after its checkpoint for its {@code gc_ttl_s} (default 24 h) after the checkpoint last advanced, is
 * warned about in the last fifth of that time, and expires after it (the broker may then collect those
 * events; a resume fails with START_TS_BELOW_GC once it did). A NORMAL changefeed holds without limit
 * (its dispatchers hold GC too). Pure: the time comes in.
 *
 * <pre>{@code
 * GcHolds.Hold h = GcHolds.of(record, nowMs);
 * if (h.phase() == GcHolds.Phase.EXPIRING) warn(h.expiresAtMs());
 * long gcBound = GcHolds.lowest(records.values(), nowMs);
 * }</pre>
 */
public final class GcHolds {

  /** Where a changefeed's hold stands. */
  public enum Phase {
    /** Nothing to hold: removed without a kept checkpoint. */
    NONE,
    /** It runs: held while it runs. */
    RUNNING,
    /** It does not run; held until {@link Hold#expiresAtMs()}. */
    HOLDING,
    /** As HOLDING, in the last fifth of its time: it will expire soon unless it advances. */
    EXPIRING,
    /** Its time ran out: the events after its checkpoint may be collected. */
    EXPIRED;

    /** Whether the broker keeps the events after the checkpoint for it. */
    public boolean holds() {
      return this == RUNNING || this == HOLDING || this == EXPIRING;
    }
  }

  /**
   * One changefeed's hold.
   *
   * @param heldTs      the ts the broker's GC may not pass for it (its checkpoint)
   * @param expiresAtMs when it expires; 0 while it runs (no limit) or when there is nothing to hold
   */
  public record Hold(Phase phase, long heldTs, long expiresAtMs) {

    static final Hold NONE = new Hold(Phase.NONE, 0, 0);

    /** Milliseconds until it expires at {@code nowMs}; -1 when it does not expire. */
    public long remainingMs(long nowMs) {
      return phase == Phase.HOLDING || phase == Phase.EXPIRING ? Math.max(0, expiresAtMs - nowMs) : -1;
    }
  }

  private GcHolds() {}

  /** The hold of {@code r} at {@code nowMs}. */
  public static Hold of(ChangefeedRecord r, long nowMs) {
    if (!r.visible() && !r.keptMeta()) {
      return Hold.NONE;
    }
    // before its first recorded progress, a changefeed resumes from its start ts
    long held = Math.max(r.checkpoint().ts(), r.spec() == null ? 0 : r.spec().startTs());
    if (r.state() == ChangefeedState.NORMAL) {
      return new Hold(Phase.RUNNING, held, 0);
    }
    long ttlMs = (r.spec() == null ? ChangefeedOptions.DEFAULT_GC_TTL_S : r.spec().options().gcTtlS()) * 1000;
    long expiresAt = r.gc().progressAtMs() + ttlMs;
    if (r.gc().expiredAtMs() > 0 || nowMs >= expiresAt) {
      return new Hold(Phase.EXPIRED, held, expiresAt);
    }
    return new Hold(nowMs >= expiresAt - ttlMs / 5 ? Phase.EXPIRING : Phase.HOLDING, held, expiresAt);
  }

  /** The lowest ts any of {@code records} holds at {@code nowMs}; {@link Long#MAX_VALUE} when none holds. */
  public static long lowest(Collection<ChangefeedRecord> records, long nowMs) {
    long min = Long.MAX_VALUE;
    for (ChangefeedRecord r : records) {
      Hold h = of(r, nowMs);
      if (h.phase().holds()) {
        min = Math.min(min, h.heldTs());
      }
    }
    return min;
  }
}
