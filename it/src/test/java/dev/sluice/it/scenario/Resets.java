package dev.sluice.it.scenario;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads the dispatcher library's {@code sluice.dispatcher.resets} counter by reason. The reasons a
 * broken stream or a restarted broker cause are expected; every other reason names a protocol
 * violation the client saw (seq gap, wrong last seq, missing handshake, handshake without table info...).
 *
 * <pre>{@code
 * assertThat(Resets.unexpected(registry)).isEmpty();
 * }</pre>
 */
final class Resets {

  /** Reasons of resets that follow a new stream or broker, not a violation. */
  static final Set<String> EXPECTED = Set.of("start", "connected", "disconnected", "broker_restarted", "not_found",
      "stale_ack", "retryable", "heartbeat_removed");

  private Resets() {}

  static Map<String, Double> byReason(MeterRegistry registry) {
    Map<String, Double> out = new TreeMap<>();
    for (Counter c : registry.find("sluice.dispatcher.resets").counters()) {
      out.merge(c.getId().getTag("reason"), c.count(), Double::sum);
    }
    return out;
  }

  /** Resets whose reason is a protocol violation, by reason. */
  static Map<String, Double> unexpected(MeterRegistry registry) {
    Map<String, Double> out = byReason(registry);
    out.keySet().removeAll(EXPECTED);
    return out;
  }

  static double total(MeterRegistry registry) {
    return byReason(registry).values().stream().mapToDouble(Double::doubleValue).sum();
  }
}
