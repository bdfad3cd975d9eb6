package dev.sluice.dispatcher.sink;

import dev.sluice.api.secret.Redactor;
import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.UserType;
import dev.sluice.api.v1.Value;
import dev.sluice.api.v1.ValueKind;
import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The SQL a JDBC target speaks: identifier quoting, the upsert form, column types for derived DDL,
 * the checkpoint tables, and how a {@link Value} is bound. {@code wireName()} matches
 * {@code DdlEvent.dialect}, so a captured statement of the same dialect can run as is.
 *
 * <pre>{@code
 * Dialect d = Dialect.fromJdbcUrl("jdbc:postgresql://127.0.0.1:5432/app");   // POSTGRESQL
 * String sql = d.upsert("\"public\".\"orders\"", List.of("id", "note"), List.of("id"), List.of("note"));
 * }</pre>
 */
public enum Dialect {

  /** PostgreSQL: {@code INSERT ... ON CONFLICT (pk) DO UPDATE SET c = EXCLUDED.c}. */
  POSTGRESQL("postgresql") {
    @Override
    public String quote(String identifier) {
      return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    @Override
    public String upsert(String table, List<String> columns, List<String> keys, List<String> update) {
      String head = insert(table, columns) + " ON CONFLICT (" + quoted(keys) + ")";
      return update.isEmpty() ? head + " DO NOTHING" : head + " DO UPDATE SET " + update.stream()
          .map(c -> quote(c) + " = EXCLUDED." + quote(c)).collect(Collectors.joining(", "));
    }

    @Override
    String type(ColumnInfo c, ValueKind kind, boolean key) {
      if (kind != ValueKind.VALUE_KIND_ARRAY && c.getUserTypesCount() > 0) {   // the type itself (PgUserTypes)
        UserType own = c.getUserTypes(c.getUserTypesCount() - 1);
        return qualified(own.getSchemaName(), own.getTypeName());
      }
      if (kind == c.getKind() && PgBuiltinType.matches(c.getSourceType())) {   // the source's own type, exactly
        return c.getSourceType();
      }
      return switch (kind) {
        case VALUE_KIND_BOOL -> "boolean";
        case VALUE_KIND_INT64 -> "bigint";
        case VALUE_KIND_DOUBLE -> "double precision";
        case VALUE_KIND_DECIMAL -> precision(c.getSourceType()).map(p -> "numeric" + p).orElse("numeric");
        case VALUE_KIND_STRING -> length(c.getSourceType()).map(n -> "varchar(" + n + ")").orElse("text");
        case VALUE_KIND_BYTES -> "bytea";
        case VALUE_KIND_TIMESTAMP -> "timestamp(6)";
        case VALUE_KIND_TIMESTAMP_TZ -> "timestamptz(6)";
        case VALUE_KIND_DATE -> "date";
        case VALUE_KIND_TIME -> "time(6)";
        case VALUE_KIND_JSON -> "jsonb";
        case VALUE_KIND_UUID -> "uuid";
        case VALUE_KIND_ARRAY -> type(c, c.getElementKind(), false) + "[]";
        case VALUE_KIND_TEXT_FALLBACK -> "text";
        case VALUE_KIND_UNSPECIFIED, UNRECOGNIZED -> null;
      };
    }

    /** Captured values go in as they are, identity columns included (as PostgreSQL's own replication writes them). */
    @Override
    public String insert(String table, List<String> columns) {
      return "INSERT INTO " + table + " (" + quoted(columns) + ") OVERRIDING SYSTEM VALUE VALUES ("
          + columns.stream().map(c -> "?").collect(Collectors.joining(", ")) + ")";
    }

    /** ctid picks one row: a keyless table may hold equal rows, and one change touched one of them. */
    @Override
    String updateMatching(String table, List<String> set, List<ImageMatch> match) {
      return "UPDATE ONLY " + table + " SET " + set.stream().map(c -> quote(c) + " = ?")
          .collect(Collectors.joining(", ")) + " WHERE ctid = (SELECT ctid FROM ONLY " + table + " WHERE "
          + matching(match) + " LIMIT 1)";
    }

    @Override
    String deleteMatching(String table, List<ImageMatch> match) {
      return "DELETE FROM ONLY " + table + " WHERE ctid = (SELECT ctid FROM ONLY " + table + " WHERE "
          + matching(match) + " LIMIT 1)";
    }

    /**
     * json, xml, point and the like have no equality operator: their text forms are compared, both printed by
     * the type's output function ({@code format('%L')}: NULL as NULL, a value quoted), the bound one read as
     * the column's type first. Not {@code ::text}: inet's cast to text adds the mask its output leaves out,
     * and the upstream's text of an array quotes other elements than the target prints.
     */
    private String matching(List<ImageMatch> match) {
      return match.stream().map(m -> m.asText()
          ? "format('%L', " + quote(m.column()) + ") = format('%L', CAST(? AS " + m.type() + "))"
          : quote(m.column()) + " IS NOT DISTINCT FROM ?").collect(Collectors.joining(" AND "));
    }

    @Override
    List<String> sessionSettings() {
      return List.of("SET session_replication_role = replica");
    }

    @Override
    String renameTable(String from, String toSchema, String toTable) {
      return "ALTER TABLE IF EXISTS " + from + " RENAME TO " + quote(toTable);
    }

    @Override
    String alterColumnType(String table, ColumnInfo c, String type) {
      return "ALTER TABLE " + table + " ALTER COLUMN " + quote(c.getName()) + " TYPE " + type + " USING "
          + quote(c.getName()) + "::" + type;
    }

    @Override
    String renameColumn(String table, String from, String to) {
      return "ALTER TABLE " + table + " RENAME COLUMN " + quote(from) + " TO " + quote(to);
    }

    @Override
    String setNullable(String table, ColumnInfo c, String type) {
      return "ALTER TABLE " + table + " ALTER COLUMN " + quote(c.getName()) + (c.getNullable() ? " DROP" : " SET")
          + " NOT NULL";
    }

    @Override
    String defaultClause(ColumnInfo c) {
      // the expression is PostgreSQL's own text; a sequence it names (serial) is not in the target
      return c.getHasDefault() && !c.getDefaultExpr().contains("nextval(") ? " DEFAULT " + c.getDefaultExpr() : "";
    }

    @Override
    String setDefault(String table, ColumnInfo c) {
      String clause = defaultClause(c);
      if (c.getHasDefault() && clause.isEmpty()) {
        return null;
      }
      return "ALTER TABLE " + table + " ALTER COLUMN " + quote(c.getName())
          + (clause.isEmpty() ? " DROP DEFAULT" : " SET" + clause);
    }

    @Override
    String useSchema(String schema) {
      return "SET LOCAL search_path TO " + quote(schema);
    }

    @Override
    String useSchema(String schema, List<String> typeSchemas) {
      List<String> path = new java.util.ArrayList<>(List.of(schema));
      typeSchemas.stream().filter(t -> !path.contains(t)).forEach(path::add);
      return "SET LOCAL search_path TO " + quoted(path);
    }

    @Override
    String currentSchemaQuery() {
      return "SELECT current_schema()";
    }

    @Override
    String now() {
      return "now()";
    }

    @Override
    String timestampType() {
      return "timestamptz";
    }

    /** An array of box goes as its text: box separates array elements by ';', every other built-in type by ','. */
    @Override
    Value adapt(ColumnInfo c, Value v) {
      return v.hasArrayValue() && builtFrom(c).equals("box[]")
          ? Value.newBuilder().setStringValue(ValueText.pgArray(v, ';')).build() : v;
    }

    @Override
    void bindValue(PreparedStatement ps, int i, Value v) throws SQLException {
      switch (v.getKindCase()) {
        case BOOL_VALUE -> ps.setBoolean(i, v.getBoolValue());
        case INT64_VALUE -> ps.setLong(i, v.getInt64Value());
        case DOUBLE_VALUE -> ps.setDouble(i, v.getDoubleValue());
        case BYTES_VALUE -> ps.setBytes(i, v.getBytesValue().toByteArray());
        case DECIMAL_VALUE -> {
          BigDecimal d = decimal(v.getDecimalValue());
          if (d != null) {
            ps.setBigDecimal(i, d);
          } else {
            ps.setObject(i, v.getDecimalValue(), Types.OTHER);   // NaN, Infinity: numeric parses them
          }
        }
        // untyped text: the server casts it to the column's type (text, enum, json, uuid, arrays, times)
        default -> ps.setObject(i, ValueText.scalar(v), Types.OTHER);
      }
    }
  },

  /** MySQL and MariaDB: {@code INSERT ... ON DUPLICATE KEY UPDATE c = VALUES(c)}. */
  MYSQL("mysql") {
    @Override
    public String quote(String identifier) {
      return '`' + identifier.replace("`", "``") + '`';
    }

    @Override
    public String upsert(String table, List<String> columns, List<String> keys, List<String> update) {
      // with no non-key column, re-assigning the first key keeps the statement an idempotent upsert
      List<String> set = update.isEmpty() ? keys.subList(0, 1) : update;
      return insert(table, columns) + " ON DUPLICATE KEY UPDATE " + set.stream()
          .map(c -> quote(c) + " = VALUES(" + quote(c) + ")").collect(Collectors.joining(", "));
    }

    @Override
    String type(ColumnInfo c, ValueKind kind, boolean key) {
      return switch (kind) {
        case VALUE_KIND_BOOL -> "BOOLEAN";
        case VALUE_KIND_INT64 -> "BIGINT";
        case VALUE_KIND_DOUBLE -> "DOUBLE";
        case VALUE_KIND_DECIMAL -> precision(builtFrom(c)).map(p -> "DECIMAL" + p).orElse("DECIMAL(65,30)");
        case VALUE_KIND_STRING, VALUE_KIND_TEXT_FALLBACK -> length(builtFrom(c))
            .filter(n -> n <= 16383).map(n -> "VARCHAR(" + n + ")").orElse(key ? "VARCHAR(255)" : "LONGTEXT");
        case VALUE_KIND_BYTES -> key ? "VARBINARY(255)" : "LONGBLOB";
        case VALUE_KIND_TIMESTAMP, VALUE_KIND_TIMESTAMP_TZ -> "DATETIME(6)";
        case VALUE_KIND_DATE -> "DATE";
        case VALUE_KIND_TIME -> "TIME(6)";
        case VALUE_KIND_JSON, VALUE_KIND_ARRAY -> "JSON";
        case VALUE_KIND_UUID -> "CHAR(36)";
        case VALUE_KIND_UNSPECIFIED, UNRECOGNIZED -> null;
      };
    }

    @Override
    String updateMatching(String table, List<String> set, List<ImageMatch> match) {
      return "UPDATE " + table + " SET " + set.stream().map(c -> quote(c) + " = ?").collect(Collectors.joining(", "))
          + " WHERE " + matching(match) + " LIMIT 1";
    }

    @Override
    String deleteMatching(String table, List<ImageMatch> match) {
      return "DELETE FROM " + table + " WHERE " + matching(match) + " LIMIT 1";
    }

    private String matching(List<ImageMatch> match) {
      return match.stream().map(m -> quote(m.column()) + " <=> ?").collect(Collectors.joining(" AND "));
    }

    @Override
    List<String> sessionSettings() {
      return List.of("SET SESSION foreign_key_checks = 0");
    }

    @Override
    String renameTable(String from, String toSchema, String toTable) {
      return "RENAME TABLE " + from + " TO " + quote(toSchema) + "." + quote(toTable);
    }

    @Override
    String alterColumnType(String table, ColumnInfo c, String type) {
      return "ALTER TABLE " + table + " MODIFY COLUMN " + quote(c.getName()) + " " + type
          + (c.getNullable() ? "" : " NOT NULL");
    }

    /** One statement (InnoDB applies it whole): dropping the key first lets a column leave it for a TEXT type. */
    @Override
    List<String> changeKey(String table, List<String> after, List<KeyColumn> moved) {
      List<String> clauses = new ArrayList<>();
      clauses.add("DROP INDEX IF EXISTS `PRIMARY`");
      for (KeyColumn k : moved) {   // restated whole: MODIFY sets the NULL-ness with the type
        clauses.add("MODIFY COLUMN " + quote(k.column().getName()) + " " + k.type()
            + (k.column().getNullable() && !after.contains(k.column().getName()) ? "" : " NOT NULL"));
      }
      if (!after.isEmpty()) {
        clauses.add("ADD PRIMARY KEY (" + quoted(after) + ")");
      }
      return List.of("ALTER TABLE " + table + " " + String.join(", ", clauses));
    }

    @Override
    String renameColumn(String table, String from, String to) {
      return "ALTER TABLE " + table + " RENAME COLUMN IF EXISTS " + quote(from) + " TO " + quote(to);
    }

    @Override
    String setNullable(String table, ColumnInfo c, String type) {
      return alterColumnType(table, c, type);   // MODIFY COLUMN restates the type with its NULL-ness
    }

    @Override
    String useSchema(String schema) {
      return "USE " + quote(schema);
    }

    @Override
    String currentSchemaQuery() {
      return "SELECT DATABASE()";
    }

    @Override
    String now() {
      return "CURRENT_TIMESTAMP(6)";
    }

    @Override
    String timestampType() {
      return "TIMESTAMP(6)";
    }

    @Override
    void bindValue(PreparedStatement ps, int i, Value v) throws SQLException {
      switch (v.getKindCase()) {
        case BOOL_VALUE -> ps.setBoolean(i, v.getBoolValue());
        case INT64_VALUE -> ps.setLong(i, v.getInt64Value());
        case DOUBLE_VALUE -> ps.setDouble(i, v.getDoubleValue());
        case BYTES_VALUE -> ps.setBytes(i, v.getBytesValue().toByteArray());
        case DECIMAL_VALUE -> {
          BigDecimal d = decimal(v.getDecimalValue());
          if (d != null) {
            ps.setBigDecimal(i, d);
          } else {
            ps.setString(i, v.getDecimalValue());   // NaN, Infinity: a text column keeps them, DECIMAL refuses them
          }
        }
        case TIMESTAMP_VALUE -> ps.setString(i, ValueText.commonEraTimestamp(v.getTimestampValue()));
        case ARRAY_VALUE -> ps.setString(i, JsonValues.arrayJson(v));
        default -> ps.setString(i, ValueText.scalar(v));
      }
    }
  };

  private static final Pattern LENGTH = Pattern.compile("(?:varchar|character varying|char|character)\\s*\\((\\d+)\\)");
  private static final Pattern PRECISION = Pattern.compile("(?:numeric|decimal)\\s*\\((\\d+)\\s*(?:,\\s*(\\d+))?\\)");

  private final String wireName;

  Dialect(String wireName) {
    this.wireName = wireName;
  }

  /** The name {@code DdlEvent.dialect} uses for this SQL dialect. */
  public String wireName() {
    return wireName;
  }

  /** The dialect of a JDBC URL: {@code jdbc:postgresql:}, {@code jdbc:mariadb:} or {@code jdbc:mysql:}. */
  public static Dialect fromJdbcUrl(String url) {
    if (url.startsWith("jdbc:postgresql:")) {
      return POSTGRESQL;
    }
    if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
      return MYSQL;
    }
    throw new IllegalArgumentException("jdbcUrl must start with jdbc:postgresql:, jdbc:mariadb: or jdbc:mysql:, got \""
        + Redactor.redact(url) + "\"");
  }

