package dev.sluice.broker.changefeed;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The hosted changefeeds' meters: {@code sluice.changefeed.state} (changefeeds per state) and
 * {@code sluice.changefeed.checkpoint.lag.ms} (per changefeed: how long the oldest change after its
 * checkpoint has waited, see {@link CommitClock}; -1 while it does not run).
 */
final class ChangefeedMetrics implements AutoCloseable {

  private final MeterRegistry registry;
  private final CommitClock clock;
  private final Map<String, Gauge> lagGauges = new ConcurrentHashMap<>();
  private final Map<String, Long> lagMs = new ConcurrentHashMap<>();
  private final List<Gauge> stateGauges = new ArrayList<>();

  ChangefeedMetrics(MeterRegistry registry, Map<String, ChangefeedRecord> records, CommitClock clock) {
    this.registry = registry;
    this.clock = clock;
    for (ChangefeedState s : ChangefeedState.values()) {
      if (s == ChangefeedState.REMOVED) {
        continue;
      }
      stateGauges.add(Gauge.builder("sluice.changefeed.state", records,
              m -> m.values().stream().filter(r -> r.state() == s).count())
          .tag("state", s.name().toLowerCase()).description("hosted changefeeds in each state").register(registry));
    }
  }

  /** Recomputes every changefeed's lag (reads the event store's time marks). */
  void refreshLag(Collection<ChangefeedRecord> records) {
    for (ChangefeedRecord r : records) {
      if (!r.visible()) {
        continue;
      }
      long lag = r.state() == ChangefeedState.NORMAL ? clock.lagMs(r.checkpoint().ts()) : -1;
      lagMs.put(r.id(), lag);
      lagGauges.computeIfAbsent(r.id(), id -> Gauge.builder("sluice.changefeed.checkpoint.lag.ms", lagMs,
              m -> m.getOrDefault(id, -1L)).tag("changefeed", id)
          .description("how long the oldest change after the changefeed's checkpoint has waited").register(registry));
    }
  }

  /** Drops the meters of a removed changefeed. */
  void forget(String id) {
    lagMs.remove(id);
    Gauge g = lagGauges.remove(id);
    if (g != null) {
      registry.remove(g);
    }
  }

  @Override
  public void close() {
    for (Gauge g : stateGauges) {
      registry.remove(g);
    }
    for (String id : List.copyOf(lagGauges.keySet())) {
      forget(id);
    }
  }
}
