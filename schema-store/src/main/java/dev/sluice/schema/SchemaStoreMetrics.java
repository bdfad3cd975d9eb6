package dev.sluice.schema;

import com.github.benmanes.caffeine.cache.Cache;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.cache.CaffeineCacheMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The schema store's meters: the Caffeine binder under the cache name {@value #CACHE_NAME}
 * ({@code cache.gets{result=hit|miss}}, evictions, size), and {@code sluice.schema.*}: DDLs applied,
 * apply duration, resolved/GC/last-DDL ts, versions and tables held. Removed from the registry on
 * close, so a reopened store registers fresh meters.
 */
final class SchemaStoreMetrics implements AutoCloseable {

  static final String CACHE_NAME = "schema_table_info";

  private final MeterRegistry registry;
  private final List<Meter> meters = new ArrayList<>();
  private final Counter applied;
  private final Timer applyDuration;

  SchemaStoreMetrics(MeterRegistry registry, SchemaStore store, SchemaIndex index, Cache<?, ?> cache) {
    this.registry = registry;
    new CaffeineCacheMetrics<>(cache, CACHE_NAME, List.of()).bindTo(registry);
    registry.getMeters().stream().filter(m -> CACHE_NAME.equals(m.getId().getTag("cache"))).forEach(meters::add);
    applied = track(Counter.builder("sluice.schema.ddl.applied").baseUnit("events")
        .description("DDL events applied to the schema store").register(registry));
    applyDuration = track(Timer.builder("sluice.schema.apply.duration")
        .description("time to apply one transaction's DDLs durably, fsync included").register(registry));
    gauge("sluice.schema.resolved.ts", "every DDL at or below this commit ts is applied", store, SchemaStore::resolvedTs);
    gauge("sluice.schema.gc.ts", "lookups below this commit ts fail", store, SchemaStore::gcTs);
    gauge("sluice.schema.last.ddl.ts", "commit ts of the last applied DDL", store, SchemaStore::lastDdlTs);
    track(Gauge.builder("sluice.schema.versions", index, SchemaIndex::versionCount).baseUnit("versions")
        .description("table versions held").strongReference(true).register(registry));
    track(Gauge.builder("sluice.schema.tables", index, SchemaIndex::tableCount).baseUnit("tables")
        .description("table ids known, drop tombstones included").strongReference(true).register(registry));
  }

  /** One apply of {@code events} DDLs (one transaction's) that took {@code nanos}. */
  void onApplied(int events, long nanos) {
    applied.increment(events);
    applyDuration.record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void close() {
    meters.forEach(registry::remove);
    meters.clear();
  }

  private void gauge(String name, String description, SchemaStore store, ToDoubleFunction<SchemaStore> value) {
    track(Gauge.builder(name, store, value).description(description).strongReference(true).register(registry));
  }

  private <M extends Meter> M track(M meter) {
    meters.add(meter);
    return meter;
  }
}
