package dev.sluice.dispatcher.sink;

import dev.sluice.api.v1.DdlType;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.dispatcher.DdlChange;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The statements a {@link JdbcUpsertSink} runs for a DDL, and running them. DDL of the target's dialect
 * runs as captured (with the source schema mapped to the target schema), so a PostgreSQL target gets the
 * upstream's own definitions: {@code REFERENCES}, partitioning, inheritance, identity and generated
 * columns. When such a statement cannot run here because what it refers to is not in the target (a
 * parent table that existed before the changefeed started and so was created from its columns, a type,
 * a function, another schema), the table is derived from the table info instead and a warning names the
 * reason. Other DDL is derived from the table info ({@link DdlTranslator}); DROP TABLE always is (a
 * captured {@code DROP TABLE a, b} names two tables, and each has its own event). Not thread-safe.
 */
final class DdlStatements {

  /** The DDL that changes a table's columns, which a partition takes from its parent. */
  private static final Set<DdlType> COLUMN_CHANGES = Set.of(DdlType.DDL_TYPE_ADD_COLUMN, DdlType.DDL_TYPE_DROP_COLUMN,
      DdlType.DDL_TYPE_RENAME_COLUMN, DdlType.DDL_TYPE_ALTER_COLUMN_TYPE, DdlType.DDL_TYPE_ALTER_TABLE);

  /** The SQL states of a captured statement referring to something the target lacks. */
  private static final Set<String> MISSING_HERE = Set.of("42P01", "42809", "42830", "42704", "42883", "3F000");

  private static final Logger LOG = LoggerFactory.getLogger(DdlStatements.class);

  /** The table options of tables this connection creates; may query the target. */
  interface TableOptions {
    String get() throws SQLException;
  }

  private final JdbcSinkConfig config;
  private final Dialect dialect;
  private final DdlTranslator translator;
  private final Connection connection;
  private final TableOptions tableOptions;
  private final String homeSchema;

  DdlStatements(JdbcSinkConfig config, Dialect dialect, Connection connection, TableOptions tableOptions,
      String homeSchema) {
    this.config = config;
    this.dialect = dialect;
    this.translator = new DdlTranslator(dialect);
    this.connection = connection;
    this.tableOptions = tableOptions;
    this.homeSchema = homeSchema;
  }

  /** Refuses a table whose columns the target has no type for. */
  void checkCreatable(TableInfo info, long commitTs) {
    translator.checkCreatable(info, commitTs);
  }

  /**
   * Creates {@code table} from {@code info} (a table the changefeed did not see created). On PostgreSQL it gets the
   * source's layout: a partition is created as a partition of its parent (and the partitioned tables above it that
   * the target lacks, from its columns), a partitioned table with its partition key, and either with its generated
   * columns. What this target cannot do of it (an expression calling a function only the source has, a parent that
   * exists here as a plain table, a schema the target maps elsewhere) falls back a step, with a warning saying why:
   * the table without its place in the hierarchy, then without its generated columns, as on other dialects. Its rows
   * are the same either way: each table receives its own.
   */
  void createTable(Statement st, String table, TableInfo info, String tableOptions) throws SQLException {
    List<List<String>> attempts = new ArrayList<>();
    if (dialect == Dialect.POSTGRESQL && info.getPartitionAncestorsCount() > 0) {
      List<String> hierarchy = new ArrayList<>();   // a hierarchy may span schemas: the ancestors' come first
      info.getPartitionAncestorsList().stream().map(a -> targetSchema(a.getSchemaName())).distinct()
          .filter(schema -> !schema.equals(homeSchema) && !schema.equals(targetSchema(info)))
          .forEach(schema -> hierarchy.add("CREATE SCHEMA IF NOT EXISTS " + dialect.quote(schema)));
      hierarchy.addAll(PgTableLayout.createPartition(table, info, this::targetSchema));
      attempts.add(hierarchy);
    }
    if (dialect == Dialect.POSTGRESQL && (info.getGeneratedColumnsCount() > 0 || !info.getPartitionBy().isEmpty())) {
      attempts.add(List.of(PgTableLayout.createTable(table, info)));   // PostgreSQL has no table options
    }
    for (List<String> attempt : attempts) {
      Savepoint before = connection.setSavepoint();
      try {
        for (String sql : attempt) {
          st.execute(sql);
        }
        connection.releaseSavepoint(before);
        return;
      } catch (SQLException e) {
        connection.rollback(before);
        LOG.atWarn().addKeyValue("changefeedId", config.changefeedId()).addKeyValue("table", table)
            .addKeyValue("sqlState", SqlErrorText.sqlState(e)).addKeyValue("statements", attempt)
            .log("the table cannot be created with the source's layout on this target ({}); falling back a step",
                e.getMessage());
      }
    }
    st.execute(dialect.createTable(table, info, tableOptions));
  }

