package dev.sluice.broker.control;

import dev.sluice.api.DispatcherId;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Computes the GC point of the event store and the schema store: the lowest checkpoint any live (or
 * recently disconnected) dispatcher may still resume from, bounded by a retention window for the case
 * of no consumers at all. Never moves backwards. Confined to the control plane's context; time comes
 * in as {@code nowNanos}.
 *
 * <p>Retention is tracked by samples of (resolved ts, time) taken at each {@link #next} call, so it
 * needs no time index in the store; after a restart nothing is collected until one retention period
 * of samples exists (safe side).
 */
final class GcCoordinator {

  private record Sample(long resolvedTs, long atNanos) {}

  private record Hold(long ts, long expiresAtNanos) {}

  private final long retentionNanos;
  private final long detachedTtlNanos;
  private final ArrayDeque<Sample> samples = new ArrayDeque<>();
  private final Map<DispatcherId, Hold> detached = new HashMap<>();
  private long gcTs;

  GcCoordinator(long retentionNanos, long detachedTtlNanos, long initialGcTs) {
    this.retentionNanos = retentionNanos;
    this.detachedTtlNanos = detachedTtlNanos;
    this.gcTs = initialGcTs;
  }

  /** The GC point already requested: a new registration must start at or above {@code gcTs - 1}. */
  long gcTs() {
    return gcTs;
  }

  /** Keeps a disconnected dispatcher's checkpoint for a while so it can come back and resume. */
  void holdDetached(DispatcherId id, long checkpointTs, long nowNanos) {
    detached.put(id, new Hold(checkpointTs, nowNanos + detachedTtlNanos));
  }

  /** The dispatcher came back (re-registered) or was removed on purpose. */
  void releaseDetached(DispatcherId id) {
    detached.remove(id);
  }

  int detachedHolds() {
    return detached.size();
  }

  /**
   * The new GC point, or -1 when it does not move.
   *
   * @param minLiveCheckpoint lowest checkpoint of registered dispatchers, {@link Long#MAX_VALUE} if none
   * @param resolvedTs        the stores' resolved ts now
   */
  long next(long minLiveCheckpoint, long resolvedTs, long nowNanos) {
    samples.addLast(new Sample(resolvedTs, nowNanos));
    // keep only the newest sample older than the window, and everything younger
    Sample oldest = samples.pollFirst();
    while (!samples.isEmpty() && nowNanos - samples.peekFirst().atNanos >= retentionNanos) {
      oldest = samples.pollFirst();
    }
    samples.addFirst(oldest);
    if (nowNanos - oldest.atNanos < retentionNanos) {
      return -1;
    }
    long retained = oldest.resolvedTs;
    long target = Math.min(retained, minLiveCheckpoint);
    for (Iterator<Hold> it = detached.values().iterator(); it.hasNext(); ) {
      Hold h = it.next();
      if (nowNanos - h.expiresAtNanos >= 0) {
        it.remove();
      } else {
        target = Math.min(target, h.ts);
      }
    }
    target = Math.min(target, resolvedTs);
    if (target <= gcTs) {
      return -1;
    }
    gcTs = target;
    return target;
  }
}
