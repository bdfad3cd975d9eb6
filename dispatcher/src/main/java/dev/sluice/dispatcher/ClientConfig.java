package dev.sluice.dispatcher;

import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Configuration of a {@link SluiceClient}: where the brokers are and the timings, limits and credits
 * of its collector. Every component has a {@code DEFAULT_*}; the compact constructor rejects bad
 * values with a message naming the key and the value.
 *
 * <pre>{@code
 * ClientConfig config = ClientConfig.of("127.0.0.1:8300", "127.0.0.1:8310")
 *     .withCollectorId("orders-service")
 *     .withDispatcherQueueBytes(32L << 20);
 * }</pre>
 *
 * @param brokers                   broker gRPC addresses {@code host:port}; more are learned from GetTopology
 * @param collectorId               sent in Hello; names this client in the broker's logs
 * @param heartbeatInterval         how often the batched heartbeat is sent (default 1 s)
 * @param heartbeatTimeoutIntervals the stream is broken when no HeartbeatResponse came for this many intervals (default 5)
 * @param creditInterval            how often the credit report is sent (default 200 ms)
 * @param reconnectBackoffMin       first reconnect delay; doubles per failed attempt (default 100 ms)
 * @param reconnectBackoffMax       cap of the reconnect and retry delays (default 5 s)
 * @param connectTimeout            how long to wait for Welcome after Hello (default 10 s)
 * @param dispatcherQueueBytes      bytes of events each subscription may hold undelivered: its credit (default 64 MiB)
 * @param changefeedQueueBytes      bytes all subscriptions of one changefeed may hold undelivered (default 512 MiB)
 * @param maxTransactionBytes       a transaction larger than this is delivered in parts (default 16 MiB)
 */
