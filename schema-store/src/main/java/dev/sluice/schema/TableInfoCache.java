package dev.sluice.schema;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.Collection;
import java.util.function.Function;

/**
 * Bounded Caffeine cache of table-version bodies, keyed by the {@link TableVersion} objects the index
 * keeps, so the cache part of a hit allocates nothing: no key, no capturing lambda. A miss loads
 * through the given function (a RocksDB read and a protobuf decode); a version the loader cannot find
 * is not cached.
 *
 * <p>Maintenance (eviction, stats) runs on the calling thread instead of the common fork-join pool:
 * it is amortised over many reads and keeps the broker's pool free of cache work.
 */
final class TableInfoCache {

  private final Cache<TableVersion, TableInfo> cache;
  private final Function<TableVersion, TableInfo> loader;

  TableInfoCache(long maxEntries, Function<TableVersion, TableInfo> loader) {
    this.cache = Caffeine.newBuilder().maximumSize(maxEntries).recordStats().executor(Runnable::run).build();
    this.loader = loader;
  }

  /** The body of this version, or null when it is not stored. */
  TableInfo get(TableVersion key) {
    return cache.get(key, loader);
  }

  void invalidateAll(Collection<TableVersion> keys) {
    cache.invalidateAll(keys);
  }

  /** The Caffeine cache itself, for binding its metrics. */
  Cache<TableVersion, TableInfo> caffeine() {
    return cache;
  }
}
