package dev.sluice.broker.control;

import io.vertx.core.json.JsonObject;
import java.util.Set;

/**
 * The event service's limits that can change at runtime (validated before applied; see
 * {@code EventService#updateLimits}).
 *
 * <pre>{@code
 * EventServiceLimits tighter = limits.withScanRateBytesPerSecond(50L << 20);
 * }</pre>
 *
 * @param scanRateBytesPerSecond global cap on bytes read by scans per second, across all dispatchers
 *                               (default {@value #DEFAULT_SCAN_RATE_BYTES_PER_SECOND})
 * @param scanConcurrency        scans running at once (default: the number of cores, at least 2)
 * @param connectionQueueBytes   per collector stream, bytes of events queued and not yet written
 *                               (default {@value #DEFAULT_CONNECTION_QUEUE_BYTES})
 * @param maxDispatchers         dispatchers one broker node accepts (default {@value #DEFAULT_MAX_DISPATCHERS})
 * @param scanBatchBytes         most bytes one scan task reads before yielding (default
 *                               {@value #DEFAULT_SCAN_BATCH_BYTES})
 * @param snapshotRowsPerSecond  rows all snapshot readers of this broker read per second at most, 0 = no limit
 *                               (default 0)
 * @param snapshotBytesPerSecond bytes all snapshot readers of this broker read per second at most, 0 = no limit
 *                               (default 0)
 */
