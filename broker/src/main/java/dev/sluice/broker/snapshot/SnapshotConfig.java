package dev.sluice.broker.snapshot;

import java.time.Duration;

/**
 * Static settings of the broker's snapshot readers (keys {@code eventService.snapshot.*}, docs/CONFIG.md).
 * The rate limits, which can change at runtime, are {@code EventServiceLimits#snapshotRowsPerSecond} and
 * {@code #snapshotBytesPerSecond}.
 *
 * <pre>{@code
 * SnapshotConfig c = SnapshotConfig.defaults().withChunkRows(1000);
 * }</pre>
 *
 * @param readers          chunk reads running at once across all snapshots of this broker, each with its own
 *                         upstream connection (default {@value #DEFAULT_READERS})
 * @param chunkRows        rows of one chunk of a keyed table at most (default {@value #DEFAULT_CHUNK_ROWS})
 * @param chunkBytes       bytes of one chunk at most: a chunk ends after the row (keyed) or the heap block
 *                         (keyless) that reaches it (default 4 MiB)
 * @param memoryBytes      bytes of chunks read and not yet delivered, across all snapshots: a reader waits for
 *                         room before it reads (default 64 MiB; one chunk may exceed it when none is out)
 * @param watermarkTimeout how long a reader waits for capture to see its watermark (default 30 s)
 * @param retryBackoff     first wait before a chunk that could not be read is read again; doubles (default 1 s)
 * @param maxRetryBackoff  cap of that wait (default 30 s)
 */
public record SnapshotConfig(int readers, int chunkRows, long chunkBytes, long memoryBytes, Duration watermarkTimeout,
    Duration retryBackoff, Duration maxRetryBackoff) {

  public static final int DEFAULT_READERS = 2;
  public static final int DEFAULT_CHUNK_ROWS = 8192;
  public static final long DEFAULT_CHUNK_BYTES = 4L << 20;
  public static final long DEFAULT_MEMORY_BYTES = 64L << 20;
  public static final Duration DEFAULT_WATERMARK_TIMEOUT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_RETRY_BACKOFF = Duration.ofSeconds(1);
  public static final Duration DEFAULT_MAX_RETRY_BACKOFF = Duration.ofSeconds(30);

  public SnapshotConfig {
    if (readers < 1 || readers > 64) {
      throw new IllegalArgumentException("eventService.snapshot.readers must be in [1, 64], got " + readers);
    }
    if (chunkRows < 1 || chunkRows > 1_000_000) {
      throw new IllegalArgumentException("eventService.snapshot.chunkRows must be in [1, 1000000], got " + chunkRows);
    }
    if (chunkBytes < 8192 || chunkBytes > 1L << 30) {
      throw new IllegalArgumentException("eventService.snapshot.chunkBytes must be in [8KiB, 1GiB], got " + chunkBytes);
    }
    if (memoryBytes < chunkBytes) {
      throw new IllegalArgumentException("eventService.snapshot.memoryBytes (" + memoryBytes
          + ") must be at least eventService.snapshot.chunkBytes (" + chunkBytes + ")");
    }
    positive("eventService.snapshot.watermarkTimeout", watermarkTimeout);
    positive("eventService.snapshot.retryBackoff", retryBackoff);
    positive("eventService.snapshot.maxRetryBackoff", maxRetryBackoff);
    if (maxRetryBackoff.compareTo(retryBackoff) < 0) {
      throw new IllegalArgumentException("eventService.snapshot.maxRetryBackoff (" + maxRetryBackoff
          + ") must be at least retryBackoff (" + retryBackoff + ")");
    }
  }

  public static SnapshotConfig defaults() {
    return new SnapshotConfig(DEFAULT_READERS, DEFAULT_CHUNK_ROWS, DEFAULT_CHUNK_BYTES, DEFAULT_MEMORY_BYTES,
        DEFAULT_WATERMARK_TIMEOUT, DEFAULT_RETRY_BACKOFF, DEFAULT_MAX_RETRY_BACKOFF);
  }

  public SnapshotConfig withReaders(int n) {
    return new SnapshotConfig(n, chunkRows, chunkBytes, memoryBytes, watermarkTimeout, retryBackoff, maxRetryBackoff);
  }

  public SnapshotConfig withChunkRows(int n) {
    return new SnapshotConfig(readers, n, chunkBytes, memoryBytes, watermarkTimeout, retryBackoff, maxRetryBackoff);
  }

  public SnapshotConfig withChunkBytes(long n) {
    return new SnapshotConfig(readers, chunkRows, n, Math.max(n, memoryBytes), watermarkTimeout, retryBackoff,
        maxRetryBackoff);
  }

  public SnapshotConfig withMemoryBytes(long n) {
    return new SnapshotConfig(readers, chunkRows, chunkBytes, n, watermarkTimeout, retryBackoff, maxRetryBackoff);
  }

  public SnapshotConfig withRetryBackoff(Duration first, Duration max) {
    return new SnapshotConfig(readers, chunkRows, chunkBytes, memoryBytes, watermarkTimeout, first, max);
  }

  private static void positive(String key, Duration d) {
    if (d == null || d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException(key + " must be a positive duration, got " + d);
    }
  }
}