  /** {@code identifier} quoted for this target (double quotes, or backticks on MySQL/MariaDB). */
  public abstract String quote(String identifier);

  /** {@code schema.table}, each part quoted. */
  public String qualified(String schema, String table) {
    return quote(schema) + "." + quote(table);
  }

  /** An upsert of {@code columns} into {@code table} (already quoted), updating {@code update} on a key conflict. */
  public abstract String upsert(String table, List<String> columns, List<String> keys, List<String> update);

  /** A plain insert of {@code columns} (a table without a key: nothing to upsert on). */
  public String insert(String table, List<String> columns) {
    return "INSERT INTO " + table + " (" + quoted(columns) + ") VALUES ("
        + columns.stream().map(c -> "?").collect(Collectors.joining(", ")) + ")";
  }

  /**
   * One column of a keyless table's before image a row is matched on; {@code asText} compares text forms
   * (kinds without an equality operator on every target), the bound value's as a value of {@code type}, the
   * column's target type, would print.
   */
  record ImageMatch(String column, boolean asText, String type) {}

  /** Updates {@code set} of one row whose columns equal {@code match}, NULLs matching NULLs. */
  abstract String updateMatching(String table, List<String> set, List<ImageMatch> match);

  /** Deletes one row whose columns equal {@code match}, NULLs matching NULLs. */
  abstract String deleteMatching(String table, List<ImageMatch> match);