public record ClientConfig(List<String> brokers, String collectorId, Duration heartbeatInterval,
    int heartbeatTimeoutIntervals, Duration creditInterval, Duration reconnectBackoffMin,
    Duration reconnectBackoffMax, Duration connectTimeout, long dispatcherQueueBytes, long changefeedQueueBytes,
    long maxTransactionBytes) {

  public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(1);
  public static final int DEFAULT_HEARTBEAT_TIMEOUT_INTERVALS = 5;
  public static final Duration DEFAULT_CREDIT_INTERVAL = Duration.ofMillis(200);
  public static final Duration DEFAULT_RECONNECT_BACKOFF_MIN = Duration.ofMillis(100);
  public static final Duration DEFAULT_RECONNECT_BACKOFF_MAX = Duration.ofSeconds(5);
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
  public static final long DEFAULT_DISPATCHER_QUEUE_BYTES = 64L << 20;
  public static final long DEFAULT_CHANGEFEED_QUEUE_BYTES = 512L << 20;
  public static final long DEFAULT_MAX_TRANSACTION_BYTES = 16L << 20;

  public ClientConfig {
    Objects.requireNonNull(brokers, "brokers");
    brokers = List.copyOf(brokers);
    if (brokers.isEmpty()) {
      throw new IllegalArgumentException("brokers must name at least one host:port, got []");
    }
    for (String b : brokers) {
      BrokerAddress.parse(b);
    }
    if (collectorId == null || collectorId.isBlank()) {
      throw new IllegalArgumentException("collectorId must not be blank, got \"" + collectorId + "\"");
    }
    positive("heartbeatInterval", heartbeatInterval);
    if (heartbeatTimeoutIntervals < 2) {
      throw new IllegalArgumentException("heartbeatTimeoutIntervals must be >= 2, got " + heartbeatTimeoutIntervals);
    }
    positive("creditInterval", creditInterval);
    positive("reconnectBackoffMin", reconnectBackoffMin);
    positive("reconnectBackoffMax", reconnectBackoffMax);
    if (reconnectBackoffMax.compareTo(reconnectBackoffMin) < 0) {
      throw new IllegalArgumentException("reconnectBackoffMax (" + reconnectBackoffMax
          + ") must be >= reconnectBackoffMin (" + reconnectBackoffMin + ")");
    }
    positive("connectTimeout", connectTimeout);
    if (dispatcherQueueBytes < 1024) {
      throw new IllegalArgumentException("dispatcherQueueBytes must be >= 1024, got " + dispatcherQueueBytes);
    }
    if (changefeedQueueBytes < dispatcherQueueBytes) {
      throw new IllegalArgumentException("changefeedQueueBytes (" + changefeedQueueBytes
          + ") must be >= dispatcherQueueBytes (" + dispatcherQueueBytes + ")");
    }
    if (maxTransactionBytes < 1 || maxTransactionBytes > dispatcherQueueBytes) {
      throw new IllegalArgumentException("maxTransactionBytes must be in [1, dispatcherQueueBytes = "
          + dispatcherQueueBytes + "], got " + maxTransactionBytes);
    }
  }

  /** Defaults for everything but the broker addresses; the collector id is random. */
  public static ClientConfig of(String... brokers) {
    return new ClientConfig(List.of(brokers),
        "collector-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong()),
        DEFAULT_HEARTBEAT_INTERVAL, DEFAULT_HEARTBEAT_TIMEOUT_INTERVALS, DEFAULT_CREDIT_INTERVAL,
        DEFAULT_RECONNECT_BACKOFF_MIN, DEFAULT_RECONNECT_BACKOFF_MAX, DEFAULT_CONNECT_TIMEOUT,
        DEFAULT_DISPATCHER_QUEUE_BYTES, DEFAULT_CHANGEFEED_QUEUE_BYTES, DEFAULT_MAX_TRANSACTION_BYTES);
  }

  public ClientConfig withBrokers(List<String> value) {
    return new ClientConfig(value, collectorId, heartbeatInterval, heartbeatTimeoutIntervals, creditInterval,
        reconnectBackoffMin, reconnectBackoffMax, connectTimeout, dispatcherQueueBytes, changefeedQueueBytes,
        maxTransactionBytes);
  }

  public ClientConfig withCollectorId(String value) {
    return new ClientConfig(brokers, value, heartbeatInterval, heartbeatTimeoutIntervals, creditInterval,
        reconnectBackoffMin, reconnectBackoffMax, connectTimeout, dispatcherQueueBytes, changefeedQueueBytes,
        maxTransactionBytes);
  }

  public ClientConfig withHeartbeat(Duration interval, int timeoutIntervals) {
    return new ClientConfig(brokers, collectorId, interval, timeoutIntervals, creditInterval,
        reconnectBackoffMin, reconnectBackoffMax, connectTimeout, dispatcherQueueBytes, changefeedQueueBytes,
        maxTransactionBytes);
  }

  public ClientConfig withCreditInterval(Duration value) {
    return new ClientConfig(brokers, collectorId, heartbeatInterval, heartbeatTimeoutIntervals, value,
        reconnectBackoffMin, reconnectBackoffMax, connectTimeout, dispatcherQueueBytes, changefeedQueueBytes,
        maxTransactionBytes);
  }

  public ClientConfig withReconnectBackoff(Duration min, Duration max) {
    return new ClientConfig(brokers, collectorId, heartbeatInterval, heartbeatTimeoutIntervals, creditInterval,
        min, max, connectTimeout, dispatcherQueueBytes, changefeedQueueBytes, maxTransactionBytes);
  }

  public ClientConfig withConnectTimeout(Duration value) {
    return new ClientConfig(brokers, collectorId, heartbeatInterval, heartbeatTimeoutIntervals, creditInterval,
        reconnectBackoffMin, reconnectBackoffMax, value, dispatcherQueueBytes, changefeedQueueBytes,
        maxTransactionBytes);
  }

  /** Sets the per-subscription queue; the changefeed queue and max transaction size are raised or capped to fit. */
  public ClientConfig withDispatcherQueueBytes(long value) {
    return new ClientConfig(brokers, collectorId, heartbeatInterval, heartbeatTimeoutIntervals, creditInterval,
        reconnectBackoffMin, reconnectBackoffMax, connectTimeout, value, Math.max(changefeedQueueBytes, value),
        Math.min(maxTransactionBytes, value));
  }

  public ClientConfig withChangefeedQueueBytes(long value) {
    return new ClientConfig(brokers, collectorId, heartbeatInterval, heartbeatTimeoutIntervals, creditInterval,
        reconnectBackoffMin, reconnectBackoffMax, connectTimeout, dispatcherQueueBytes, value, maxTransactionBytes);
  }

  public ClientConfig withMaxTransactionBytes(long value) {
    return new ClientConfig(brokers, collectorId, heartbeatInterval, heartbeatTimeoutIntervals, creditInterval,
        reconnectBackoffMin, reconnectBackoffMax, connectTimeout, dispatcherQueueBytes, changefeedQueueBytes, value);
  }

  private static void positive(String key, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(key + " must be a positive duration, got " + d);
    }
  }
}
