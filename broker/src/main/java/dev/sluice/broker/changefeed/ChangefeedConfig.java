package dev.sluice.broker.changefeed;

import java.time.Duration;
import java.util.Objects;

/**
 * How the broker hosts changefeeds: the retry policy of FAILED changefeeds and of deletions, how
 * long a DELETE waits before answering 202, and how often progress is recorded. Defaults are
 * {@code DEFAULT_*}; the compact constructor names a bad key and value.
 *
 * <pre>{@code
 * ChangefeedConfig c = ChangefeedConfig.defaults().withDeleteWait(Duration.ofSeconds(2));
 * }</pre>
 *
 * @param retryBackoffMin    first delay before a transiently FAILED changefeed is restarted; doubles per attempt (default 1 s)
 * @param retryBackoffMax    cap of that delay (default 60 s)
 * @param retryMaxAttempts   automatic restarts before the changefeed stays FAILED until RESUME; 0 = no limit (default 30)
 * @param cleanupBackoffMin  first delay before a failed deletion cleanup is tried again; doubles (default 1 s)
 * @param cleanupBackoffMax  cap of that delay (default 30 s)
 * @param deleteWait         how long DELETE waits for the cleanup before answering 202 with a status URL (default 5 s)
 * @param stopTimeout        how long stopping a runtime and confirming its dispatchers are gone may take (default 15 s)
 * @param progressInterval   how often running changefeeds' checkpoints are recorded and their metrics updated (default 1 s)
 */
public record ChangefeedConfig(Duration retryBackoffMin, Duration retryBackoffMax, int retryMaxAttempts,
    Duration cleanupBackoffMin, Duration cleanupBackoffMax, Duration deleteWait, Duration stopTimeout,
    Duration progressInterval) {

  public static final Duration DEFAULT_RETRY_BACKOFF_MIN = Duration.ofSeconds(1);
  public static final Duration DEFAULT_RETRY_BACKOFF_MAX = Duration.ofSeconds(60);
  public static final int DEFAULT_RETRY_MAX_ATTEMPTS = 30;
  public static final Duration DEFAULT_CLEANUP_BACKOFF_MIN = Duration.ofSeconds(1);
  public static final Duration DEFAULT_CLEANUP_BACKOFF_MAX = Duration.ofSeconds(30);
  public static final Duration DEFAULT_DELETE_WAIT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(15);
  public static final Duration DEFAULT_PROGRESS_INTERVAL = Duration.ofSeconds(1);

  public ChangefeedConfig {
    positive("retryBackoffMin", retryBackoffMin);
    positive("retryBackoffMax", retryBackoffMax);
    if (retryBackoffMax.compareTo(retryBackoffMin) < 0) {
      throw new IllegalArgumentException("retryBackoffMax must be >= retryBackoffMin (" + retryBackoffMin + "), got "
          + retryBackoffMax);
    }
    if (retryMaxAttempts < 0) {
      throw new IllegalArgumentException("retryMaxAttempts must be >= 0 (0 = no limit), got " + retryMaxAttempts);
    }
    positive("cleanupBackoffMin", cleanupBackoffMin);
    positive("cleanupBackoffMax", cleanupBackoffMax);
    if (cleanupBackoffMax.compareTo(cleanupBackoffMin) < 0) {
      throw new IllegalArgumentException("cleanupBackoffMax must be >= cleanupBackoffMin (" + cleanupBackoffMin
          + "), got " + cleanupBackoffMax);
    }
    positive("deleteWait", deleteWait);
    positive("stopTimeout", stopTimeout);
    positive("progressInterval", progressInterval);
  }

  private static void positive(String key, Duration d) {
    Objects.requireNonNull(d, key);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(key + " must be positive, got " + d);
    }
  }

  public static ChangefeedConfig defaults() {
    return new ChangefeedConfig(DEFAULT_RETRY_BACKOFF_MIN, DEFAULT_RETRY_BACKOFF_MAX, DEFAULT_RETRY_MAX_ATTEMPTS,
        DEFAULT_CLEANUP_BACKOFF_MIN, DEFAULT_CLEANUP_BACKOFF_MAX, DEFAULT_DELETE_WAIT, DEFAULT_STOP_TIMEOUT,
        DEFAULT_PROGRESS_INTERVAL);
  }

  public ChangefeedConfig withRetryBackoff(Duration min, Duration max, int maxAttempts) {
    return new ChangefeedConfig(min, max, maxAttempts, cleanupBackoffMin, cleanupBackoffMax, deleteWait, stopTimeout,
        progressInterval);
  }

  public ChangefeedConfig withCleanupBackoff(Duration min, Duration max) {
    return new ChangefeedConfig(retryBackoffMin, retryBackoffMax, retryMaxAttempts, min, max, deleteWait, stopTimeout,
        progressInterval);
  }

  public ChangefeedConfig withDeleteWait(Duration value) {
    return new ChangefeedConfig(retryBackoffMin, retryBackoffMax, retryMaxAttempts, cleanupBackoffMin,
        cleanupBackoffMax, value, stopTimeout, progressInterval);
  }

  public ChangefeedConfig withProgressInterval(Duration value) {
    return new ChangefeedConfig(retryBackoffMin, retryBackoffMax, retryMaxAttempts, cleanupBackoffMin,
        cleanupBackoffMax, deleteWait, stopTimeout, value);
  }

  /** Delay before automatic attempt {@code attempt} (1-based) of a FAILED changefeed. */
  public Duration retryDelay(int attempt) {
    return backoff(retryBackoffMin, retryBackoffMax, attempt);
  }

  /** Delay before cleanup attempt {@code attempt + 1} after {@code attempt} failures. */
  public Duration cleanupDelay(int attempt) {
    return backoff(cleanupBackoffMin, cleanupBackoffMax, attempt);
  }

  private static Duration backoff(Duration min, Duration max, int attempt) {
    long ms = min.toMillis() << Math.min(Math.max(attempt - 1, 0), 20);
    return Duration.ofMillis(Math.min(ms, max.toMillis()));
  }
}