  /**
   * Run once per connection: the target's constraints and triggers do not judge rows the source already
   * accepted (PostgreSQL {@code session_replication_role = replica}, as its own logical replication
   * applies; MySQL/MariaDB {@code foreign_key_checks = 0}).
   */
  abstract List<String> sessionSettings();

  /** Deletes the row of {@code table} whose {@code keys} equal the bound values. */
  public String delete(String table, List<String> keys) {
    return "DELETE FROM " + table + " WHERE " + keys.stream().map(k -> quote(k) + " = ?")
        .collect(Collectors.joining(" AND "));
  }

  /** The column type for {@code c} on this target, or null when its kind has no mapping. */
  String columnType(ColumnInfo c, boolean key) {
    return type(c, c.getKind(), key);
  }

  abstract String type(ColumnInfo c, ValueKind kind, boolean key);

  String columnDefinition(ColumnInfo c, boolean key) {
    return quote(c.getName()) + " " + columnType(c, key) + (c.getNullable() && !key ? "" : " NOT NULL");
  }

  /** @param tableOptions appended after the column list ({@link KeyCollation#tableOptions}) */
  String createTable(String table, TableInfo info, String tableOptions) {
    List<String> columns = new ArrayList<>();
    for (ColumnInfo c : info.getColumnsList()) {
      columns.add(columnDefinition(c, info.getPrimaryKeyList().contains(c.getName())));
    }
    return createTable(table, columns, info.getPrimaryKeyList(), tableOptions);
  }

