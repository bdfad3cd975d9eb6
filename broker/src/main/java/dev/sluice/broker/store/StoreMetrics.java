package dev.sluice.broker.store;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The event store's meters. Removed from the registry on close, so a reopened store reports itself.
 *
 * <pre>{@code
 * StoreMetrics metrics = new StoreMetrics(registry, store);
 * metrics.recordWrite(true, nanos, rows, bytes);
 * }</pre>
 */
final class StoreMetrics {

  private final MeterRegistry registry;
  private final Counter rowsWritten;
  private final Counter bytesWritten;
  private final Timer syncWrites;
  private final Timer asyncWrites;
  private final Counter scanRows;
  private final Counter gcReclaimed;
  private final List<Meter> meters;

  StoreMetrics(MeterRegistry registry, RocksEventStore store) {
    this.registry = registry;
    rowsWritten = Counter.builder("sluice.store.rows.written").baseUnit("rows")
        .description("Rows written to the event store").register(registry);
    bytesWritten = Counter.builder("sluice.store.bytes.written").baseUnit("bytes")
        .description("Key and value bytes of the rows written to the event store").register(registry);
    syncWrites = writeTimer(registry, "true");
    asyncWrites = writeTimer(registry, "false");
    scanRows = Counter.builder("sluice.store.scan.rows").baseUnit("rows")
        .description("Rows returned by event store scans (counted when a scan closes)").register(registry);
    gcReclaimed = Counter.builder("sluice.store.gc.reclaimed").baseUnit("bytes")
        .description("SST bytes dropped by GC as whole files, without waiting for compaction").register(registry);
    Gauge resolved = gauge(registry, "sluice.store.resolved.ts", store, RocksEventStore::resolvedTs,
        "Every transaction with commit ts <= this is whole in the event store");
    Gauge gc = gauge(registry, "sluice.store.gc.ts", store, RocksEventStore::gcTs,
        "Rows with commit ts below this were garbage-collected");
    meters = List.of(rowsWritten, bytesWritten, syncWrites, asyncWrites, scanRows, gcReclaimed, resolved, gc);
  }

  void recordWrite(boolean sync, long nanos, int rows, long bytes) {
    (sync ? syncWrites : asyncWrites).record(nanos, TimeUnit.NANOSECONDS);
    rowsWritten.increment(rows);
    bytesWritten.increment(bytes);
  }

  void recordGcReclaimed(long bytes) {
    gcReclaimed.increment(bytes);
  }

  void recordScan(long rows) {
    scanRows.increment(rows);
  }

  void remove() {
    meters.forEach(registry::remove);
  }

  private static Timer writeTimer(MeterRegistry registry, String sync) {
    return Timer.builder("sluice.store.write.latency").tag("sync", sync)
        .description("Time to write one batch to the event store (with sync: until durable)")
        .publishPercentileHistogram()   // the tail is what live traffic waits for (an fsync behind others' I/O)
        .register(registry);
  }

  private static Gauge gauge(MeterRegistry registry, String name, RocksEventStore store,
      ToDoubleFunction<RocksEventStore> value, String description) {
    return Gauge.builder(name, store, value).description(description).register(registry);
  }
}