  /** The target schema of tables of the source schema {@code schema}. */
  private String targetSchema(String schema) {
    if (config.targetSchema() != null) {
      return config.targetSchema();
    }
    return dialect == Dialect.MYSQL ? homeSchema : schema;
  }

  void ensureSchema(Statement st, String schema) throws SQLException {
    if (schema.equals(homeSchema)) {
      return;   // the connection's own: it exists, and creating it may need a privilege the user lacks
    }
    st.execute(dialect == Dialect.POSTGRESQL ? "CREATE SCHEMA IF NOT EXISTS " + dialect.quote(schema)
        : "CREATE DATABASE IF NOT EXISTS " + dialect.quote(schema));
  }

  /**
   * Whether the table must first be created as it was before {@code ddl}: a table the changefeed started
   * after its CREATE (from the CREATE's commit ts, exclusive) exists in the target only once a row created
   * it, and a DDL before its first row would run against nothing.
   */
  boolean ensureTableBefore(DdlChange ddl, Set<Long> ensured) throws SQLException {
    DdlType type = ddl.ddlType();
    TableInfo before = ddl.tableInfoBefore();
    if (type == DdlType.DDL_TYPE_CREATE_TABLE || type == DdlType.DDL_TYPE_DROP_TABLE || before.getTableName().isEmpty()
        || ensured.contains(before.getTableId()) || !config.createTables()
        || tableExists(targetSchema(before), before.getTableName())) {
      return false;
    }
    LOG.atInfo().addKeyValue("changefeedId", config.changefeedId()).addKeyValue("table", ddl.tableName())
        .addKeyValue("commitTs", ddl.commitTs()).log("creating the table as it was before its first DDL here");
    return true;
  }

