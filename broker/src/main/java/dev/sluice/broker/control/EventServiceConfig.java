package dev.sluice.broker.control;

import dev.sluice.broker.snapshot.SnapshotConfig;
import java.time.Duration;

/**
 * Static configuration of the event service (set at start). Runtime-tunable limits live in
 * {@link EventServiceLimits}.
 *
 * @param limits                 initial runtime limits
 * @param dataPlaneInstances     data-plane verticles; dispatchers are hash-partitioned over them
 *                               (default {@value #DEFAULT_DATA_PLANE_INSTANCES})
 * @param maxMessageBytes        largest message accepted from a collector (default
 *                               {@value #DEFAULT_MAX_MESSAGE_BYTES})
 * @param resolvedFlushInterval  how often coalesced Resolved watermarks are flushed (default 50 ms)
 * @param idleResolvedInterval   how often an idle dispatcher gets a new watermark (default 250 ms)
 * @param tickInterval           data-plane scheduling tick (default 10 ms)
 * @param tombstoneTtl           how long a removed dispatcher's epoch is remembered (default 10 min)
 * @param detachedHoldTtl        how long a disconnected dispatcher's checkpoint still holds back GC
 *                               (default 10 min)
 * @param gcInterval             how often the GC point is recomputed (default 10 s)
 * @param gcRetention            data younger than this is kept even with no consumer (default 1 h)
 * @param controlQueueMessages   per stream, control messages queued before the stream is closed as a
 *                               slow consumer (default {@value #DEFAULT_CONTROL_QUEUE_MESSAGES})
 * @param scanThreadNice         OS niceness of scan threads, 0 to 19 (0: as the rest of the broker; default
 *                               {@value #DEFAULT_SCAN_THREAD_NICE}), so control and I/O threads win the CPU
 *                               when catch-up scans saturate it (Linux; see {@code ScanThreadPriority}); snapshot
 *                               readers run at the same niceness
 * @param connections            what the gRPC port admits: connection cap, preface, Hello and idle deadlines
 *                               ({@link ConnectionLimits#defaults()})
 * @param snapshot               the snapshot readers (docs/EVENT-SERVICE.md "Snapshots")
 */
