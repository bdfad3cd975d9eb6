package dev.sluice.broker.capture;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How PostgreSQL capture runs: its slot and publication, the heartbeat that keeps the resolved ts
 * moving on an idle source, fragmenting of large transactions, group commit, and retry backoff.
 *
 * <pre>{@code
 * CaptureConfig c = CaptureConfig.defaults("node-1");          // slot sluice_node_1, publication sluice_pub
 * CaptureConfig small = c.withFragment(1_000, 1 << 20);       // fragments of 1,000 rows or 1 MiB
 * }</pre>
 *
 * @param slotName            logical replication slot; created when missing ({@link #defaultSlotName})
 * @param publicationName     publication the slot streams; created {@code FOR ALL TABLES} when missing
 *                            (default {@value #DEFAULT_PUBLICATION})
 * @param heartbeatInterval   period of the {@code pg_logical_emit_message} heartbeat that advances the
 *                            resolved ts while idle (default 200 ms)
 * @param fragmentRows        rows of one open transaction buffered before they are written as a fragment
 *                            (default {@value #DEFAULT_FRAGMENT_ROWS})
 * @param fragmentBytes       bytes of buffered rows that force a fragment write (default 8 MiB)
 * @param memoryCapBytes      hard cap on the bytes of buffered, unwritten rows; must be at least
 *                            {@code fragmentBytes} and {@code groupCommitMaxBytes} (default 64 MiB)
 * @param groupCommitMaxDelay how long committed transactions may wait for others before their synced
 *                            batch is written (default 5 ms)
 * @param groupCommitMaxBytes a synced batch is written once it holds this many bytes (default 4 MiB)
 * @param statusInterval      how often the flush position is reported to PostgreSQL (default 1 s)
 * @param retryInitialBackoff first wait after the upstream became unreachable (default 200 ms)
 * @param retryMaxBackoff     the backoff doubles up to this (default 30 s)
 * @param installDdlTrigger   try to install the DDL event trigger; false forces the Relation-message
 *                            fallback mode (default true)
 */
public record CaptureConfig(String slotName, String publicationName, Duration heartbeatInterval,
    int fragmentRows, long fragmentBytes, long memoryCapBytes, Duration groupCommitMaxDelay,
    long groupCommitMaxBytes, Duration statusInterval, Duration retryInitialBackoff, Duration retryMaxBackoff,
    boolean installDdlTrigger) {

  public static final String DEFAULT_PUBLICATION = "sluice_pub";
  public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofMillis(200);
  public static final int DEFAULT_FRAGMENT_ROWS = 10_000;
  public static final long DEFAULT_FRAGMENT_BYTES = 8L << 20;
  public static final long DEFAULT_MEMORY_CAP_BYTES = 64L << 20;
  public static final Duration DEFAULT_GROUP_COMMIT_MAX_DELAY = Duration.ofMillis(5);
  public static final long DEFAULT_GROUP_COMMIT_MAX_BYTES = 4L << 20;
  public static final Duration DEFAULT_STATUS_INTERVAL = Duration.ofSeconds(1);
  public static final Duration DEFAULT_RETRY_INITIAL_BACKOFF = Duration.ofMillis(200);
  public static final Duration DEFAULT_RETRY_MAX_BACKOFF = Duration.ofSeconds(30);

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  public CaptureConfig {
    Objects.requireNonNull(slotName, "slotName");
    Objects.requireNonNull(publicationName, "publicationName");
    if (!IDENTIFIER.matcher(slotName).matches()) {
      throw new IllegalArgumentException("slotName must be 1-63 of [a-z0-9_] starting with a letter or _, got '"
          + slotName + "'");
    }
    if (!IDENTIFIER.matcher(publicationName).matches()) {
      throw new IllegalArgumentException("publicationName must be 1-63 of [a-z0-9_] starting with a letter or _, got '"
          + publicationName + "'");
    }
    requirePositive("heartbeatInterval", heartbeatInterval);
    requirePositive("statusInterval", statusInterval);
    requirePositive("retryInitialBackoff", retryInitialBackoff);
    requirePositive("retryMaxBackoff", retryMaxBackoff);
    Objects.requireNonNull(groupCommitMaxDelay, "groupCommitMaxDelay");
    if (groupCommitMaxDelay.isNegative()) {
      throw new IllegalArgumentException("groupCommitMaxDelay must be >= 0, got " + groupCommitMaxDelay);
    }
    if (retryMaxBackoff.compareTo(retryInitialBackoff) < 0) {
      throw new IllegalArgumentException("retryMaxBackoff (" + retryMaxBackoff + ") must be >= retryInitialBackoff ("
          + retryInitialBackoff + ")");
    }
    if (fragmentRows <= 0) {
      throw new IllegalArgumentException("fragmentRows must be > 0, got " + fragmentRows);
    }
    if (fragmentBytes <= 0 || groupCommitMaxBytes <= 0) {
      throw new IllegalArgumentException("fragmentBytes and groupCommitMaxBytes must be > 0, got "
          + fragmentBytes + " and " + groupCommitMaxBytes);
    }
    if (memoryCapBytes < fragmentBytes || memoryCapBytes < groupCommitMaxBytes) {
      throw new IllegalArgumentException("memoryCapBytes (" + memoryCapBytes + ") must be >= fragmentBytes ("
          + fragmentBytes + ") and >= groupCommitMaxBytes (" + groupCommitMaxBytes + ")");
    }
  }

  /** Every default, with the slot named after the node. */
  public static CaptureConfig defaults(String nodeId) {
    return new CaptureConfig(defaultSlotName(nodeId), DEFAULT_PUBLICATION, DEFAULT_HEARTBEAT_INTERVAL,
        DEFAULT_FRAGMENT_ROWS, DEFAULT_FRAGMENT_BYTES, DEFAULT_MEMORY_CAP_BYTES, DEFAULT_GROUP_COMMIT_MAX_DELAY,
        DEFAULT_GROUP_COMMIT_MAX_BYTES, DEFAULT_STATUS_INTERVAL, DEFAULT_RETRY_INITIAL_BACKOFF,
        DEFAULT_RETRY_MAX_BACKOFF, true);
  }

  /** {@code sluice_<node id>} with every character outside [a-z0-9_] replaced by {@code _}. */
  public static String defaultSlotName(String nodeId) {
    String s = "sluice_" + nodeId.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    return s.length() > 63 ? s.substring(0, 63) : s;
  }

  public CaptureConfig withSlot(String slot, String publication) {
    return new CaptureConfig(slot, publication, heartbeatInterval, fragmentRows, fragmentBytes, memoryCapBytes,
        groupCommitMaxDelay, groupCommitMaxBytes, statusInterval, retryInitialBackoff, retryMaxBackoff,
        installDdlTrigger);
  }

  public CaptureConfig withHeartbeatInterval(Duration interval) {
    return new CaptureConfig(slotName, publicationName, interval, fragmentRows, fragmentBytes, memoryCapBytes,
        groupCommitMaxDelay, groupCommitMaxBytes, statusInterval, retryInitialBackoff, retryMaxBackoff,
        installDdlTrigger);
  }

  public CaptureConfig withFragment(int rows, long bytes) {
    return new CaptureConfig(slotName, publicationName, heartbeatInterval, rows, bytes, memoryCapBytes,
        groupCommitMaxDelay, groupCommitMaxBytes, statusInterval, retryInitialBackoff, retryMaxBackoff,
        installDdlTrigger);
  }

  public CaptureConfig withMemoryCap(long capBytes, long groupCommitBytes) {
    return new CaptureConfig(slotName, publicationName, heartbeatInterval, fragmentRows, fragmentBytes, capBytes,
        groupCommitMaxDelay, groupCommitBytes, statusInterval, retryInitialBackoff, retryMaxBackoff,
        installDdlTrigger);
  }

  public CaptureConfig withRetryBackoff(Duration initial, Duration max) {
    return new CaptureConfig(slotName, publicationName, heartbeatInterval, fragmentRows, fragmentBytes,
        memoryCapBytes, groupCommitMaxDelay, groupCommitMaxBytes, statusInterval, initial, max, installDdlTrigger);
  }

  public CaptureConfig withInstallDdlTrigger(boolean install) {
    return new CaptureConfig(slotName, publicationName, heartbeatInterval, fragmentRows, fragmentBytes,
        memoryCapBytes, groupCommitMaxDelay, groupCommitMaxBytes, statusInterval, retryInitialBackoff,
        retryMaxBackoff, install);
  }

  private static void requirePositive(String key, Duration d) {
    Objects.requireNonNull(d, key);
    if (d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException(key + " must be > 0, got " + d);
    }
  }
}