  List<String> statementsFor(DdlChange ddl) throws SQLException {
    if (config.skippedDdlTypes().contains(ddl.ddlType())) {
      LOG.atWarn().addKeyValue("changefeedId", config.changefeedId()).addKeyValue("table", ddl.tableName())
          .addKeyValue("commitTs", ddl.commitTs()).addKeyValue("ddlType", ddl.ddlType())
          .log("DDL type configured as skipped; not applied: {}", ddl.query());
      return List.of();
    }
    if (ddl.ddlType() == DdlType.DDL_TYPE_ALTER_TYPE) {
      return List.of();   // the types are brought up to date before (the sink's ensureTypes); the table is unchanged
    }
    TableInfo before = ddl.tableInfoBefore().getTableName().isEmpty() ? ddl.tableInfoAfter() : ddl.tableInfoBefore();
    String schema = targetSchema(before);
    // MySQL commits DDL at once: a crash before the checkpoint replays a RENAME that already happened
    if (ddl.ddlType() == DdlType.DDL_TYPE_RENAME_TABLE && !tableExists(schema, before.getTableName())
        && tableExists(schema, ddl.tableInfoAfter().getTableName())) {
      LOG.atInfo().addKeyValue("table", ddl.tableName()).addKeyValue("commitTs", ddl.commitTs())
          .log("RENAME TABLE applied already (its checkpoint was not); not run again");
      return List.of();
    }
    // a multi-statement query's text is the whole string: replayed, it would run the other statements again
    if (dialect.wireName().equals(ddl.dialect()) && !ddl.query().isBlank() && replayable(ddl) == null
        && ddl.ddlType() != DdlType.DDL_TYPE_DROP_TABLE) {
      LOG.atInfo().addKeyValue("changefeedId", config.changefeedId()).addKeyValue("table", ddl.tableName())
          .addKeyValue("commitTs", ddl.commitTs()).addKeyValue("rowSeq", ddl.rowSeq())
          .log("captured text holds several statements; deriving this DDL from the table info instead");
    }
    if (!isVerbatim(ddl) && COLUMN_CHANGES.contains(ddl.ddlType()) && partitionHasColumnsOf(schema, before,
        ddl.tableInfoAfter())) {
      LOG.atInfo().addKeyValue("changefeedId", config.changefeedId()).addKeyValue("table", ddl.tableName())
          .addKeyValue("commitTs", ddl.commitTs()).addKeyValue("ddlType", ddl.ddlType())
          .log("a partition takes its columns from its parent, whose DDL left them as this one does; not run");
      return List.of();
    }
    if (isVerbatim(ddl)) {
      if (ddl.ddlType() == DdlType.DDL_TYPE_CREATE_TABLE && tableExists(schema, ddl.tableInfoAfter().getTableName())) {
        LOG.atInfo().addKeyValue("table", ddl.tableName()).addKeyValue("commitTs", ddl.commitTs())
            .log("CREATE TABLE target exists already; not run again");
        return List.of();
      }
      List<String> out = new ArrayList<>();
      out.add(dialect.useSchema(schema, typeSchemas(ddl.tableInfoAfter())));
      out.add(mapSchema(replayable(ddl), ddl.tableInfoAfter().getSchemaName(), schema));
      return out;
    }
    return derived(ddl);
  }

  /** The captured text to run as it is, or null ({@link SqlStatements#replayable}). */
  private String replayable(DdlChange ddl) {
    return dialect.wireName().equals(ddl.dialect()) ? SqlStatements.replayable(ddl) : null;
  }

  /** The schemas of the user-defined types {@code info}'s columns use, for a captured statement's search path. */
  private static List<String> typeSchemas(TableInfo info) {
    return info.getColumnsList().stream().flatMap(c -> c.getUserTypesList().stream())
        .map(dev.sluice.api.v1.UserType::getSchemaName).distinct().toList();
  }

  /**
   * Runs {@code statements} of {@code ddl} in the open transaction; a captured statement that refers to
   * something the target lacks is replaced by the derived form (PostgreSQL: behind a savepoint).
   */
  void run(DdlChange ddl, List<String> statements) throws SQLException {
    if (statements.isEmpty()) {
      return;
    }
    try (Statement st = connection.createStatement()) {
      if (ddl.ddlType() == DdlType.DDL_TYPE_CREATE_TABLE && config.createTables()) {
        ensureSchema(st, targetSchema(ddl.tableInfoAfter()));   // a CREATE may be the changefeed's first change
      }
      boolean verbatim = isVerbatim(ddl);
      boolean drop = ddl.ddlType() == DdlType.DDL_TYPE_DROP_TABLE;
      Savepoint before = dialect == Dialect.POSTGRESQL && (verbatim || drop) ? connection.setSavepoint() : null;
      try {
        execute(st, ddl, statements);
      } catch (SQLException e) {
        String state = SqlErrorText.sqlState(e);
        List<String> instead;
        if (before != null && verbatim && MISSING_HERE.contains(state)) {
          instead = derived(ddl);
        } else if (before != null && drop && "2BP01".equals(state)) {
          // the upstream dropped it, so what still depends on it here is a constraint of a table dropped with it
          instead = List.of(statements.get(statements.size() - 1) + " CASCADE");
        } else {
          throw e;
        }
        connection.rollback(before);
        LOG.atWarn().addKeyValue("changefeedId", config.changefeedId()).addKeyValue("table", ddl.tableName())
            .addKeyValue("commitTs", ddl.commitTs()).addKeyValue("sqlState", state)
            .log("the DDL cannot run as it is on this target ({}); applying {} instead", e.getMessage(), instead);
        execute(st, ddl, instead);
      }
      if (dialect == Dialect.MYSQL) {
        st.execute(dialect.useSchema(homeSchema));
      }
    }
  }