public record EventServiceLimits(long scanRateBytesPerSecond, int scanConcurrency, long connectionQueueBytes,
    int maxDispatchers, int scanBatchBytes, long snapshotRowsPerSecond, long snapshotBytesPerSecond) {

  public static final long DEFAULT_SCAN_RATE_BYTES_PER_SECOND = 1L << 30;
  /** Scans are CPU-bound RocksDB reads: more of them than cores only queues control work behind them. */
  public static final int DEFAULT_SCAN_CONCURRENCY = Math.max(2, Runtime.getRuntime().availableProcessors());
  public static final long DEFAULT_CONNECTION_QUEUE_BYTES = 8L << 20;
  public static final int DEFAULT_MAX_DISPATCHERS = 200_000;
  public static final int DEFAULT_SCAN_BATCH_BYTES = 1 << 20;
  public static final long DEFAULT_SNAPSHOT_ROWS_PER_SECOND = 0;
  public static final long DEFAULT_SNAPSHOT_BYTES_PER_SECOND = 0;

  private static final Set<String> KEYS = Set.of("scanRateBytesPerSecond", "scanConcurrency",
      "connectionQueueBytes", "maxDispatchers", "scanBatchBytes", "snapshotRowsPerSecond", "snapshotBytesPerSecond");

  public EventServiceLimits {
    require(scanRateBytesPerSecond >= 1024, "scanRateBytesPerSecond", scanRateBytesPerSecond, ">= 1024");
    require(scanConcurrency >= 1 && scanConcurrency <= 1024, "scanConcurrency", scanConcurrency, "in [1, 1024]");
    require(connectionQueueBytes >= 64 * 1024, "connectionQueueBytes", connectionQueueBytes, ">= 65536");
    require(maxDispatchers >= 1, "maxDispatchers", maxDispatchers, ">= 1");
    require(scanBatchBytes >= 4096 && scanBatchBytes <= 64 << 20, "scanBatchBytes", scanBatchBytes,
        "in [4096, 67108864]");
    require(snapshotRowsPerSecond >= 0, "snapshotRowsPerSecond", snapshotRowsPerSecond, ">= 0 (0 = no limit)");
    require(snapshotBytesPerSecond == 0 || snapshotBytesPerSecond >= 1024, "snapshotBytesPerSecond",
        snapshotBytesPerSecond, "0 (no limit) or >= 1024");
  }

  /** The five scan limits, the snapshot rates unlimited. */
  public EventServiceLimits(long scanRateBytesPerSecond, int scanConcurrency, long connectionQueueBytes,
      int maxDispatchers, int scanBatchBytes) {
    this(scanRateBytesPerSecond, scanConcurrency, connectionQueueBytes, maxDispatchers, scanBatchBytes,
        DEFAULT_SNAPSHOT_ROWS_PER_SECOND, DEFAULT_SNAPSHOT_BYTES_PER_SECOND);
  }

  public static EventServiceLimits defaults() {
    return new EventServiceLimits(DEFAULT_SCAN_RATE_BYTES_PER_SECOND, DEFAULT_SCAN_CONCURRENCY,
        DEFAULT_CONNECTION_QUEUE_BYTES, DEFAULT_MAX_DISPATCHERS, DEFAULT_SCAN_BATCH_BYTES);
  }

  public EventServiceLimits withScanRateBytesPerSecond(long v) {
    return new EventServiceLimits(v, scanConcurrency, connectionQueueBytes, maxDispatchers, scanBatchBytes,
        snapshotRowsPerSecond, snapshotBytesPerSecond);
  }

  public EventServiceLimits withScanConcurrency(int v) {
    return new EventServiceLimits(scanRateBytesPerSecond, v, connectionQueueBytes, maxDispatchers, scanBatchBytes,
        snapshotRowsPerSecond, snapshotBytesPerSecond);
  }

  public EventServiceLimits withConnectionQueueBytes(long v) {
    return new EventServiceLimits(scanRateBytesPerSecond, scanConcurrency, v, maxDispatchers, scanBatchBytes,
        snapshotRowsPerSecond, snapshotBytesPerSecond);
  }

  public EventServiceLimits withMaxDispatchers(int v) {
    return new EventServiceLimits(scanRateBytesPerSecond, scanConcurrency, connectionQueueBytes, v, scanBatchBytes,
        snapshotRowsPerSecond, snapshotBytesPerSecond);
  }

  public EventServiceLimits withScanBatchBytes(int v) {
    return new EventServiceLimits(scanRateBytesPerSecond, scanConcurrency, connectionQueueBytes, maxDispatchers, v,
        snapshotRowsPerSecond, snapshotBytesPerSecond);
  }

  /** The snapshot readers' rates, 0 = no limit. */
  public EventServiceLimits withSnapshotRates(long rowsPerSecond, long bytesPerSecond) {
    return new EventServiceLimits(scanRateBytesPerSecond, scanConcurrency, connectionQueueBytes, maxDispatchers,
        scanBatchBytes, rowsPerSecond, bytesPerSecond);
  }

  /**
   * These limits with the keys of {@code patch} applied; an unknown key or a value of the wrong type
   * is an error that names it.
   */
  public EventServiceLimits patchedWith(JsonObject patch) {
    for (String key : patch.fieldNames()) {
      if (!KEYS.contains(key)) {
        throw new IllegalArgumentException("unknown limit '" + key + "'; known: " + KEYS);
      }
    }
    try {
      return new EventServiceLimits(
          patch.getLong("scanRateBytesPerSecond", scanRateBytesPerSecond),
          patch.getInteger("scanConcurrency", scanConcurrency),
          patch.getLong("connectionQueueBytes", connectionQueueBytes),
          patch.getInteger("maxDispatchers", maxDispatchers),
          patch.getInteger("scanBatchBytes", scanBatchBytes),
          patch.getLong("snapshotRowsPerSecond", snapshotRowsPerSecond),
          patch.getLong("snapshotBytesPerSecond", snapshotBytesPerSecond));
    } catch (ClassCastException e) {
      throw new IllegalArgumentException("limits must be numbers: " + patch.encode(), e);
    }
  }

  public JsonObject toJson() {
    return new JsonObject().put("scanRateBytesPerSecond", scanRateBytesPerSecond)
        .put("scanConcurrency", scanConcurrency).put("connectionQueueBytes", connectionQueueBytes)
        .put("maxDispatchers", maxDispatchers).put("scanBatchBytes", scanBatchBytes)
        .put("snapshotRowsPerSecond", snapshotRowsPerSecond).put("snapshotBytesPerSecond", snapshotBytesPerSecond);
  }

  private static void require(boolean ok, String key, long value, String rule) {
    if (!ok) {
      throw new IllegalArgumentException(key + " must be " + rule + ", got " + value);
    }
  }
}