  /** CREATE TABLE IF NOT EXISTS of {@code columns} (definitions) with the primary key {@code key} (empty: none). */
  String createTable(String table, List<String> columns, List<String> key, String tableOptions) {
    String list = String.join(", ", columns);
    if (key.isEmpty()) {
      return "CREATE TABLE IF NOT EXISTS " + table + " (" + list + ")" + tableOptions;   // keyless until an ALTER adds it
    }
    return "CREATE TABLE IF NOT EXISTS " + table + " (" + list + ", PRIMARY KEY (" + quoted(key) + "))" + tableOptions;
  }

  /** {@code table} (as qualified and quoted) as a PostgreSQL string literal, for {@code ::regclass}. */
  static String tableLiteral(String table) {
    return "'" + table.replace("'", "''") + "'";
  }

  String addPrimaryKey(String table, List<String> columns) {
    return "ALTER TABLE " + table + " ADD PRIMARY KEY (" + quoted(columns) + ")";
  }

  /**
   * Moves {@code table}'s primary key to {@code after} (empty: none), with the columns that enter or leave it
   * ({@code moved}) retyped where their type depends on being in the key. The key the target has, if any, is dropped
   * first, so the statements replayed after they reached the target leave the table as they did the first time.
   */
  List<String> changeKey(String table, List<String> after, List<KeyColumn> moved) {
    List<String> out = new ArrayList<>();
    // whatever its name: the target named it when it created the table, or after a rename
    String literal = tableLiteral(table);
    out.add("DO $sluice$ DECLARE n text; BEGIN SELECT conname INTO n FROM pg_catalog.pg_constraint WHERE conrelid"
          + " = " + literal + "::regclass AND contype = 'p'; IF n IS NOT NULL THEN EXECUTE format('ALTER TABLE %s DROP"
          + " CONSTRAINT %I', " + literal + ", n); END IF; END $sluice$");
    for (KeyColumn k : moved) {
      if (k.typeChanged()) {
        out.add(alterColumnType(table, k.column(), k.type()));
      }
    }
    if (!after.isEmpty()) {
      out.add(addPrimaryKey(table, after));
    }
    return out;
  }