  private void execute(Statement st, DdlChange ddl, List<String> statements) throws SQLException {
    for (String sql : statements) {
      LOG.atInfo().addKeyValue("changefeedId", config.changefeedId()).addKeyValue("table", ddl.tableName())
          .addKeyValue("commitTs", ddl.commitTs()).log("applying DDL: {}", sql);
      st.execute(sql);
    }
  }

  private boolean isVerbatim(DdlChange ddl) {
    return replayable(ddl) != null && ddl.ddlType() != DdlType.DDL_TYPE_DROP_TABLE;
  }

  private List<String> derived(DdlChange ddl) throws SQLException {
    TableInfo before = ddl.tableInfoBefore().getTableName().isEmpty() ? ddl.tableInfoAfter() : ddl.tableInfoBefore();
    String schema = targetSchema(before);
    return translator.derive(ddl, dialect.qualified(schema, before.getTableName()), schema, tableOptions.get());
  }

  /** Rewrites {@code source.} qualifiers (bare, "quoted" or `quoted`) to the target schema. */
  private String mapSchema(String query, String source, String target) {
    if (source.isEmpty() || source.equals(target)) {
      return query;
    }
    Pattern p = Pattern.compile("(?i)(?<![\\w.\"`])(\"" + Pattern.quote(source) + "\"|`" + Pattern.quote(source)
        + "`|" + Pattern.quote(source) + ")\\s*\\.");
    return p.matcher(query).replaceAll(Matcher.quoteReplacement(dialect.quote(target) + "."));
  }

  /**
   * Whether {@code before}'s table is a partition on this (PostgreSQL) target whose columns are already {@code after}'s,
   * names and types: its parent's ALTER changed them (PostgreSQL changes a hierarchy's columns from the top and refuses
   * to on a partition), and the partition's own version, derived from the log, only follows.
   */
  private boolean partitionHasColumnsOf(String schema, TableInfo before, TableInfo after) throws SQLException {
    if (dialect != Dialect.POSTGRESQL) {
      return false;
    }
    try (PreparedStatement ps = connection.prepareStatement("SELECT c.relispartition, ARRAY(SELECT"
        + " a.attname || ' ' || pg_catalog.format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a"
        + " WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '')"
        + " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
        + " WHERE n.nspname = ? AND c.relname = ?")) {
      ps.setString(1, schema);
      ps.setString(2, before.getTableName());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next() || !rs.getBoolean(1)) {
          return false;
        }
        Set<String> has = Set.of((String[]) rs.getArray(2).getArray());
        return has.size() == after.getColumnsCount() && after.getColumnsList().stream()
            .allMatch(c -> has.contains(c.getName() + " " + c.getSourceType()));
      }
    }
  }

  private boolean tableExists(String schema, String table) throws SQLException {
    try (ResultSet rs = dialect == Dialect.POSTGRESQL
        ? connection.getMetaData().getTables(null, schema, table, null)
        : connection.getMetaData().getTables(schema, null, table, null)) {
      return rs.next();
    }
  }

  /** As the sink's: {@code targetSchema}, else the source schema on PostgreSQL and the URL's database on MySQL. */
  private String targetSchema(TableInfo info) {
    return targetSchema(info.getSchemaName());
  }
}
