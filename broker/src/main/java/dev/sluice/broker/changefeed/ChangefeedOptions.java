package dev.sluice.broker.changefeed;

import io.vertx.core.json.JsonObject;
import java.util.Set;

/**
 * Tuning of one hosted changefeed (the {@code options} object of the admin API). Defaults are
 * {@code DEFAULT_*}; values are checked here, naming the option.
 *
 * <pre>{@code
 * ChangefeedOptions o = ChangefeedOptions.fromJson(new JsonObject().put("target_schema", "replica"));
 * }</pre>
 *
 * @param tablePollIntervalMs  how often new and dropped tables are looked for, ms (default 2000, at least 10)
 * @param maxBatchTransactions transactions handed to the sink per call (default 500)
 * @param targetSchema         JDBC sinks: schema/database of every target table; null keeps the source schema
 * @param batchSize            JDBC sinks: rows per JDBC batch (default 500)
 * @param createTables         JDBC sinks: create missing target tables from the table info (default true)
 */
public record ChangefeedOptions(long tablePollIntervalMs, int maxBatchTransactions, String targetSchema,
    int batchSize, boolean createTables) {

  public static final long DEFAULT_TABLE_POLL_INTERVAL_MS = 2000;
  public static final int DEFAULT_MAX_BATCH_TRANSACTIONS = 500;
  public static final int DEFAULT_BATCH_SIZE = 500;
  public static final boolean DEFAULT_CREATE_TABLES = true;

  static final Set<String> KEYS = Set.of("table_poll_interval_ms", "max_batch_transactions", "target_schema",
      "batch_size", "create_tables");

  public ChangefeedOptions {
    if (tablePollIntervalMs < 10 || tablePollIntervalMs > 3_600_000) {
      throw InvalidChangefeedException.field("options.table_poll_interval_ms", "must be in [10, 3600000], got "
          + tablePollIntervalMs);
    }
    if (maxBatchTransactions < 1 || maxBatchTransactions > 100_000) {
      throw InvalidChangefeedException.field("options.max_batch_transactions", "must be in [1, 100000], got "
          + maxBatchTransactions);
    }
    if (targetSchema != null && !targetSchema.matches("[A-Za-z_][A-Za-z0-9_$]{0,62}")) {
      throw InvalidChangefeedException.field("options.target_schema", "must be a plain identifier, got \""
          + targetSchema + "\"");
    }
    if (batchSize < 1 || batchSize > 100_000) {
      throw InvalidChangefeedException.field("options.batch_size", "must be in [1, 100000], got " + batchSize);
    }
  }

  public static ChangefeedOptions defaults() {
    return new ChangefeedOptions(DEFAULT_TABLE_POLL_INTERVAL_MS, DEFAULT_MAX_BATCH_TRANSACTIONS, null,
        DEFAULT_BATCH_SIZE, DEFAULT_CREATE_TABLES);
  }

  /** Reads options strictly (unknown option → error naming it); absent keys keep their defaults. */
  public static ChangefeedOptions fromJson(StrictJson o) {
    ChangefeedOptions d = defaults();
    if (o == null) {
      return d;
    }
    return new ChangefeedOptions(o.longValue("table_poll_interval_ms", d.tablePollIntervalMs),
        o.intValue("max_batch_transactions", d.maxBatchTransactions), o.string("target_schema", d.targetSchema),
        o.intValue("batch_size", d.batchSize), o.bool("create_tables", d.createTables));
  }

  public JsonObject toJson() {
    JsonObject o = new JsonObject().put("table_poll_interval_ms", tablePollIntervalMs)
        .put("max_batch_transactions", maxBatchTransactions).put("batch_size", batchSize)
        .put("create_tables", createTables);
    if (targetSchema != null) {
      o.put("target_schema", targetSchema);
    }
    return o;
  }
}