  /**
   * A column that enters or leaves the key.
   *
   * @param type        its target type now (a key-sized one in the key, on MySQL)
   * @param typeChanged whether that differs from the type the target has
   */
  record KeyColumn(ColumnInfo column, String type, boolean typeChanged) {}

  /**
   * ADD COLUMN with the column's NOT NULL and its default ({@link #defaultClause}), so that the rows the
   * table has get the value they got upstream (a NOT NULL column needs one).
   */
  String addColumn(String table, ColumnInfo c) {
    return "ALTER TABLE " + table + " ADD COLUMN IF NOT EXISTS " + quote(c.getName()) + " " + columnType(c, false)
        + defaultClause(c) + (c.getNullable() ? "" : " NOT NULL");
  }

  /** Makes the column nullable or NOT NULL as {@code c} says ({@code type}: its target type). */
  abstract String setNullable(String table, ColumnInfo c, String type);

  /**
   * The {@code DEFAULT} clause of {@code c} on this target, or "": a target that speaks the source's SQL
   * keeps its text (PostgreSQL); another gets it when it is a constant ({@link DefaultLiteral}: without it
   * MySQL fills the rows a NOT NULL column is added to with 0 or ''), else the rows carry the values.
   */
  String defaultClause(ColumnInfo c) {
    return c.getHasDefault() ? DefaultLiteral.of(c.getDefaultExpr(), this).map(d -> " DEFAULT " + d).orElse("") : "";
  }

