package dev.sluice.broker.changefeed;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the hosted changefeeds' GC holds ({@link GcHolds}): logs each change of one once (a warning in
 * its last fifth, an error when it expired), keeps the hold meters current, and says which records to mark
 * expired. Supervisor thread only.
 *
 * <pre>{@code
 * for (ChangefeedRecord expired : watch.check(records.values(), nowMs)) persist(expired.withGcExpired(nowMs));
 * }</pre>
 */
final class GcHoldWatch {

  private static final Logger log = LoggerFactory.getLogger(GcHoldWatch.class);

  private final ChangefeedMetrics metrics;
  /** The phase last seen per id, so that each change is logged once. */
  private final Map<String, GcHolds.Phase> phases = new HashMap<>();

  GcHoldWatch(ChangefeedMetrics metrics) {
    this.metrics = metrics;
  }

  /** Checks every record at {@code nowMs}; returns those whose hold expired and whose record does not say so yet. */
  List<ChangefeedRecord> check(Collection<ChangefeedRecord> records, long nowMs) {
    List<ChangefeedRecord> expired = new ArrayList<>();
    for (ChangefeedRecord r : records) {
      GcHolds.Hold h = GcHolds.of(r, nowMs);
      GcHolds.Phase last = phases.put(r.id(), h.phase());
      metrics.gcHold(r.id(), h, nowMs);
      if (h.phase() != last && h.phase() == GcHolds.Phase.EXPIRING) {
        log.atWarn().addKeyValue("changefeedId", r.id()).addKeyValue("state", r.state())
            .addKeyValue("checkpointTs", h.heldTs()).addKeyValue("expiresAt", Instant.ofEpochMilli(h.expiresAtMs()))
            .log("the changefeed's checkpoint will stop holding the broker's GC soon: resume it (or purge it) before"
                + " then, or raise options.gc_ttl_s");
      } else if (h.phase() != last && h.phase() == GcHolds.Phase.EXPIRED && last != null) {
        log.atError().addKeyValue("changefeedId", r.id()).addKeyValue("state", r.state())
            .addKeyValue("checkpointTs", h.heldTs())
            .log("the changefeed's checkpoint no longer holds the broker's GC (options.gc_ttl_s without progress): its"
                + " events may be collected and a resume then fails with START_TS_BELOW_GC");
      }
      if (h.phase() == GcHolds.Phase.EXPIRED && r.gc().expiredAtMs() == 0) {
        expired.add(r);
      }
    }
    return expired;
  }

  /** The changefeed is gone (removed without a kept checkpoint). */
  void forget(String id) {
    phases.remove(id);
  }

  /** The lowest checkpoint held by those of {@code records} that read from this broker. */
  static long lowestLocal(Collection<ChangefeedRecord> records, long nowMs) {
    List<ChangefeedRecord> local = new ArrayList<>();
    for (ChangefeedRecord r : records) {
      if (r.spec() == null || r.spec().brokers().isEmpty()) {
        local.add(r);
      }
    }
    return GcHolds.lowest(local, nowMs);
  }
}
