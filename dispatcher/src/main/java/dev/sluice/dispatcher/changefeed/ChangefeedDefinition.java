package dev.sluice.dispatcher.changefeed;

import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link ChangefeedRuntime} runs: an id, the tables (a {@link TableFilter}), where to start,
 * how it applies ({@link ApplyMode}), and how often to look for new or dropped tables. Defaults are
 * {@code DEFAULT_*}.
 *
 * <pre>{@code
 * ChangefeedDefinition d = ChangefeedDefinition.of("orders-to-warehouse", TableFilter.of("public.*"), 0);
 * }</pre>
 *
 * @param id                   the changefeed id: names its checkpoint rows and its credit on the broker
 * @param filter               which tables to follow
 * @param startTs              exclusive start ts, used where the sink holds no later checkpoint
 * @param tablePollInterval    how often ListTables is asked for tables created or dropped (default 10 s)
 * @param maxBatchTransactions transactions handed to the sink in one call at most (default 500)
 * @param retryBackoffMax      cap of the delay between retries of a transiently failing sink (default 5 s)
 * @param applyMode            whole upstream transactions across tables, or each table on its own (default
 *                             {@link ApplyMode#TRANSACTION})
 * @param initialLoad          whether the tables' existing rows are read first (default
 *                             {@link InitialLoad#SNAPSHOT})
 */
public record ChangefeedDefinition(String id, TableFilter filter, long startTs, Duration tablePollInterval,
    int maxBatchTransactions, Duration retryBackoffMax, ApplyMode applyMode, InitialLoad initialLoad) {

  /** How often ListTables is polled for new and dropped tables. */
  public static final Duration DEFAULT_TABLE_POLL_INTERVAL = Duration.ofSeconds(10);
  /** Transactions applied to the sink in one call at most. */
  public static final int DEFAULT_MAX_BATCH_TRANSACTIONS = 500;
  /** The longest wait between retries of an unavailable sink. */
  public static final Duration DEFAULT_RETRY_BACKOFF_MAX = Duration.ofSeconds(5);
  /** Upstream transactions applied whole, across tables. */
  public static final ApplyMode DEFAULT_APPLY_MODE = ApplyMode.TRANSACTION;
  /** Existing rows first, as a CDC user expects (Debezium's {@code initial}). */
  public static final InitialLoad DEFAULT_INITIAL_LOAD = InitialLoad.SNAPSHOT;

  /** Checks the id (1..255 characters) and the filter. */
  public ChangefeedDefinition {
    if (id == null || id.isBlank() || id.length() > 255) {
      throw new IllegalArgumentException("id must be 1..255 characters, got \"" + id + "\"");
    }
    Objects.requireNonNull(filter, "filter");
    if (startTs < 0) {
      throw new IllegalArgumentException("startTs must be >= 0, got " + startTs);
    }
    if (tablePollInterval == null || tablePollInterval.toMillis() < 10) {
      throw new IllegalArgumentException("tablePollInterval must be at least 10 ms, got " + tablePollInterval);
    }
    if (maxBatchTransactions < 1) {
      throw new IllegalArgumentException("maxBatchTransactions must be >= 1, got " + maxBatchTransactions);
    }
    if (retryBackoffMax == null || retryBackoffMax.toMillis() < 1) {
      throw new IllegalArgumentException("retryBackoffMax must be positive, got " + retryBackoffMax);
    }
    Objects.requireNonNull(applyMode, "applyMode");
    Objects.requireNonNull(initialLoad, "initialLoad");
  }

  /** A changefeed {@code id} of the tables {@code filter} follows, from {@code startTs}, with the defaults. */
  public static ChangefeedDefinition of(String id, TableFilter filter, long startTs) {
    return new ChangefeedDefinition(id, filter, startTs, DEFAULT_TABLE_POLL_INTERVAL, DEFAULT_MAX_BATCH_TRANSACTIONS,
        DEFAULT_RETRY_BACKOFF_MAX, DEFAULT_APPLY_MODE, DEFAULT_INITIAL_LOAD);
  }

  /** A copy with another ListTables polling interval. */
  public ChangefeedDefinition withTablePollInterval(Duration value) {
    return new ChangefeedDefinition(id, filter, startTs, value, maxBatchTransactions, retryBackoffMax, applyMode, initialLoad);
  }

  /** A copy with another batch bound (transactions per sink call). */
  public ChangefeedDefinition withMaxBatchTransactions(int value) {
    return new ChangefeedDefinition(id, filter, startTs, tablePollInterval, value, retryBackoffMax, applyMode, initialLoad);
  }

  /** A copy with another longest retry backoff. */
  public ChangefeedDefinition withRetryBackoffMax(Duration value) {
    return new ChangefeedDefinition(id, filter, startTs, tablePollInterval, maxBatchTransactions, value, applyMode, initialLoad);
  }

  /** A copy applying in {@code value} mode (whole transactions, or table by table). */
  public ChangefeedDefinition withApplyMode(ApplyMode value) {
    return new ChangefeedDefinition(id, filter, startTs, tablePollInterval, maxBatchTransactions, retryBackoffMax,
        value, initialLoad);
  }

  /** A copy that reads the tables' existing rows first ({@link InitialLoad#SNAPSHOT}) or not. */
  public ChangefeedDefinition withInitialLoad(InitialLoad value) {
    return new ChangefeedDefinition(id, filter, startTs, tablePollInterval, maxBatchTransactions, retryBackoffMax,
        applyMode, value);
  }
}
