package dev.sluice.schema;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.stats.ConcurrentStatsCounter;
import com.github.benmanes.caffeine.cache.stats.StatsCounter;
import java.util.Collection;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * Bounded Caffeine cache of table-version bodies, keyed by the {@link TableVersion} objects the index
 * keeps. A miss loads through the given function (a RocksDB read and a protobuf decode); a version the
 * loader cannot find is not cached.
 *
 * <p>A hit is served from the key itself: while Caffeine holds a version, its key carries the body
 * ({@link TableVersion#cachedBody}), set after a cache get and cleared by the removal listener (and by
 * the getter itself when the entry went away meanwhile), so the hot path is two field reads instead of
 * a hash-table probe and the policy's bookkeeping. Caffeine still decides what stays (the bound holds:
 * a body is carried only while its entry is cached) and counts the hits: each is recorded in its stats,
 * and one hit in {@value #CACHE_SEES_EVERY} (at random) goes through the cache so its frequency sketch
 * and recency order see the hot versions.
 *
 * <p>Maintenance (eviction, stats) runs on the calling thread instead of the common fork-join pool:
 * it is amortised over many reads and keeps the broker's pool free of cache work.
 */
final class TableInfoCache {

  /** One hit in this many (a power of two) goes through Caffeine, to keep its eviction policy informed. */
  static final int CACHE_SEES_EVERY = 32;

  private final Cache<TableVersion, TableInfo> cache;
  private final StatsCounter stats = new ConcurrentStatsCounter();
  private final Function<TableVersion, TableInfo> loader;
  private final int seesEveryMask;

  TableInfoCache(long maxEntries, Function<TableVersion, TableInfo> loader) {
    this(maxEntries, loader, CACHE_SEES_EVERY);
  }

  /** With {@code cacheSeesEvery} (a power of two) instead of {@link #CACHE_SEES_EVERY}: for tests. */
  TableInfoCache(long maxEntries, Function<TableVersion, TableInfo> loader, int cacheSeesEvery) {
    if (Integer.bitCount(cacheSeesEvery) != 1) {
      throw new IllegalArgumentException("cacheSeesEvery must be a power of two, got " + cacheSeesEvery);
    }
    this.seesEveryMask = cacheSeesEvery - 1;
    this.cache = Caffeine.newBuilder().maximumSize(maxEntries).recordStats(() -> stats).executor(Runnable::run)
        .removalListener((TableVersion key, TableInfo value, RemovalCause cause) -> {
          if (key != null) {
            key.unpin();
          }
        })
        .build();
    this.loader = loader;
  }

  /** The body of this version, or null when it is not stored. */
  TableInfo get(TableVersion key) {
    TableInfo pinned = key.cachedBody();
    // sampled per thread, not counted per key: a counter on the key would be written by every reader's core
    if (pinned != null && (ThreadLocalRandom.current().nextInt() & seesEveryMask) != 0) {
      stats.recordHits(1);
      return pinned;
    }
    TableInfo info = cache.get(key, loader);
    if (info != null && pinned != info) {
      key.pin(info);
      // removed between the get and the pin: its removal listener may have run already, so undo it here
      if (!cache.asMap().containsKey(key)) {
        key.unpin();
      }
    }
    return info;
  }

  void invalidateAll(Collection<TableVersion> keys) {
    cache.invalidateAll(keys);
  }

  /** The Caffeine cache itself, for binding its metrics. */
  Cache<TableVersion, TableInfo> caffeine() {
    return cache;
  }
}
