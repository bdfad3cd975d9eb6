package dev.sluice.broker.store;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Settings of the RocksDB event store. Keys are named {@code store.<component>} in messages.
 *
 * <pre>{@code
 * EventStoreConfig config = EventStoreConfig.defaults(Path.of("data/store"))
 *     .withBlockCacheBytes(512L << 20)
 *     .withWalDir(Path.of("/mnt/wal-ssd/sluice"));   // the synced WAL on a disk of its own
 * try (RocksEventStore store = RocksEventStore.open(config, meterRegistry)) { ... }
 * }</pre>
 *
 * @param dataDir          directory of the RocksDB files; created when missing
 * @param rowsCompression  block compression of the rows column family (default
 *                         {@link #DEFAULT_ROWS_COMPRESSION}; see docs/BENCHMARKS.md for the scan
 *                         figures behind it)
 * @param blockCacheBytes  shared block cache, bytes (default 256 MiB, at least 1 MiB)
 * @param writeBufferBytes memtable size of the rows column family, bytes (default 64 MiB, 1 MiB to
 *                         1 GiB)
 * @param maxWriteBuffers  memtables per column family before writes stall (default 4, 2 to 16)
 * @param blockSizeBytes   data block size of the rows column family, bytes (default 16 KiB, 1 KiB to
 *                         1 MiB); larger blocks compress better and scan faster
 * @param backgroundJobs   RocksDB flush and compaction threads (default 2, 1 to 32)
 * @param walDir           directory of RocksDB's write-ahead log ({@code *.log}), or null to keep it in
 *                         {@code dataDir} (RocksDB's default); created when missing, never {@code dataDir}
 *                         itself. Every synced write waits for its fsync, so a disk of its own keeps other
 *                         writers' I/O out of capture's latency. Changing it over a store with unflushed
 *                         writes is refused ({@link WalDirChangedException}): RocksDB would skip them.
 */
public record EventStoreConfig(
    Path dataDir,
    Compression rowsCompression,
    long blockCacheBytes,
    long writeBufferBytes,
    int maxWriteBuffers,
    int blockSizeBytes,
    int backgroundJobs,
    Path walDir) {

  /** Block compression of the rows column family. */
  public enum Compression {
    NONE,
    LZ4,
    SNAPPY,
    ZSTD
  }

  public static final Compression DEFAULT_ROWS_COMPRESSION = Compression.LZ4;
  public static final long DEFAULT_BLOCK_CACHE_BYTES = 256L << 20;
  public static final long DEFAULT_WRITE_BUFFER_BYTES = 64L << 20;
  public static final int DEFAULT_MAX_WRITE_BUFFERS = 4;
  public static final int DEFAULT_BLOCK_SIZE_BYTES = 16 << 10;
  public static final int DEFAULT_BACKGROUND_JOBS = 2;

  public EventStoreConfig {
    Objects.requireNonNull(dataDir, "store.dataDir must be set");
    Objects.requireNonNull(rowsCompression, "store.rowsCompression must be set");
    require(blockCacheBytes >= 1L << 20, "store.blockCacheBytes", blockCacheBytes, ">= 1048576 (1 MiB)");
    require(writeBufferBytes >= 1L << 20 && writeBufferBytes <= 1L << 30, "store.writeBufferBytes",
        writeBufferBytes, "in [1 MiB, 1 GiB]");
    require(maxWriteBuffers >= 2 && maxWriteBuffers <= 16, "store.maxWriteBuffers", maxWriteBuffers, "in [2, 16]");
    require(blockSizeBytes >= 1 << 10 && blockSizeBytes <= 1 << 20, "store.blockSizeBytes", blockSizeBytes,
        "in [1024, 1048576]");
    require(backgroundJobs >= 1 && backgroundJobs <= 32, "store.backgroundJobs", backgroundJobs, "in [1, 32]");
    // the WAL in dataDir is what a null walDir means: naming dataDir would only hide that
    if (walDir != null && sameDir(walDir, dataDir)) {
      throw new IllegalArgumentException("store.walDir must be a directory other than store.dataDir, got " + walDir
          + " (store.dataDir " + dataDir + "); leave walDir unset to keep the WAL in the data directory");
    }
  }

  /** The settings without a WAL directory of their own (the WAL stays in {@code dataDir}). */
  public EventStoreConfig(Path dataDir, Compression rowsCompression, long blockCacheBytes, long writeBufferBytes,
      int maxWriteBuffers, int blockSizeBytes, int backgroundJobs) {
    this(dataDir, rowsCompression, blockCacheBytes, writeBufferBytes, maxWriteBuffers, blockSizeBytes,
        backgroundJobs, null);
  }

  /** The defaults, with the data in {@code dataDir}. */
  public static EventStoreConfig defaults(Path dataDir) {
    return new EventStoreConfig(dataDir, DEFAULT_ROWS_COMPRESSION, DEFAULT_BLOCK_CACHE_BYTES,
        DEFAULT_WRITE_BUFFER_BYTES, DEFAULT_MAX_WRITE_BUFFERS, DEFAULT_BLOCK_SIZE_BYTES, DEFAULT_BACKGROUND_JOBS,
        null);
  }

  /** The same settings for the store in {@code dir}. */
  public EventStoreConfig withDataDir(Path dir) {
    return new EventStoreConfig(dir, rowsCompression, blockCacheBytes, writeBufferBytes, maxWriteBuffers,
        blockSizeBytes, backgroundJobs, walDir);
  }

  public EventStoreConfig withRowsCompression(Compression compression) {
    return new EventStoreConfig(dataDir, compression, blockCacheBytes, writeBufferBytes, maxWriteBuffers,
        blockSizeBytes, backgroundJobs, walDir);
  }

  public EventStoreConfig withBlockCacheBytes(long bytes) {
    return new EventStoreConfig(dataDir, rowsCompression, bytes, writeBufferBytes, maxWriteBuffers,
        blockSizeBytes, backgroundJobs, walDir);
  }

  public EventStoreConfig withWriteBufferBytes(long bytes) {
    return new EventStoreConfig(dataDir, rowsCompression, blockCacheBytes, bytes, maxWriteBuffers,
        blockSizeBytes, backgroundJobs, walDir);
  }

  public EventStoreConfig withBlockSizeBytes(int bytes) {
    return new EventStoreConfig(dataDir, rowsCompression, blockCacheBytes, writeBufferBytes, maxWriteBuffers,
        bytes, backgroundJobs, walDir);
  }

  /** The same settings with the WAL in {@code dir} (null: in {@code dataDir}). */
  public EventStoreConfig withWalDir(Path dir) {
    return new EventStoreConfig(dataDir, rowsCompression, blockCacheBytes, writeBufferBytes, maxWriteBuffers,
        blockSizeBytes, backgroundJobs, dir);
  }

  /** Where RocksDB keeps the WAL: {@code walDir}, or {@code dataDir} when unset. */
  public Path effectiveWalDir() {
    return walDir != null ? walDir : dataDir;
  }

  static boolean sameDir(Path a, Path b) {
    return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
  }

  private static void require(boolean ok, String key, long value, String rule) {
    if (!ok) {
      throw new IllegalArgumentException(key + " must be " + rule + ", got " + value);
    }
  }
}
