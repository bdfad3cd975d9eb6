package dev.sluice.broker.changefeed;

import dev.sluice.dispatcher.changefeed.ChangefeedStatus;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The hosted changefeeds' meters: {@code sluice.changefeed.state} (changefeeds per state),
 * {@code sluice.changefeed.checkpoint.lag.ms} (per changefeed: how long the oldest change after its
 * checkpoint has waited, see {@link CommitClock}; -1 while it does not run), and per changefeed its GC
 * hold ({@link GcHolds}): {@code sluice.changefeed.gc.hold.remaining.ms} (until it expires; -1 while it
 * runs or holds nothing) and {@code sluice.changefeed.gc.hold.expired} (1 once expired), and
 * {@code sluice.changefeed.divergent.columns} (columns a volatile default made differ, while it runs), and per
 * table its snapshot ({@code sluice.changefeed.snapshot.*}, {@link #snapshots}).
 */
final class ChangefeedMetrics implements AutoCloseable {

  private final MeterRegistry registry;
  private final CommitClock clock;
  private final Map<String, Gauge> lagGauges = new ConcurrentHashMap<>();
  private final Map<String, Long> lagMs = new ConcurrentHashMap<>();
  private final List<Gauge> stateGauges = new ArrayList<>();
  private final Map<String, GcHolds.Hold> holds = new ConcurrentHashMap<>();
  private final Map<String, Long> holdRemainingMs = new ConcurrentHashMap<>();
  private final Map<String, List<Gauge>> holdGauges = new ConcurrentHashMap<>();
  private final Map<String, Integer> divergent = new ConcurrentHashMap<>();
  private final Map<String, Gauge> divergentGauges = new ConcurrentHashMap<>();
  /** Per changefeed, per table: its snapshot as the running changefeed last showed it. */
  private final Map<String, Map<String, ChangefeedStatus.SnapshotStatus>> snapshots = new ConcurrentHashMap<>();
  private final Map<String, List<Gauge>> snapshotGauges = new ConcurrentHashMap<>();

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
      long lag = r.state() == ChangefeedState.NORMAL ? clock.lagMs(r.checkpointTs()) : -1;
      lagMs.put(r.id(), lag);
      lagGauges.computeIfAbsent(r.id(), id -> Gauge.builder("sluice.changefeed.checkpoint.lag.ms", lagMs,
              m -> m.getOrDefault(id, -1L)).tag("changefeed", id)
          .description("how long the oldest change after the changefeed's checkpoint has waited").register(registry));
    }
  }

  /** Records {@code id}'s GC hold at {@code nowMs}. */
  void gcHold(String id, GcHolds.Hold hold, long nowMs) {
    holds.put(id, hold);
    holdRemainingMs.put(id, hold.remainingMs(nowMs));
    holdGauges.computeIfAbsent(id, k -> List.of(
        Gauge.builder("sluice.changefeed.gc.hold.remaining.ms", holdRemainingMs, m -> m.getOrDefault(k, -1L))
            .tag("changefeed", k).baseUnit("milliseconds")
            .description("how long the changefeed's checkpoint still holds the broker's GC; -1 while it runs")
            .register(registry),
        Gauge.builder("sluice.changefeed.gc.hold.expired", holds,
                m -> m.containsKey(k) && m.get(k).phase() == GcHolds.Phase.EXPIRED ? 1 : 0)
            .tag("changefeed", k).description("1 once the changefeed's checkpoint no longer holds the broker's GC")
            .register(registry)));
  }

  /** How many columns of {@code id}'s target the running changefeed knows to differ from the upstream's. */
  void divergentColumns(String id, int columns) {
    divergent.put(id, columns);
    divergentGauges.computeIfAbsent(id, k -> Gauge.builder("sluice.changefeed.divergent.columns", divergent,
            m -> m.getOrDefault(k, 0)).tag("changefeed", k)
        .description("columns whose target values differ from the upstream's (added with a volatile default)")
        .register(registry));
  }

  /**
   * Records the snapshots of {@code id}'s tables from its running status: per table
   * {@code sluice.changefeed.snapshot.rows.done} and {@code .rows.estimated} (rows), {@code .rate} (rows per
   * second) and {@code .running} (1 while it reads).
   */
  void snapshots(String id, ChangefeedStatus status) {
    Map<String, ChangefeedStatus.SnapshotStatus> tables = snapshots.computeIfAbsent(id, k -> new ConcurrentHashMap<>());
    for (ChangefeedStatus.TableStatus t : status.tables()) {
      if (t.snapshot() == null) {
        continue;
      }
      if (tables.put(t.table(), t.snapshot()) == null) {
        String table = t.table();
        java.util.function.Function<java.util.function.ToDoubleFunction<ChangefeedStatus.SnapshotStatus>,
            java.util.function.ToDoubleFunction<Map<String, ChangefeedStatus.SnapshotStatus>>> of =
            f -> m -> m.containsKey(table) ? f.applyAsDouble(m.get(table)) : 0;
        snapshotGauges.computeIfAbsent(id, k -> new java.util.concurrent.CopyOnWriteArrayList<>()).addAll(List.of(
            Gauge.builder("sluice.changefeed.snapshot.rows.done", tables, of.apply(s -> s.rowsDone()))
                .tags("changefeed", id, "table", table).baseUnit("rows")
                .description("READ rows of the table's snapshot the sink applied").register(registry),
            Gauge.builder("sluice.changefeed.snapshot.rows.estimated", tables, of.apply(s -> s.rowsEstimated()))
                .tags("changefeed", id, "table", table).baseUnit("rows")
                .description("the table's estimated rows (pg_class.reltuples) when its snapshot began").register(registry),
            Gauge.builder("sluice.changefeed.snapshot.rate", tables, of.apply(s -> s.rowsPerSecond()))
                .tags("changefeed", id, "table", table).baseUnit("rows/s")
                .description("rows per second the table's snapshot applies").register(registry),
            Gauge.builder("sluice.changefeed.snapshot.running", tables, of.apply(s -> s.state()
                    == dev.sluice.dispatcher.sink.TableSnapshot.State.RUNNING ? 1 : 0))
                .tags("changefeed", id, "table", table)
                .description("1 while the table's snapshot reads").register(registry)));
      }
    }
  }

  /** Drops the meters of a removed changefeed. */
  void forget(String id) {
    lagMs.remove(id);
    Gauge g = lagGauges.remove(id);
    if (g != null) {
      registry.remove(g);
    }
    holds.remove(id);
    holdRemainingMs.remove(id);
    List<Gauge> hg = holdGauges.remove(id);
    if (hg != null) {
      hg.forEach(registry::remove);
    }
    snapshots.remove(id);
    List<Gauge> sg = snapshotGauges.remove(id);
    if (sg != null) {
      sg.forEach(registry::remove);
    }
    divergent.remove(id);
    Gauge dg = divergentGauges.remove(id);
    if (dg != null) {
      registry.remove(dg);
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
    for (String id : List.copyOf(holdGauges.keySet())) {
      forget(id);
    }
  }
}
