package dev.sluice.broker.changefeed;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How the broker hosts changefeeds: the retry policy of FAILED changefeeds and of deletions, how
 * long a DELETE waits before answering 202, how often progress is recorded, where file sinks may
 * write, and how long the create-time sink check may take. Defaults are {@code DEFAULT_*}; the
 * compact constructor names a bad key and value.
 *
 * <pre>{@code
 * ChangefeedConfig c = ChangefeedConfig.defaults().withDeleteWait(Duration.ofSeconds(2))
 *     .resolvedAgainst(Path.of("/var/lib/sluice"));   // file sinks under /var/lib/sluice/sinks
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
 * @param fileSinkDir        the only directory {@code jsonl:file:} sinks may write in (setting {@value #FILE_SINK_DIR_KEY});
 *                           a relative path is under the data directory (default {@code sinks})
 * @param sinkCheckTimeout   how long the check of a new sink at create or update may take (default 10 s)
 */
public record ChangefeedConfig(Duration retryBackoffMin, Duration retryBackoffMax, int retryMaxAttempts,
    Duration cleanupBackoffMin, Duration cleanupBackoffMax, Duration deleteWait, Duration stopTimeout,
    Duration progressInterval, Path fileSinkDir, Duration sinkCheckTimeout) {

  public static final Duration DEFAULT_RETRY_BACKOFF_MIN = Duration.ofSeconds(1);
  public static final Duration DEFAULT_RETRY_BACKOFF_MAX = Duration.ofSeconds(60);
  public static final int DEFAULT_RETRY_MAX_ATTEMPTS = 30;
  public static final Duration DEFAULT_CLEANUP_BACKOFF_MIN = Duration.ofSeconds(1);
  public static final Duration DEFAULT_CLEANUP_BACKOFF_MAX = Duration.ofSeconds(30);
  public static final Duration DEFAULT_DELETE_WAIT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(15);
  public static final Duration DEFAULT_PROGRESS_INTERVAL = Duration.ofSeconds(1);
  /** Relative: under the data directory. */
  public static final Path DEFAULT_FILE_SINK_DIR = Path.of("sinks");
  public static final Duration DEFAULT_SINK_CHECK_TIMEOUT = Duration.ofSeconds(10);
  /** The file sink directory's key (configuration file, {@code SLUICE_CHANGEFEEDS_FILE_SINK_DIR}), as errors name it. */
  public static final String FILE_SINK_DIR_KEY = "changefeeds.fileSinkDir";

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
    Objects.requireNonNull(fileSinkDir, FILE_SINK_DIR_KEY);
    if (fileSinkDir.toString().isEmpty()) {
      throw new IllegalArgumentException(FILE_SINK_DIR_KEY + " must name a directory, got \"\"");
    }
    positive("sinkCheckTimeout", sinkCheckTimeout);
  }

  /** The retry, deletion and progress settings, with the default file sink directory and sink check timeout. */
  public ChangefeedConfig(Duration retryBackoffMin, Duration retryBackoffMax, int retryMaxAttempts,
      Duration cleanupBackoffMin, Duration cleanupBackoffMax, Duration deleteWait, Duration stopTimeout,
      Duration progressInterval) {
    this(retryBackoffMin, retryBackoffMax, retryMaxAttempts, cleanupBackoffMin, cleanupBackoffMax, deleteWait,
        stopTimeout, progressInterval, DEFAULT_FILE_SINK_DIR, DEFAULT_SINK_CHECK_TIMEOUT);
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
        DEFAULT_PROGRESS_INTERVAL, DEFAULT_FILE_SINK_DIR, DEFAULT_SINK_CHECK_TIMEOUT);
  }

  public ChangefeedConfig withRetryBackoff(Duration min, Duration max, int maxAttempts) {
    return new ChangefeedConfig(min, max, maxAttempts, cleanupBackoffMin, cleanupBackoffMax, deleteWait, stopTimeout,
        progressInterval, fileSinkDir, sinkCheckTimeout);
  }

  public ChangefeedConfig withCleanupBackoff(Duration min, Duration max) {
    return new ChangefeedConfig(retryBackoffMin, retryBackoffMax, retryMaxAttempts, min, max, deleteWait, stopTimeout,
        progressInterval, fileSinkDir, sinkCheckTimeout);
  }

  public ChangefeedConfig withDeleteWait(Duration value) {
    return new ChangefeedConfig(retryBackoffMin, retryBackoffMax, retryMaxAttempts, cleanupBackoffMin,
        cleanupBackoffMax, value, stopTimeout, progressInterval, fileSinkDir, sinkCheckTimeout);
  }

  public ChangefeedConfig withProgressInterval(Duration value) {
    return new ChangefeedConfig(retryBackoffMin, retryBackoffMax, retryMaxAttempts, cleanupBackoffMin,
        cleanupBackoffMax, deleteWait, stopTimeout, value, fileSinkDir, sinkCheckTimeout);
  }

  /** File sinks confined to {@code dir} (relative: under the data directory). */
  public ChangefeedConfig withFileSinkDir(Path dir) {
    return new ChangefeedConfig(retryBackoffMin, retryBackoffMax, retryMaxAttempts, cleanupBackoffMin,
        cleanupBackoffMax, deleteWait, stopTimeout, progressInterval, dir, sinkCheckTimeout);
  }

  public ChangefeedConfig withSinkCheckTimeout(Duration value) {
    return new ChangefeedConfig(retryBackoffMin, retryBackoffMax, retryMaxAttempts, cleanupBackoffMin,
        cleanupBackoffMax, deleteWait, stopTimeout, progressInterval, fileSinkDir, value);
  }

  /** This config with a relative {@link #fileSinkDir} taken as under {@code dataDir}, and made absolute. */
  public ChangefeedConfig resolvedAgainst(Path dataDir) {
    return withFileSinkDir(dataDir.resolve(fileSinkDir).toAbsolutePath().normalize());
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