public record EventServiceConfig(EventServiceLimits limits, int dataPlaneInstances, int maxMessageBytes,
    Duration resolvedFlushInterval, Duration idleResolvedInterval, Duration tickInterval, Duration tombstoneTtl,
    Duration detachedHoldTtl, Duration gcInterval, Duration gcRetention, int controlQueueMessages,
    int scanThreadNice, ConnectionLimits connections, SnapshotConfig snapshot) {

  public static final int DEFAULT_DATA_PLANE_INSTANCES = 2;
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 4 << 20;
  public static final Duration DEFAULT_RESOLVED_FLUSH_INTERVAL = Duration.ofMillis(50);
  public static final Duration DEFAULT_IDLE_RESOLVED_INTERVAL = Duration.ofMillis(250);
  public static final Duration DEFAULT_TICK_INTERVAL = Duration.ofMillis(10);
  public static final Duration DEFAULT_TOMBSTONE_TTL = Duration.ofMinutes(10);
  public static final Duration DEFAULT_DETACHED_HOLD_TTL = Duration.ofMinutes(10);
  public static final Duration DEFAULT_GC_INTERVAL = Duration.ofSeconds(10);
  public static final Duration DEFAULT_GC_RETENTION = Duration.ofHours(1);
  public static final int DEFAULT_CONTROL_QUEUE_MESSAGES = 100_000;
  public static final int DEFAULT_SCAN_THREAD_NICE = 10;

  public EventServiceConfig {
    if (limits == null) {
      throw new IllegalArgumentException("limits must be set");
    }
    if (dataPlaneInstances < 1 || dataPlaneInstances > 64) {
      throw new IllegalArgumentException("dataPlaneInstances must be in [1, 64], got " + dataPlaneInstances);
    }
    if (maxMessageBytes < 64 * 1024) {
      throw new IllegalArgumentException("maxMessageBytes must be >= 65536, got " + maxMessageBytes);
    }
    positive("resolvedFlushInterval", resolvedFlushInterval);
    positive("idleResolvedInterval", idleResolvedInterval);
    positive("tickInterval", tickInterval);
    positive("tombstoneTtl", tombstoneTtl);
    positive("detachedHoldTtl", detachedHoldTtl);
    positive("gcInterval", gcInterval);
    positive("gcRetention", gcRetention);
    if (resolvedFlushInterval.toMillis() > 50) {
      throw new IllegalArgumentException(
          "resolvedFlushInterval must be <= 50 ms (PROTOCOL.md), got " + resolvedFlushInterval);
    }
    if (controlQueueMessages < 16) {
      throw new IllegalArgumentException("controlQueueMessages must be >= 16, got " + controlQueueMessages);
    }
    if (scanThreadNice < 0 || scanThreadNice > 19) {
      throw new IllegalArgumentException("scanThreadNice must be in [0, 19], got " + scanThreadNice);
    }
    if (connections == null) {
      throw new IllegalArgumentException("connections must be set");
    }
    if (snapshot == null) {
      throw new IllegalArgumentException("snapshot must be set");
    }
  }

  /** Default snapshot readers. */
  public EventServiceConfig(EventServiceLimits limits, int dataPlaneInstances, int maxMessageBytes,
      Duration resolvedFlushInterval, Duration idleResolvedInterval, Duration tickInterval, Duration tombstoneTtl,
      Duration detachedHoldTtl, Duration gcInterval, Duration gcRetention, int controlQueueMessages,
      int scanThreadNice, ConnectionLimits connections) {
    this(limits, dataPlaneInstances, maxMessageBytes, resolvedFlushInterval, idleResolvedInterval, tickInterval,
        tombstoneTtl, detachedHoldTtl, gcInterval, gcRetention, controlQueueMessages, scanThreadNice, connections,
        SnapshotConfig.defaults());
  }

  public static EventServiceConfig defaults() {
    return new EventServiceConfig(EventServiceLimits.defaults(), DEFAULT_DATA_PLANE_INSTANCES,
        DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_RESOLVED_FLUSH_INTERVAL, DEFAULT_IDLE_RESOLVED_INTERVAL,
        DEFAULT_TICK_INTERVAL, DEFAULT_TOMBSTONE_TTL, DEFAULT_DETACHED_HOLD_TTL, DEFAULT_GC_INTERVAL,
        DEFAULT_GC_RETENTION, DEFAULT_CONTROL_QUEUE_MESSAGES, DEFAULT_SCAN_THREAD_NICE, ConnectionLimits.defaults());
  }

  public EventServiceConfig withLimits(EventServiceLimits l) {
    return new EventServiceConfig(l, dataPlaneInstances, maxMessageBytes, resolvedFlushInterval,
        idleResolvedInterval, tickInterval, tombstoneTtl, detachedHoldTtl, gcInterval, gcRetention,
        controlQueueMessages, scanThreadNice, connections, snapshot);
  }

  public EventServiceConfig withDataPlaneInstances(int n) {
    return new EventServiceConfig(limits, n, maxMessageBytes, resolvedFlushInterval, idleResolvedInterval,
        tickInterval, tombstoneTtl, detachedHoldTtl, gcInterval, gcRetention, controlQueueMessages, scanThreadNice,
        connections, snapshot);
  }

  public EventServiceConfig withMaxMessageBytes(int n) {
    return new EventServiceConfig(limits, dataPlaneInstances, n, resolvedFlushInterval, idleResolvedInterval,
        tickInterval, tombstoneTtl, detachedHoldTtl, gcInterval, gcRetention, controlQueueMessages, scanThreadNice,
        connections, snapshot);
  }

  public EventServiceConfig withGc(Duration interval, Duration retention) {
    return new EventServiceConfig(limits, dataPlaneInstances, maxMessageBytes, resolvedFlushInterval,
        idleResolvedInterval, tickInterval, tombstoneTtl, detachedHoldTtl, interval, retention, controlQueueMessages,
        scanThreadNice, connections, snapshot);
  }

  public EventServiceConfig withControlQueueMessages(int n) {
    return new EventServiceConfig(limits, dataPlaneInstances, maxMessageBytes, resolvedFlushInterval,
        idleResolvedInterval, tickInterval, tombstoneTtl, detachedHoldTtl, gcInterval, gcRetention, n, scanThreadNice,
        connections, snapshot);
  }

  public EventServiceConfig withScanThreadNice(int n) {
    return new EventServiceConfig(limits, dataPlaneInstances, maxMessageBytes, resolvedFlushInterval,
        idleResolvedInterval, tickInterval, tombstoneTtl, detachedHoldTtl, gcInterval, gcRetention,
        controlQueueMessages, n, connections, snapshot);
  }

  public EventServiceConfig withConnections(ConnectionLimits c) {
    return new EventServiceConfig(limits, dataPlaneInstances, maxMessageBytes, resolvedFlushInterval,
        idleResolvedInterval, tickInterval, tombstoneTtl, detachedHoldTtl, gcInterval, gcRetention,
        controlQueueMessages, scanThreadNice, c, snapshot);
  }

  public EventServiceConfig withSnapshot(SnapshotConfig c) {
    return new EventServiceConfig(limits, dataPlaneInstances, maxMessageBytes, resolvedFlushInterval,
        idleResolvedInterval, tickInterval, tombstoneTtl, detachedHoldTtl, gcInterval, gcRetention,
        controlQueueMessages, scanThreadNice, connections, c);
  }

  private static void positive(String key, Duration d) {
    if (d == null || d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException(key + " must be a positive duration, got " + d);
    }
  }
}