  /** SET or DROP DEFAULT to what {@code c} has, or null when the target keeps no default for it. */
  String setDefault(String table, ColumnInfo c) {
    return null;
  }

  String dropColumn(String table, String column) {
    return "ALTER TABLE " + table + " DROP COLUMN IF EXISTS " + quote(column);
  }

  abstract String renameColumn(String table, String from, String to);

  abstract String alterColumnType(String table, ColumnInfo c, String type);

  abstract String renameTable(String from, String toSchema, String toTable);

  String truncate(String table) {
    return "TRUNCATE TABLE " + table;
  }

  String dropTable(String table) {
    return "DROP TABLE IF EXISTS " + table;
  }

  /** Makes unqualified names in a captured statement resolve in {@code schema}. */
  abstract String useSchema(String schema);

  /**
   * As {@link #useSchema(String)}, and where the target has a search path, unqualified type names resolve
   * in {@code typeSchemas} too (PostgreSQL: the schemas of the user-defined types the statement uses).
   */
  String useSchema(String schema, List<String> typeSchemas) {
    return useSchema(schema);
  }

  abstract String currentSchemaQuery();

  abstract String now();

  abstract String timestampType();

  String createCheckpointTable(String table, String tableOptions) {
    return "CREATE TABLE IF NOT EXISTS " + table + " (changefeed_id VARCHAR(255) NOT NULL PRIMARY KEY, "
        + "checkpoint_ts BIGINT NOT NULL, updated_at " + timestampType() + " NOT NULL)" + tableOptions;
  }

  String createTableCheckpointTable(String table, String tableOptions) {
    return "CREATE TABLE IF NOT EXISTS " + table + " (changefeed_id VARCHAR(255) NOT NULL, table_id BIGINT NOT NULL, "
        + "table_name VARCHAR(512) NOT NULL, checkpoint_ts BIGINT NOT NULL, cursor_commit_ts BIGINT NOT NULL, "
        + "next_row_seq BIGINT NOT NULL, ddl_ts BIGINT NOT NULL, updated_at " + timestampType() + " NOT NULL, "
        + "dropped_ts BIGINT NOT NULL DEFAULT 0, " + SNAPSHOT_COLUMNS.stream().collect(Collectors.joining(", "))
        + (defersKeys() ? ", " + DEFERRED_KEY_COLUMN : "") + ", PRIMARY KEY (changefeed_id, table_id))" + tableOptions;
  }

  /**
   * Whether a snapshot into an empty table of this target may load without the table's primary key and add it
   * after the last chunk ({@link DeferredKeys}): PostgreSQL, whose DDL is transactional.
   */
  boolean defersKeys() {
    return this == POSTGRESQL;
  }

  /** The statement that adds a table's deferred key back ({@link SinkCheckpoint.TableProgress#deferredKey()}). */
  private static final String DEFERRED_KEY_COLUMN = "deferred_key TEXT NULL";

  /** Brings a PostgreSQL per-table checkpoint table of a version before deferred keys up to date. */
  String addDeferredKeyColumn(String table) {
    return "ALTER TABLE " + table + " ADD COLUMN " + DEFERRED_KEY_COLUMN;
  }

  /** A table's snapshot beside its progress ({@link TableSnapshot}); the cursor is base64 of its protocol bytes. */
  private static final List<String> SNAPSHOT_COLUMNS = List.of("snapshot_state INT NOT NULL DEFAULT 0",
      "snapshot_cursor TEXT NULL", "snapshot_rows BIGINT NOT NULL DEFAULT 0",
      "snapshot_since_ts BIGINT NOT NULL DEFAULT 0");

  /** Brings a per-table checkpoint table of a version before snapshots up to date. */
  List<String> addSnapshotColumns(String table) {
    return SNAPSHOT_COLUMNS.stream().map(c -> "ALTER TABLE " + table + " ADD COLUMN " + c).toList();
  }

