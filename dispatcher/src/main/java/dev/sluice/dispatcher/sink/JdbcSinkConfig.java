package dev.sluice.dispatcher.sink;

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
 * @param jdbcUrl         {@code jdbc:postgresql:...}, {@code jdbc:mariadb:...} or {@code jdbc:mysql:...}
 * @param user            database user
 * @param password        its password
 * @param changefeedId    the changefeed whose checkpoint rows this sink owns
 * @param targetSchema    schema (PostgreSQL) or database (MySQL) for every target table; null keeps the
 *                        source schema name
 * @param batchSize       rows per JDBC batch before it is executed (default 500)
 * @param createTables    create a missing target table from the table info before its first rows (default true)
 * @param skippedDdlTypes DDL types applied as no-ops with a warning instead of stopping (default none); for
 *                        example index DDL when the target keeps its own indexes
 */
public record JdbcSinkConfig(String jdbcUrl, String user, String password, String changefeedId, String targetSchema,
    int batchSize, boolean createTables, Set<DdlType> skippedDdlTypes) {

  public static final int DEFAULT_BATCH_SIZE = 500;
  public static final boolean DEFAULT_CREATE_TABLES = true;
  /** The changefeed checkpoint table, in the connection's default schema. */
  public static final String CHECKPOINT_TABLE = "sluice_checkpoint";
  /** Per-table progress, in the connection's default schema. */
  public static final String TABLE_CHECKPOINT_TABLE = "sluice_table_checkpoint";

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
  }

  public static JdbcSinkConfig of(String jdbcUrl, String user, String password, String changefeedId) {
    return new JdbcSinkConfig(jdbcUrl, user, password, changefeedId, null, DEFAULT_BATCH_SIZE, DEFAULT_CREATE_TABLES,
        Set.of());
  }

  public JdbcSinkConfig withTargetSchema(String value) {
    return new JdbcSinkConfig(jdbcUrl, user, password, changefeedId, value, batchSize, createTables, skippedDdlTypes);
  }

  public JdbcSinkConfig withBatchSize(int value) {
    return new JdbcSinkConfig(jdbcUrl, user, password, changefeedId, targetSchema, value, createTables, skippedDdlTypes);
  }

  public JdbcSinkConfig withCreateTables(boolean value) {
    return new JdbcSinkConfig(jdbcUrl, user, password, changefeedId, targetSchema, batchSize, value, skippedDdlTypes);
  }

  public JdbcSinkConfig withSkippedDdlTypes(Set<DdlType> value) {
    return new JdbcSinkConfig(jdbcUrl, user, password, changefeedId, targetSchema, batchSize, createTables, value);
  }

  public Dialect dialect() {
    return Dialect.fromJdbcUrl(jdbcUrl);
  }

  @Override
  public String toString() {
    return "JdbcSinkConfig[jdbcUrl=" + jdbcUrl + ", user=" + user + ", changefeedId=" + changefeedId
        + ", targetSchema=" + targetSchema + ", batchSize=" + batchSize + ", createTables=" + createTables
        + ", skippedDdlTypes=" + skippedDdlTypes + "]";   // never the password
  }
}
