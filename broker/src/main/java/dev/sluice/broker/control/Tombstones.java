package dev.sluice.broker.control;

import dev.sluice.api.DispatcherId;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Removed dispatchers remembered for a while, so a late RESET or REGISTER of the removed epoch is
 * answered STALE instead of resurrecting the dispatcher. Confined to the control plane's context;
 * time comes in as {@code nowNanos}.
 */
final class Tombstones {

  private record Tomb(long epoch, long expiresAtNanos) {}

  private final Map<DispatcherId, Tomb> tombs = new HashMap<>();
  private final long ttlNanos;

  Tombstones(long ttlNanos) {
    this.ttlNanos = ttlNanos;
  }

  void add(DispatcherId id, long epoch, long nowNanos) {
    tombs.put(id, new Tomb(epoch, nowNanos + ttlNanos));
  }

  /** The removed epoch, while the tombstone lives. */
  OptionalLong epochOf(DispatcherId id, long nowNanos) {
    Tomb t = tombs.get(id);
    if (t == null) {
      return OptionalLong.empty();
    }
    if (nowNanos - t.expiresAtNanos >= 0) {
      tombs.remove(id);
      return OptionalLong.empty();
    }
    return OptionalLong.of(t.epoch);
  }

  void remove(DispatcherId id) {
    tombs.remove(id);
  }

  /** Drops expired tombstones; returns how many are left. */
  int sweep(long nowNanos) {
    for (Iterator<Tomb> it = tombs.values().iterator(); it.hasNext(); ) {
      if (nowNanos - it.next().expiresAtNanos >= 0) {
        it.remove();
      }
    }
    return tombs.size();
  }

  int size() {
    return tombs.size();
  }
}
