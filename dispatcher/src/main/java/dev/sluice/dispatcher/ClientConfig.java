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
 * @param security                  TLS, client certificate and token (default {@link ClientSecurity#none()})
 * @param retryTimeout              a subscription that cannot stream for this long fails (default 5 min)
 */
public record ClientConfig(List<String> brokers, String collectorId, Duration heartbeatInterval,
    int heartbeatTimeoutIntervals, Duration creditInterval, Duration reconnectBackoffMin,
    Duration reconnectBackoffMax, Duration connectTimeout, long dispatcherQueueBytes, long changefeedQueueBytes,
    long maxTransactionBytes, ClientSecurity security, Duration retryTimeout) {

  /** Default of {@link #heartbeatInterval()}. */
  public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(1);
  /** Default of {@link #heartbeatTimeoutIntervals()}. */
  public static final int DEFAULT_HEARTBEAT_TIMEOUT_INTERVALS = 5;
  /** Default of {@link #creditInterval()}. */
  public static final Duration DEFAULT_CREDIT_INTERVAL = Duration.ofMillis(200);
  /** Default of {@link #reconnectBackoffMin()}. */
  public static final Duration DEFAULT_RECONNECT_BACKOFF_MIN = Duration.ofMillis(100);
  /** Default of {@link #reconnectBackoffMax()}. */
  public static final Duration DEFAULT_RECONNECT_BACKOFF_MAX = Duration.ofSeconds(5);
  /** Default of {@link #connectTimeout()}. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
  /** Default of {@link #dispatcherQueueBytes()}: 64 MiB. */
  public static final long DEFAULT_DISPATCHER_QUEUE_BYTES = 64L << 20;
  /** Default of {@link #changefeedQueueBytes()}: 512 MiB. */
  public static final long DEFAULT_CHANGEFEED_QUEUE_BYTES = 512L << 20;
  /** Default of {@link #maxTransactionBytes()}: 16 MiB. */
  public static final long DEFAULT_MAX_TRANSACTION_BYTES = 16L << 20;
  /** Default of {@link #retryTimeout()}: 5 minutes. */
  public static final Duration DEFAULT_RETRY_TIMEOUT = Duration.ofMinutes(5);

  /** Validates every component; a message names the component and the value. */
  public ClientConfig {
    Objects.requireNonNull(security, "security");
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
    positive("retryTimeout", retryTimeout);
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
        DEFAULT_DISPATCHER_QUEUE_BYTES, DEFAULT_CHANGEFEED_QUEUE_BYTES, DEFAULT_MAX_TRANSACTION_BYTES,
        ClientSecurity.none(), DEFAULT_RETRY_TIMEOUT);
  }

  /** With other broker addresses ({@code host:port}); more are learned from GetTopology. */
  public ClientConfig withBrokers(List<String> value) {
    return new ClientConfig(value, collectorId, heartbeatInterval, heartbeatTimeoutIntervals, creditInterval,
        reconnectBackoffMin, reconnectBackoffMax, connectTimeout, dispatcherQueueBytes, changefeedQueueBytes,
        maxTransactionBytes, security, retryTimeout);
  }

  /** With the collector id sent in Hello, which names this client in the broker's logs. */
  public ClientConfig withCollectorId(String value) {
    return new ClientConfig(brokers, value, heartbeatInterval, heartbeatTimeoutIntervals, creditInterval,
        reconnectBackoffMin, reconnectBackoffMax, connectTimeout, dispatcherQueueBytes, changefeedQueueBytes,
        maxTransactionBytes, security, retryTimeout);
  }

  /** With the heartbeat interval and how many silent intervals break the stream. */
  public ClientConfig withHeartbeat(Duration interval, int timeoutIntervals) {
    return new ClientConfig(brokers, collectorId, interval, timeoutIntervals, creditInterval,
        reconnectBackoffMin, reconnectBackoffMax, connectTimeout, dispatcherQueueBytes, changefeedQueueBytes,
        maxTransactionBytes, security, retryTimeout);
  }

  /** With how often the credit report is sent. */
  public ClientConfig withCreditInterval(Duration value) {
    return new ClientConfig(brokers, collectorId, heartbeatInterval, heartbeatTimeoutIntervals, value,
        reconnectBackoffMin, reconnectBackoffMax, connectTimeout, dispatcherQueueBytes, changefeedQueueBytes,
        maxTransactionBytes, security, retryTimeout);
  }

  /** With the first reconnect delay and the cap of reconnect and retry delays. */
  public ClientConfig withReconnectBackoff(Duration min, Duration max) {
    return new ClientConfig(brokers, collectorId, heartbeatInterval, heartbeatTimeoutIntervals, creditInterval,
        min, max, connectTimeout, dispatcherQueueBytes, changefeedQueueBytes, maxTransactionBytes, security, retryTimeout);
  }

  /** With how long to wait for a connection, a Welcome or a unary call. */
  public ClientConfig withConnectTimeout(Duration value) {
    return new ClientConfig(brokers, collectorId, heartbeatInterval, heartbeatTimeoutIntervals, creditInterval,
        reconnectBackoffMin, reconnectBackoffMax, value, dispatcherQueueBytes, changefeedQueueBytes,
        maxTransactionBytes, security, retryTimeout);
  }

  /** Sets the per-subscription queue; the changefeed queue and max transaction size are raised or capped to fit. */
  public ClientConfig withDispatcherQueueBytes(long value) {
    return new ClientConfig(brokers, collectorId, heartbeatInterval, heartbeatTimeoutIntervals, creditInterval,
        reconnectBackoffMin, reconnectBackoffMax, connectTimeout, value, Math.max(changefeedQueueBytes, value),
        Math.min(maxTransactionBytes, value), security, retryTimeout);
  }

  /** With the bytes all subscriptions of one credit group may hold undelivered. */
  public ClientConfig withChangefeedQueueBytes(long value) {
    return new ClientConfig(brokers, collectorId, heartbeatInterval, heartbeatTimeoutIntervals, creditInterval,
        reconnectBackoffMin, reconnectBackoffMax, connectTimeout, dispatcherQueueBytes, value, maxTransactionBytes,
        security, retryTimeout);
  }

  /** With the size above which a transaction is delivered in parts. */
  public ClientConfig withMaxTransactionBytes(long value) {
    return new ClientConfig(brokers, collectorId, heartbeatInterval, heartbeatTimeoutIntervals, creditInterval,
        reconnectBackoffMin, reconnectBackoffMax, connectTimeout, dispatcherQueueBytes, changefeedQueueBytes, value,
        security, retryTimeout);
  }

  /** Speaks TLS and sends the token as {@code value} says. */
  public ClientConfig withSecurity(ClientSecurity value) {
    return new ClientConfig(brokers, collectorId, heartbeatInterval, heartbeatTimeoutIntervals, creditInterval,
        reconnectBackoffMin, reconnectBackoffMax, connectTimeout, dispatcherQueueBytes, changefeedQueueBytes,
        maxTransactionBytes, value, retryTimeout);
  }

  /**
   * How long a subscription may keep failing to stream (no broker reachable, a transient refusal such as a
   * start ts the broker has not reached) before it fails: {@code streaming()} completes exceptionally and
   * {@code onError} gets a {@link SubscriptionStalledException}. Retries in between show as
   * {@link SubscriptionState#RETRYING}.
   */
  public ClientConfig withRetryTimeout(Duration value) {
    return new ClientConfig(brokers, collectorId, heartbeatInterval, heartbeatTimeoutIntervals, creditInterval,
        reconnectBackoffMin, reconnectBackoffMax, connectTimeout, dispatcherQueueBytes, changefeedQueueBytes,
        maxTransactionBytes, security, value);
  }

  private static void positive(String key, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(key + " must be a positive duration, got " + d);
    }
  }
}
