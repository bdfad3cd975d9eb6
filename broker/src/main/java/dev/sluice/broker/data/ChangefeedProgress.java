package dev.sluice.broker.data;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Resolved-ts lag per changefeed, in milliseconds: how long ago the stores had resolved the lowest
 * watermark any of the changefeed's dispatchers has been sent. Fed by the data-plane instances
 * (each publishes its own minimum per changefeed every second) and by their rounds, which record when
 * the stores' resolved ts reached each value. Thread-safe.
 */
final class ChangefeedProgress {

  private static final int SAMPLES = 4096;

  private final MeterRegistry meters;
  private final LongSupplier nanoClock;
  private final Map<String, long[]> minByChangefeed = new ConcurrentHashMap<>();
  private final int instances;
  // ring of (resolved ts, nanos when first seen), resolved ts ascending
  private final long[] sampleTs = new long[SAMPLES];
  private final long[] sampleNanos = new long[SAMPLES];
  private int head;
  private int size;

  ChangefeedProgress(int instances, MeterRegistry meters, LongSupplier nanoClock) {
    this.instances = instances;
    this.meters = meters;
    this.nanoClock = nanoClock;
  }

  /** Records that the stores' resolved ts was {@code resolvedTs} at {@code nanos}. */
  synchronized void observe(long resolvedTs, long nanos) {
    if (size > 0 && sampleTs[(head + size - 1) % SAMPLES] >= resolvedTs) {
      return;
    }
    if (size == SAMPLES) {
      head = (head + 1) % SAMPLES;
      size--;
    }
    sampleTs[(head + size) % SAMPLES] = resolvedTs;
    sampleNanos[(head + size) % SAMPLES] = nanos;
    size++;
  }

  /** Publishes one instance's minimum sent watermark per changefeed. */
  void publish(int instance, Map<String, Long> mins) {
    for (Map.Entry<String, long[]> e : minByChangefeed.entrySet()) {
      if (!mins.containsKey(e.getKey())) {
        e.getValue()[instance] = Long.MAX_VALUE;
      }
    }
    for (Map.Entry<String, Long> e : mins.entrySet()) {
      long[] perInstance = minByChangefeed.computeIfAbsent(e.getKey(), this::register);
      perInstance[instance] = e.getValue();
    }
  }

  private long[] register(String changefeed) {
    long[] perInstance = new long[instances];
    java.util.Arrays.fill(perInstance, Long.MAX_VALUE);
    Gauge.builder("sluice.changefeed.resolved.lag.ms", () -> lagMs(changefeed)).tag("changefeed", changefeed)
        .description("how long ago the stores resolved the changefeed's lowest sent watermark").register(meters);
    return perInstance;
  }

  /** The changefeed's lag, 0 when it has no streaming dispatcher. */
  double lagMs(String changefeed) {
    long[] perInstance = minByChangefeed.get(changefeed);
    if (perInstance == null) {
      return 0;
    }
    long min = Long.MAX_VALUE;
    for (long v : perInstance) {
      min = Math.min(min, v);
    }
    return min == Long.MAX_VALUE ? 0 : lagOf(min, nanoClock.getAsLong()) / 1e6;
  }

  private synchronized long lagOf(long ts, long now) {
    if (size == 0 || sampleTs[(head + size - 1) % SAMPLES] <= ts) {
      return 0;
    }
    for (int i = 0; i < size; i++) {
      int at = (head + i) % SAMPLES;
      if (sampleTs[at] > ts) {
        return Math.max(0, now - sampleNanos[at]); // the first moment the stores were past ts
      }
    }
    return 0;
  }
}
