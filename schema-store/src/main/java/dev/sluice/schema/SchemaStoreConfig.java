package dev.sluice.schema;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Settings of a {@link RocksSchemaStore}.
 *
 * <pre>{@code
 * SchemaStoreConfig config = SchemaStoreConfig.at(Path.of("data/schema"))
 *     .withCacheMaxEntries(50_000);
 * }</pre>
 *
 * @param dataDir         the RocksDB directory, owned by this store alone (not the event store's); created
 *                        when missing
 * @param cacheMaxEntries how many (table, version) bodies the read cache holds, default
 *                        {@value #DEFAULT_CACHE_MAX_ENTRIES}; {@code 0} disables caching, every lookup then
 *                        reads RocksDB
 * @param syncWrites      whether {@code apply} and {@code gc} fsync before returning, default
 *                        {@value #DEFAULT_SYNC_WRITES}; {@code false} gives up durability across an OS
 *                        crash and is meant for tests and benchmarks only
 */
public record SchemaStoreConfig(Path dataDir, long cacheMaxEntries, boolean syncWrites) {

  public static final long DEFAULT_CACHE_MAX_ENTRIES = 10_000;
  public static final boolean DEFAULT_SYNC_WRITES = true;

  public SchemaStoreConfig {
    Objects.requireNonNull(dataDir, "schema-store dataDir must be set");
    if (cacheMaxEntries < 0) {
      throw new IllegalArgumentException("schema-store cacheMaxEntries must be >= 0, got " + cacheMaxEntries);
    }
  }

  /** Defaults for every setting but the directory. */
  public static SchemaStoreConfig at(Path dataDir) {
    return new SchemaStoreConfig(dataDir, DEFAULT_CACHE_MAX_ENTRIES, DEFAULT_SYNC_WRITES);
  }

  public SchemaStoreConfig withCacheMaxEntries(long newCacheMaxEntries) {
    return new SchemaStoreConfig(dataDir, newCacheMaxEntries, syncWrites);
  }

  public SchemaStoreConfig withSyncWrites(boolean newSyncWrites) {
    return new SchemaStoreConfig(dataDir, cacheMaxEntries, newSyncWrites);
  }
}
