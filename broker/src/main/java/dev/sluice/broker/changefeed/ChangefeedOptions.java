package dev.sluice.broker.changefeed;

import dev.sluice.dispatcher.changefeed.ApplyMode;
import io.vertx.core.json.JsonObject;
import java.util.Locale;
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
 * @param applyMode            {@code transaction} (default: whole upstream transactions across tables) or
 *                             {@code table} (each table on its own), see {@link ApplyMode}
 * @param gcTtlS               how long, in seconds, the checkpoint of this changefeed holds the broker's GC while
 *                             it does not run (PAUSED, FAILED, deleted with keep_meta), default 86400 (24 h, as
 *                             TiCDC's gc-ttl); then it expires: the events after it may be collected
 */
public record ChangefeedOptions(long tablePollIntervalMs, int maxBatchTransactions, String targetSchema,
    int batchSize, boolean createTables, ApplyMode applyMode, long gcTtlS) {

  public static final long DEFAULT_TABLE_POLL_INTERVAL_MS = 2000;
  public static final int DEFAULT_MAX_BATCH_TRANSACTIONS = 500;
  public static final int DEFAULT_BATCH_SIZE = 500;
  public static final boolean DEFAULT_CREATE_TABLES = true;
  public static final ApplyMode DEFAULT_APPLY_MODE = ApplyMode.TRANSACTION;
  public static final long DEFAULT_GC_TTL_S = 86_400;
  /** At most 30 days: the event store keeps everything after the oldest held checkpoint. */
  public static final long MAX_GC_TTL_S = 30L * 86_400;

  static final Set<String> KEYS = Set.of("table_poll_interval_ms", "max_batch_transactions", "target_schema",
      "batch_size", "create_tables", "apply_mode", "gc_ttl_s");

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
    if (applyMode == null) {
      throw InvalidChangefeedException.field("options.apply_mode", "must be \"transaction\" or \"table\"");
    }
    if (gcTtlS < 60 || gcTtlS > MAX_GC_TTL_S) {
      throw InvalidChangefeedException.field("options.gc_ttl_s", "must be in [60, " + MAX_GC_TTL_S + "] seconds, got "
          + gcTtlS);
    }
  }

  public static ChangefeedOptions defaults() {
    return new ChangefeedOptions(DEFAULT_TABLE_POLL_INTERVAL_MS, DEFAULT_MAX_BATCH_TRANSACTIONS, null,
        DEFAULT_BATCH_SIZE, DEFAULT_CREATE_TABLES, DEFAULT_APPLY_MODE, DEFAULT_GC_TTL_S);
  }

  public ChangefeedOptions withApplyMode(ApplyMode mode) {
    return new ChangefeedOptions(tablePollIntervalMs, maxBatchTransactions, targetSchema, batchSize, createTables, mode,
        gcTtlS);
  }

  public ChangefeedOptions withGcTtlS(long seconds) {
    return new ChangefeedOptions(tablePollIntervalMs, maxBatchTransactions, targetSchema, batchSize, createTables,
        applyMode, seconds);
  }

  /** Reads options strictly (unknown option → error naming it); absent keys keep their defaults. */
  public static ChangefeedOptions fromJson(StrictJson o) {
    ChangefeedOptions d = defaults();
    if (o == null) {
      return d;
    }
    return new ChangefeedOptions(o.longValue("table_poll_interval_ms", d.tablePollIntervalMs),
        o.intValue("max_batch_transactions", d.maxBatchTransactions), o.string("target_schema", d.targetSchema),
        o.intValue("batch_size", d.batchSize), o.bool("create_tables", d.createTables),
        applyMode(o.string("apply_mode", null), d.applyMode), o.longValue("gc_ttl_s", d.gcTtlS));
  }

  private static ApplyMode applyMode(String text, ApplyMode fallback) {
    if (text == null) {
      return fallback;
    }
    return switch (text) {
      case "transaction" -> ApplyMode.TRANSACTION;
      case "table" -> ApplyMode.TABLE;
      default -> throw InvalidChangefeedException.field("options.apply_mode", "must be \"transaction\" or \"table\","
          + " got \"" + text + "\"");
    };
  }

  public JsonObject toJson() {
    JsonObject o = new JsonObject().put("table_poll_interval_ms", tablePollIntervalMs)
        .put("max_batch_transactions", maxBatchTransactions).put("batch_size", batchSize)
        .put("create_tables", createTables).put("apply_mode", applyMode.name().toLowerCase(Locale.ROOT))
        .put("gc_ttl_s", gcTtlS);
    if (targetSchema != null) {
      o.put("target_schema", targetSchema);
    }
    return o;
  }
}
