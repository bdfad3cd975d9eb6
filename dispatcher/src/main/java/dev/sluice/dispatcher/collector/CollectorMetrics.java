package dev.sluice.dispatcher.collector;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.Collection;
import java.util.function.Supplier;

/**
 * The collector's meters: {@code sluice.dispatcher.events.received}, {@code .bytes.received},
 * {@code .resets} (by reason), {@code .state} (gauge by state), {@code .checkpoint.lag} (max over
 * dispatchers of resolved ts minus acknowledged ts, in commit-ts units), {@code .queue.bytes} (bytes
 * held for listeners, against their credit), and {@code sluice.collector.reconnects},
 * {@code sluice.collector.connected}. Tags: {@code collector}, and {@code changefeed} where it applies.
 */
final class CollectorMetrics {

  private final MeterRegistry registry;
  private final String collectorId;
  private final Map<DispatcherState, AtomicLong> states = new EnumMap<>(DispatcherState.class);
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Counter reconnects;
  private final Counter failovers;
  private final AtomicLong connected = new AtomicLong();

  /** {@code sessions} gives a snapshot of the collector's dispatchers for the gauges (safe from any thread). */
  CollectorMetrics(MeterRegistry registry, String collectorId, Supplier<Collection<DispatcherSession>> sessions) {
    this.registry = registry;
    this.collectorId = collectorId;
    for (DispatcherState s : DispatcherState.values()) {
      AtomicLong n = new AtomicLong();
      states.put(s, n);
      Gauge.builder("sluice.dispatcher.state", n, AtomicLong::get).tag("collector", collectorId)
          .tag("state", s.name().toLowerCase()).description("dispatchers in each state").register(registry);
    }
    Gauge.builder("sluice.dispatcher.checkpoint.lag", sessions, CollectorMetrics::checkpointLag).tag("collector", collectorId)
        .description("max over dispatchers of resolved ts - acknowledged ts (commit-ts units)").register(registry);
    Gauge.builder("sluice.dispatcher.queue.bytes", sessions, CollectorMetrics::queuedBytes).tag("collector", collectorId)
        .baseUnit("bytes").description("bytes held for listeners, counted against their credit").register(registry);
    Gauge.builder("sluice.collector.connected", connected, AtomicLong::get).tag("collector", collectorId)
        .description("1 while a stream is welcomed").register(registry);
    failovers = Counter.builder("sluice.collector.failovers").tag("collector", collectorId)
        .description("streams welcomed by another broker than the previous one (a move to another member)")
        .register(registry);
    reconnects = Counter.builder("sluice.collector.reconnects").tag("collector", collectorId)
        .description("streams opened after the first").register(registry);
  }

  private static double checkpointLag(Supplier<Collection<DispatcherSession>> sessions) {
    long max = 0;
    for (DispatcherSession s : sessions.get()) {
      max = Math.max(max, s.resolvedTs() - s.queue().acknowledged().ts());
    }
    return max;
  }

  private static double queuedBytes(Supplier<Collection<DispatcherSession>> sessions) {
    long sum = 0;
    for (DispatcherSession s : sessions.get()) {
      sum += s.queue().queuedBytes();
    }
    return sum;
  }

  void added() {
    states.get(DispatcherState.REGISTERING).incrementAndGet();
  }

  void dropped(DispatcherState last) {
    states.get(last).decrementAndGet();
  }

  void stateChanged(DispatcherState from, DispatcherState to) {
    states.get(from).decrementAndGet();
    states.get(to).incrementAndGet();
  }

  void received(String changefeedId, int bytes) {
    counter("sluice.dispatcher.events.received", changefeedId, null, null).increment();
    counter("sluice.dispatcher.bytes.received", changefeedId, null, "bytes").increment(bytes);
  }

  void reset(String changefeedId, String reason) {
    counter("sluice.dispatcher.resets", changefeedId, reason, null).increment();
  }

  void reconnected() {
    reconnects.increment();
  }

  /** Welcomed by another broker than the last one: a failover to another member. */
  void failedOver() {
    failovers.increment();
  }

  void connected(boolean up) {
    connected.set(up ? 1 : 0);
  }

  private Counter counter(String name, String changefeedId, String reason, String unit) {
    String key = name + '\0' + changefeedId + '\0' + reason;
    return counters.computeIfAbsent(key, k -> {
      Counter.Builder b = Counter.builder(name).tag("collector", collectorId).tag("changefeed", changefeedId);
      if (reason != null) {
        b.tag("reason", reason);
      }
      if (unit != null) {
        b.baseUnit(unit);
      }
      return b.register(registry);
    });
  }
}
