package dev.sluice.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The cache serves hits from the key while Caffeine holds the version, and only then. */
class TableInfoCacheTest {

  private final Map<TableVersion, AtomicInteger> loads = new ConcurrentHashMap<>();

  private TableInfo load(TableVersion k) {
    loads.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
    return Tables.table(k.tableId(), "t" + k.tableId(), k.version());
  }

  private static List<TableVersion> keys(int from, int n) {
    List<TableVersion> out = new ArrayList<>();
    for (int i = from; i < from + n; i++) {
      out.add(new TableVersion(i, 1000 + i));
    }
    return out;
  }

  @Test
  void aHitIsServedWithoutLoadingAndCountedAsAHit() {
    TableInfoCache cache = new TableInfoCache(100, this::load);
    TableVersion k = new TableVersion(7, 1000);
    TableInfo first = cache.get(k);
    for (int i = 0; i < 1000; i++) {
      assertThat(cache.get(k)).isSameAs(first);
    }
    assertThat(loads.get(k)).hasValue(1);
    assertThat(cache.caffeine().stats().missCount()).isEqualTo(1);
    assertThat(cache.caffeine().stats().hitCount()).isEqualTo(1000);
  }

  @Test
  void onlyVersionsTheCacheHoldsCarryTheirBody() {
    TableInfoCache cache = new TableInfoCache(10, this::load);
    List<TableVersion> all = keys(1, 1000);
    for (int round = 0; round < 3; round++) {
      for (TableVersion k : all) {
        cache.get(k);
      }
    }
    cache.caffeine().cleanUp();
    List<TableVersion> carrying = all.stream().filter(k -> k.cachedBody() != null).toList();
    assertThat(carrying).hasSizeLessThanOrEqualTo(10).isNotEmpty();
    assertThat(cache.caffeine().asMap().keySet()).containsAll(carrying);
  }

  @Test
  void underConcurrentReadersAndEvictionsEveryAnswerIsItsVersionAndOnlyCachedVersionsKeepABody()
      throws Exception {
    TableInfoCache cache = new TableInfoCache(16, this::load);
    List<TableVersion> all = keys(1, 200);
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
    try {
      List<java.util.concurrent.Future<?>> readers = new ArrayList<>();
      for (int r = 0; r < 4; r++) {
        int seed = r;
        readers.add(pool.submit(() -> {
          java.util.Random random = new java.util.Random(seed);
          for (int i = 0; i < 200_000; i++) {
            // a skewed mix: a few hot versions, many cold ones, so entries are both hit and evicted
            TableVersion k = all.get(random.nextInt(4) == 0 ? random.nextInt(all.size()) : random.nextInt(8));
            TableInfo got = cache.get(k);
            if (got.tableId() != k.tableId() || got.version() != k.version()) {
              throw new AssertionError(k + " answered with " + got.tableId() + "@" + got.version());
            }
          }
          return null;
        }));
      }
      for (var r : readers) {
        r.get(60, java.util.concurrent.TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    cache.caffeine().cleanUp();
    List<TableVersion> carrying = all.stream().filter(k -> k.cachedBody() != null).toList();
    assertThat(cache.caffeine().asMap().keySet()).containsAll(carrying);
    assertThat(carrying).hasSizeLessThanOrEqualTo(16);
  }

  @Test
  void anUncachedStoreLoadsEveryTime() {
    TableInfoCache cache = new TableInfoCache(0, this::load);
    TableVersion k = new TableVersion(7, 1000);
    cache.get(k);
    cache.get(k);
    assertThat(loads.get(k)).hasValue(2);
    assertThat(k.cachedBody()).isNull();
  }

  @Test
  void invalidatedVersionsDropTheirBodyAndLoadAgain() {
    TableInfoCache cache = new TableInfoCache(100, this::load);
    List<TableVersion> ks = keys(1, 5);
    ks.forEach(cache::get);
    cache.invalidateAll(ks.subList(0, 3));
    assertThat(ks.subList(0, 3)).allSatisfy(k -> assertThat(k.cachedBody()).isNull());
    assertThat(ks.subList(3, 5)).allSatisfy(k -> assertThat(k.cachedBody()).isNotNull());
    cache.get(ks.get(0));
    assertThat(loads.get(ks.get(0))).hasValue(2);
  }

  @Test
  void hotVersionsServedFromTheirKeysStayCachedWhileColdOnesPassBy() {
    TableInfoCache cache = new TableInfoCache(100, this::load);
    assertThat(reloadedHotVersions(cache)).as("hot versions evicted (of 50)").isLessThanOrEqualTo(2);
  }

  @Test
  void withoutTheSampledHitsTheCacheWouldEvictTheHotVersions() {
    // why one hit in CACHE_SEES_EVERY goes through Caffeine: hits it never sees leave hot versions at frequency 1
    TableInfoCache blind = new TableInfoCache(100, this::load, 1 << 30);
    assertThat(reloadedHotVersions(blind)).isGreaterThanOrEqualTo(40);
  }

  /** 50 versions read 2,000 times, then 5,000 versions read twice each with 10 hot reads after each. */
  private long reloadedHotVersions(TableInfoCache cache) {
    List<TableVersion> hot = keys(1, 50);
    for (int i = 0; i < 2000; i++) {
      hot.forEach(cache::get);
    }
    int next = 0;
    for (TableVersion cold : keys(1000, 5000)) {
      cache.get(cold);
      cache.get(cold);
      for (int i = 0; i < 10; i++) {
        cache.get(hot.get(next++ % hot.size()));
      }
    }
    return hot.stream().filter(k -> loads.get(k).get() > 1).count();
  }
}