  /** Brings a per-table checkpoint table of an earlier version up to date (run when the column is missing). */
  String addDroppedTsColumn(String table) {
    return "ALTER TABLE " + table + " ADD COLUMN dropped_ts BIGINT NOT NULL DEFAULT 0";
  }

  String createFenceTable(String table, String tableOptions) {
    return "CREATE TABLE IF NOT EXISTS " + table + " (changefeed_id VARCHAR(255) NOT NULL PRIMARY KEY, "
        + "fence_token BIGINT NOT NULL, updated_at " + timestampType() + " NOT NULL)" + tableOptions;
  }

  String upsertCheckpoint(String table) {
    return upsertWithNow(table, List.of("changefeed_id", "checkpoint_ts"), List.of("changefeed_id"));
  }

  /** Binds the columns in this order; on a target that {@link #defersKeys()}, {@code deferred_key} last. */
  String upsertTableCheckpoint(String table) {
    List<String> columns = List.of("changefeed_id", "table_id", "table_name", "checkpoint_ts", "cursor_commit_ts",
        "next_row_seq", "ddl_ts", "dropped_ts", "snapshot_state", "snapshot_cursor", "snapshot_rows",
        "snapshot_since_ts");
    return upsertWithNow(table, defersKeys() ? append(columns, "deferred_key") : columns,
        List.of("changefeed_id", "table_id"));
  }

  private String upsertWithNow(String table, List<String> columns, List<String> keys) {
    String sql = upsert(table, append(columns, "updated_at"), keys,
        append(columns.stream().filter(c -> !keys.contains(c)).toList(), "updated_at"));
    // the last placeholder is updated_at: the target's clock fills it
    int last = sql.lastIndexOf('?');
    return sql.substring(0, last) + now() + sql.substring(last + 1);
  }

  /**
   * {@code v} as this target takes it for column {@code c}, in a statement or a COPY: as it is, unless the
   * target needs another form of it (PostgreSQL: an array of box as its text).
   */
  Value adapt(ColumnInfo c, Value v) {
    return v;
  }

  /** Binds {@code v} (never unavailable) at parameter {@code i}. */
  void bind(PreparedStatement ps, int i, Value v) throws SQLException {
    if (v.hasNullValue() || v.getKindCase() == Value.KindCase.KIND_NOT_SET) {
      ps.setNull(i, Types.NULL);
    } else {
      bindValue(ps, i, v);
    }
  }

  abstract void bindValue(PreparedStatement ps, int i, Value v) throws SQLException;

  String quoted(List<String> names) {
    return names.stream().map(this::quote).collect(Collectors.joining(", "));
  }

  private static List<String> append(List<String> list, String last) {
    List<String> out = new java.util.ArrayList<>(list);
    out.add(last);
    return out;
  }

  /**
   * The source type a column's values are built from: its own, or for a domain the base type (through
   * domains over domains), whose length or precision a target without domains uses.
   */
  static String builtFrom(ColumnInfo c) {
    String type = c.getSourceType();
    int i = c.getUserTypesCount() - 1;
    while (i >= 0 && c.getUserTypes(i).getKind() == dev.sluice.api.v1.UserTypeKind.USER_TYPE_KIND_DOMAIN) {
      type = c.getUserTypes(i).getBaseType();
      int base = -1;
      for (int j = i - 1; j >= 0 && base < 0; j--) {   // a domain over another user type: that type follows
        UserType t = c.getUserTypes(j);
        base = type.equals(t.getSchemaName() + "." + t.getTypeName()) || type.equals(POSTGRESQL.qualified(
            t.getSchemaName(), t.getTypeName())) ? j : -1;
      }
      i = base;
    }
    return type;
  }

  private static java.util.Optional<Integer> length(String sourceType) {
    Matcher m = LENGTH.matcher(sourceType.toLowerCase(Locale.ROOT));
    return m.find() ? java.util.Optional.of(Integer.parseInt(m.group(1))) : java.util.Optional.empty();
  }

  private static java.util.Optional<String> precision(String sourceType) {
    Matcher m = PRECISION.matcher(sourceType.toLowerCase(Locale.ROOT));
    if (!m.find()) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of("(" + m.group(1) + "," + (m.group(2) == null ? "0" : m.group(2)) + ")");
  }

  private static BigDecimal decimal(String text) {
    try {
      return new BigDecimal(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
