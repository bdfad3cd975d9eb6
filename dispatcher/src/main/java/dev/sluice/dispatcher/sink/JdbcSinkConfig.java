package dev.sluice.dispatcher.sink;

import dev.sluice.api.secret.Redactor;
import dev.sluice.api.v1.DdlType;
import java.util.Objects;
import java.util.Set;

/**
 * Configuration of a {@link JdbcUpsertSink}. Defaults are {@code DEFAULT_*} constants; the compact
 * constructor rejects bad values naming the key and value.
 *
 * <pre>{@code
 * JdbcSinkConfig c = JdbcSinkConfig.of("jdbc:postgresql://127.0.0.1:5432/warehouse", "app", "secret", "cf1")
 *     .withTargetSchema("replica");
 * }</pre>
 *
 * @param jdbcUrl         {@code jdbc:postgresql:...}, {@code jdbc:mariadb:...} or {@code jdbc:mysql:...} (connected
 *                        through the bundled MariaDB Connector/J, {@link JdbcTarget})
 * @param user            database user
 * @param password        its password
 * @param changefeedId    the changefeed whose checkpoint rows this sink owns
 * @param targetSchema    schema (PostgreSQL) or database (MySQL/MariaDB) for every target table; null: on
 *                        PostgreSQL the source schema name, on MySQL/MariaDB the URL's database
 * @param batchSize       rows per JDBC batch before it is executed (default 500)
 * @param createTables    create a missing target table from the table info before its first rows (default true)
 * @param skippedDdlTypes DDL types applied as no-ops with a warning instead of stopping (default none); for
 *                        example index DDL when the target keeps its own indexes
 * @param fenceToken      the writer's fencing token (a hosted changefeed's owner in a cluster): the sink
 *                        claims it in {@value #FENCE_TABLE} and refuses every transaction once a higher one was
 *                        claimed ({@link FencedOutException}); 0 = unfenced, refused where a token was claimed
 */
public record JdbcSinkConfig(String jdbcUrl, String user, String password, String changefeedId, String targetSchema,
    int batchSize, boolean createTables, Set<DdlType> skippedDdlTypes, long fenceToken) {

  /** Rows per JDBC batch. */
  public static final int DEFAULT_BATCH_SIZE = 500;
  /** Missing target tables are created. */
  public static final boolean DEFAULT_CREATE_TABLES = true;
  /** The changefeed checkpoint table, in the connection's default schema. */
  public static final String CHECKPOINT_TABLE = "sluice_checkpoint";
  /** Per-table progress, in the connection's default schema. */
  public static final String TABLE_CHECKPOINT_TABLE = "sluice_table_checkpoint";
  /** The highest fencing token claimed per changefeed, in the connection's default schema. */
  public static final String FENCE_TABLE = "sluice_fence";
  /**
   * PostgreSQL: the changes of tables whose primary key a snapshot load deferred, in the connection's default
   * schema, replayed once the key is back ({@link JdbcUpsertSink#finishDeferredKeys()}).
   */
  public static final String DEFERRED_ROWS_TABLE = "sluice_deferred_rows";

  /** Checks every value, naming the key and the value it refuses. */
  public JdbcSinkConfig {
    Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    Dialect.fromJdbcUrl(jdbcUrl);
    if (changefeedId == null || changefeedId.isBlank() || changefeedId.length() > 255) {
      throw new IllegalArgumentException("changefeedId must be 1..255 characters, got \"" + changefeedId + "\"");
    }
    if (targetSchema != null && targetSchema.isBlank()) {
      throw new IllegalArgumentException("targetSchema must be null or non-blank, got \"" + targetSchema + "\"");
    }
    if (batchSize < 1 || batchSize > 100_000) {
      throw new IllegalArgumentException("batchSize must be in [1, 100000], got " + batchSize);
    }
    skippedDdlTypes = skippedDdlTypes == null ? Set.of() : Set.copyOf(skippedDdlTypes);
    if (fenceToken < 0) {
      throw new IllegalArgumentException("fenceToken must be >= 0 (0 = unfenced), got " + fenceToken);
    }
  }

  /** An unfenced sink. */
  public JdbcSinkConfig(String jdbcUrl, String user, String password, String changefeedId, String targetSchema,
      int batchSize, boolean createTables, Set<DdlType> skippedDdlTypes) {
    this(jdbcUrl, user, password, changefeedId, targetSchema, batchSize, createTables, skippedDdlTypes, 0);
  }

  /** A sink config for {@code changefeedId} into {@code jdbcUrl}, with the defaults. */
  public static JdbcSinkConfig of(String jdbcUrl, String user, String password, String changefeedId) {
    return new JdbcSinkConfig(jdbcUrl, user, password, changefeedId, null, DEFAULT_BATCH_SIZE, DEFAULT_CREATE_TABLES,
        Set.of());
  }

  /** A copy writing every table into {@code value} (null: the source schema, or the URL's database). */
  public JdbcSinkConfig withTargetSchema(String value) {
    return new JdbcSinkConfig(jdbcUrl, user, password, changefeedId, value, batchSize, createTables, skippedDdlTypes,
        fenceToken);
  }

  /** A copy with {@code value} rows per JDBC batch. */
  public JdbcSinkConfig withBatchSize(int value) {
    return new JdbcSinkConfig(jdbcUrl, user, password, changefeedId, targetSchema, value, createTables, skippedDdlTypes,
        fenceToken);
  }

  /** A copy that creates missing target tables, or not. */
  public JdbcSinkConfig withCreateTables(boolean value) {
    return new JdbcSinkConfig(jdbcUrl, user, password, changefeedId, targetSchema, batchSize, value, skippedDdlTypes,
        fenceToken);
  }

  /** A copy applying DDL of {@code value} types as no-ops with a warning. */
  public JdbcSinkConfig withSkippedDdlTypes(Set<DdlType> value) {
    return new JdbcSinkConfig(jdbcUrl, user, password, changefeedId, targetSchema, batchSize, createTables, value,
        fenceToken);
  }

  /** Writes fenced by {@code token} (see {@link #fenceToken()}). */
  public JdbcSinkConfig withFenceToken(long token) {
    return new JdbcSinkConfig(jdbcUrl, user, password, changefeedId, targetSchema, batchSize, createTables,
        skippedDdlTypes, token);
  }

  /** The target's SQL dialect, from the URL. */
  public Dialect dialect() {
    return Dialect.fromJdbcUrl(jdbcUrl);
  }

  @Override
  public String toString() {
    return "JdbcSinkConfig[jdbcUrl=" + Redactor.redact(jdbcUrl) + ", user=" + user + ", changefeedId=" + changefeedId
        + ", targetSchema=" + targetSchema + ", batchSize=" + batchSize + ", createTables=" + createTables
        + ", skippedDdlTypes=" + skippedDdlTypes + ", fenceToken=" + fenceToken + "]";   // never the password
  }
}
