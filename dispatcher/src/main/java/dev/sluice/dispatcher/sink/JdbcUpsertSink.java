package dev.sluice.dispatcher.sink;

import dev.sluice.api.error.SluiceException;
import dev.sluice.api.v1.DdlType;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.Transaction;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies transactions to PostgreSQL or MySQL/MariaDB as upserts and deletes by primary key, in JDBC
 * batches, and writes the changefeed's checkpoint rows in the same database transaction as the rows:
 * a reset, a crash or a replay never applies a transaction twice (exactly once into the target).
 *
 * <p>Progress lives in two tables of the connection's default schema: {@code sluice_checkpoint}
 * (changefeed id, checkpoint ts = the minimum over tables, updated at) and
 * {@code sluice_table_checkpoint} (per table: applied position with the cursor inside a transaction
 * that arrived in parts, and the last applied DDL ts), because tables of one changefeed advance
 * independently. Transactions and rows the stored position covers are skipped.
 *
 * <p>Rules: tables without a primary key are refused ({@link SinkFailedException}); unavailable values
 * (unchanged TOAST) are left out of the statement so the target keeps them; an UPDATE that changes the
 * key deletes the old key first. On MySQL/MariaDB a decimal its target column cannot hold exactly is
 * refused ({@link DecimalColumns}), and the tables the sink creates compare text exactly
 * ({@link KeyCollation}). DDL of the target's dialect runs as captured (with the source schema
 * mapped to {@code targetSchema}); other DDL is derived from the table info (see {@link DdlTranslator});
 * anything else stops with {@link UnsupportedDdlException}. PostgreSQL applies DDL and its checkpoint
 * atomically; MySQL commits DDL implicitly, so the derived forms are idempotent (IF [NOT] EXISTS).
 *
 * <p>Not thread-safe: one applier thread.
 *
 * <pre>{@code
 * try (JdbcUpsertSink sink = JdbcUpsertSink.open(JdbcSinkConfig.of(url, "app", "secret", "cf1"))) {
 *   sink.apply(List.of(txn), txn.commitTs());
 * }
 * }</pre>
 */
public final class JdbcUpsertSink implements Sink {

  private static final Logger LOG = LoggerFactory.getLogger(JdbcUpsertSink.class);

  private final JdbcSinkConfig config;
  private final Dialect dialect;
  private final DdlTranslator translator;
  private Connection connection;
  /** Of the tables this connection creates; chosen at first use. */
  private String tableOptions;
  private RowWriter writer;
  /** MySQL/MariaDB only: PostgreSQL's numeric holds every decimal exactly. */
  private DecimalColumns decimals;
  private String homeSchema;
  private long checkpointTs;
  private final Map<Long, SinkCheckpoint.TableProgress> progress = new HashMap<>();
  private final Set<Long> ensuredTables = new HashSet<>();
  private long appliedTransactions;
  private long skippedTransactions;

  private JdbcUpsertSink(JdbcSinkConfig config) {
    this.config = config;
    this.dialect = config.dialect();
    this.translator = new DdlTranslator(dialect);
  }

  /** Connects, creates the checkpoint tables when missing and reads the stored progress. */
  public static JdbcUpsertSink open(JdbcSinkConfig config) {
    JdbcUpsertSink sink = new JdbcUpsertSink(config);
    try {
      sink.connection();
      sink.readProgress();
    } catch (SQLException e) {
      sink.close();
      throw sink.classify(e, "(checkpoint tables)", 0);
    }
    return sink;
  }

  public Dialect dialect() {
    return dialect;
  }

  @Override
  public SinkCheckpoint checkpoint() {
    return new SinkCheckpoint(checkpointTs, progress);
  }

  /** Transactions applied since open. */
  public long appliedTransactions() {
    return appliedTransactions;
  }

  /** Transactions skipped since open because the stored progress covered them. */
  public long skippedTransactions() {
    return skippedTransactions;
  }

  @Override
  public void apply(List<Transaction> transactions, long changefeedCheckpointTs) {
    String table = "";
    long ts = 0;
    try {
      connection();
      for (Transaction t : transactions) {
        table = t.tableName();
        ts = t.commitTs();
        ensureTable(t.tableInfo(), t.commitTs(), true);
      }
      Map<Long, Checkpoint> reached = new LinkedHashMap<>();
      Map<Long, String> names = new HashMap<>();
      int applied = 0;
      int skipped = 0;
      for (Transaction t : transactions) {
        table = t.tableName();
        ts = t.commitTs();
        Checkpoint at = reached.getOrDefault(t.tableId(), positionOf(t.tableId()));
        if (at.coversAll(t.commitTs())) {
          skipped++;
          continue;
        }
        String target = target(t.tableInfo());
        for (RowChangeView row : t.rows()) {
          if (!at.covers(t.commitTs(), row.rowSeq())) {
            write(target, targetSchema(t.tableInfo()), t.tableInfo(), row);
          }
        }
        reached.put(t.tableId(), at.max(t.checkpoint()));
        names.put(t.tableId(), t.tableName());
        applied++;
      }
      writer.flush();
      for (Map.Entry<Long, Checkpoint> e : reached.entrySet()) {
        writeTableProgress(e.getKey(), names.get(e.getKey()), e.getValue(), ddlTsOf(e.getKey()));
      }
      long cf = Math.max(checkpointTs, changefeedCheckpointTs);
      writeCheckpoint(cf);
      connection.commit();
      checkpointTs = cf;
      reached.forEach((id, cp) -> progress.put(id, new SinkCheckpoint.TableProgress(names.get(id), cp, ddlTsOf(id))));
      appliedTransactions += applied;
      skippedTransactions += skipped;
    } catch (SQLException e) {
      throw rollbackAndClassify(e, table, ts);
    }
  }

  @Override
  public void applyDdl(DdlChange ddl, long changefeedCheckpointTs) {
    long id = ddl.tableId();
    SinkCheckpoint.TableProgress p = progress.get(id);
    if (p != null && (p.ddlTs() >= ddl.commitTs() || p.applied().ts() > ddl.commitTs())) {
      skippedTransactions++;
      return;   // applied before a restart or a replay
    }
    try {
      connection();
      ensureTableBefore(ddl);
      List<String> statements = statementsFor(ddl);
      try (Statement st = connection.createStatement()) {
        if (ddl.ddlType() == DdlType.DDL_TYPE_CREATE_TABLE && config.createTables() && !statements.isEmpty()) {
          ensureSchema(st, targetSchema(ddl.tableInfoAfter()));   // a CREATE may be the changefeed's first change
        }
        for (String sql : statements) {
          LOG.atInfo().addKeyValue("changefeedId", config.changefeedId()).addKeyValue("table", ddl.tableName())
              .addKeyValue("commitTs", ddl.commitTs()).log("applying DDL: {}", sql);
          st.execute(sql);
        }
        if (dialect == Dialect.MYSQL && !statements.isEmpty()) {
          st.execute(dialect.useSchema(homeSchema));
        }
      }
      writer.forgetStatements();
      ensuredTables.remove(id);
      if (decimals != null) {
        decimals.forget();
      }
      Checkpoint applied = (p == null ? Checkpoint.at(ddl.commitTs() - 1) : p.applied().max(Checkpoint.at(ddl.commitTs() - 1)));
      writeTableProgress(id, ddl.tableName(), applied, ddl.commitTs());
      long cf = Math.max(checkpointTs, changefeedCheckpointTs);
      writeCheckpoint(cf);
      connection.commit();
      checkpointTs = cf;
      progress.put(id, new SinkCheckpoint.TableProgress(ddl.tableName(), applied, ddl.commitTs()));
    } catch (SQLException e) {
      throw rollbackAndClassify(e, ddl.tableName(), ddl.commitTs());
    }
  }

  @Override
  public void advance(long changefeedCheckpointTs) {
    if (changefeedCheckpointTs <= checkpointTs) {
      return;
    }
    try {
      connection();
      writeCheckpoint(changefeedCheckpointTs);
      connection.commit();
      checkpointTs = changefeedCheckpointTs;
    } catch (SQLException e) {
      throw rollbackAndClassify(e, "(checkpoint)", changefeedCheckpointTs);
    }
  }

  @Override
  public void close() {
    if (writer != null) {
      writer.close();
      writer = null;
    }
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        // closing anyway
      }
      connection = null;
    }
  }

  // ---- rows ----------------------------------------------------------------------------------

  private void write(String target, String schema, TableInfo info, RowChangeView row) throws SQLException {
    if (decimals != null && row.after().isPresent()) {   // the image an upsert binds
      decimals.check(schema, info, row.after());
    }
    switch (row.op()) {
      case ROW_OP_INSERT -> writer.upsert(target, info, row.after());
      case ROW_OP_UPDATE -> {
        List<Value> newKey = RowWriter.keyOf(info, row.after());
        List<Value> oldKey = row.before().isPresent() ? RowWriter.keyOf(info, row.before()) : null;
        if (oldKey != null && !oldKey.equals(newKey)) {
          writer.delete(target, info, oldKey);     // the key changed: the old row goes
        }
        writer.upsert(target, info, row.after());
      }
      case ROW_OP_DELETE -> {
        List<Value> key = RowWriter.keyOf(info, row.before().isPresent() ? row.before() : row.after());
        if (key == null) {
          throw new SQLException("a DELETE without the key columns in its before image", "22000");
        }
        writer.delete(target, info, key);
      }
      case ROW_OP_UNSPECIFIED, UNRECOGNIZED -> throw new SQLException("row op " + row.op() + " at row seq "
          + row.rowSeq(), "22000");
    }
  }

  private void ensureTable(TableInfo info, long commitTs, boolean forRows) throws SQLException {
    if (ensuredTables.contains(info.getTableId())) {
      return;
    }
    translator.checkCreatable(info, commitTs, forRows);
    if (config.createTables()) {
      try (Statement st = connection.createStatement()) {
        ensureSchema(st, targetSchema(info));
        st.execute(dialect.createTable(target(info), info, tableOptions()));
      }
      connection.commit();
    }
    ensuredTables.add(info.getTableId());
  }

  private void ensureSchema(Statement st, String schema) throws SQLException {
    st.execute(dialect == Dialect.POSTGRESQL ? "CREATE SCHEMA IF NOT EXISTS " + dialect.quote(schema)
        : "CREATE DATABASE IF NOT EXISTS " + dialect.quote(schema));
  }

  // ---- DDL -----------------------------------------------------------------------------------

  /**
   * A table the changefeed started after its CREATE (from the CREATE's commit ts, exclusive) exists in
   * the target only once a row created it; a DDL before its first row would run against nothing. The
   * table is created as it was before the DDL, which then applies as captured.
   */
  private void ensureTableBefore(DdlChange ddl) throws SQLException {
    DdlType type = ddl.ddlType();
    TableInfo before = ddl.tableInfoBefore();
    if (type == DdlType.DDL_TYPE_CREATE_TABLE || type == DdlType.DDL_TYPE_DROP_TABLE || before.getTableName().isEmpty()
        || ensuredTables.contains(before.getTableId()) || !config.createTables()
        || tableExists(targetSchema(before), before.getTableName())) {
      return;
    }
    LOG.atInfo().addKeyValue("changefeedId", config.changefeedId()).addKeyValue("table", ddl.tableName())
        .addKeyValue("commitTs", ddl.commitTs()).log("creating the table as it was before its first DDL here");
    ensureTable(before, ddl.commitTs(), false);
  }

  private List<String> statementsFor(DdlChange ddl) throws SQLException {
    if (config.skippedDdlTypes().contains(ddl.ddlType())) {
      LOG.atWarn().addKeyValue("changefeedId", config.changefeedId()).addKeyValue("table", ddl.tableName())
          .addKeyValue("commitTs", ddl.commitTs()).addKeyValue("ddlType", ddl.ddlType())
          .log("DDL type configured as skipped; not applied: {}", ddl.query());
      return List.of();
    }
    TableInfo before = ddl.tableInfoBefore().getTableName().isEmpty() ? ddl.tableInfoAfter() : ddl.tableInfoBefore();
    String schema = targetSchema(before);
    String table = target(before);
    // MySQL commits DDL at once: a crash before the checkpoint replays a RENAME that already happened
    if (ddl.ddlType() == DdlType.DDL_TYPE_RENAME_TABLE && !tableExists(schema, before.getTableName())
        && tableExists(schema, ddl.tableInfoAfter().getTableName())) {
      LOG.atInfo().addKeyValue("table", ddl.tableName()).addKeyValue("commitTs", ddl.commitTs())
          .log("RENAME TABLE applied already (its checkpoint was not); not run again");
      return List.of();
    }
    if (dialect.wireName().equals(ddl.dialect()) && !ddl.query().isBlank()) {
      if (ddl.ddlType() == DdlType.DDL_TYPE_CREATE_TABLE && tableExists(schema, ddl.tableInfoAfter().getTableName())) {
        LOG.atInfo().addKeyValue("table", ddl.tableName()).addKeyValue("commitTs", ddl.commitTs())
            .log("CREATE TABLE target exists already; not run again");
        return List.of();
      }
      List<String> out = new ArrayList<>();
      out.add(dialect.useSchema(schema));
      out.add(mapSchema(ddl.query(), ddl.tableInfoAfter().getSchemaName(), schema));
      return out;
    }
    return translator.derive(ddl, table, schema, tableOptions());
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

  private boolean tableExists(String schema, String table) throws SQLException {
    try (ResultSet rs = dialect == Dialect.POSTGRESQL
        ? connection.getMetaData().getTables(null, schema, table, null)
        : connection.getMetaData().getTables(schema, null, table, null)) {
      return rs.next();
    }
  }

  // ---- progress ------------------------------------------------------------------------------

  private Checkpoint positionOf(long tableId) {
    SinkCheckpoint.TableProgress p = progress.get(tableId);
    return p == null ? Checkpoint.at(0) : p.applied();
  }

  private long ddlTsOf(long tableId) {
    SinkCheckpoint.TableProgress p = progress.get(tableId);
    return p == null ? 0 : p.ddlTs();
  }

  private String checkpointTable() {
    return dialect.qualified(homeSchema, JdbcSinkConfig.CHECKPOINT_TABLE);
  }

  private String tableCheckpointTable() {
    return dialect.qualified(homeSchema, JdbcSinkConfig.TABLE_CHECKPOINT_TABLE);
  }

  private void readProgress() throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute(dialect.createCheckpointTable(checkpointTable(), tableOptions()));
      st.execute(dialect.createTableCheckpointTable(tableCheckpointTable(), tableOptions()));
    }
    connection.commit();
    try (PreparedStatement ps = connection.prepareStatement("SELECT checkpoint_ts FROM " + checkpointTable()
        + " WHERE changefeed_id = ?")) {
      ps.setString(1, config.changefeedId());
      try (ResultSet rs = ps.executeQuery()) {
        checkpointTs = rs.next() ? rs.getLong(1) : 0;
      }
    }
    try (PreparedStatement ps = connection.prepareStatement("SELECT table_id, table_name, checkpoint_ts, "
        + "cursor_commit_ts, next_row_seq, ddl_ts FROM " + tableCheckpointTable() + " WHERE changefeed_id = ?")) {
      ps.setString(1, config.changefeedId());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          progress.put(rs.getLong(1), new SinkCheckpoint.TableProgress(rs.getString(2),
              new Checkpoint(rs.getLong(3), rs.getLong(4), rs.getLong(5)), rs.getLong(6)));
        }
      }
    }
    connection.commit();
    LOG.atInfo().addKeyValue("changefeedId", config.changefeedId()).addKeyValue("checkpointTs", checkpointTs)
        .addKeyValue("tables", progress.size()).log("JDBC sink opened");
  }

  private void writeCheckpoint(long ts) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(dialect.upsertCheckpoint(checkpointTable()))) {
      ps.setString(1, config.changefeedId());
      ps.setLong(2, ts);
      ps.executeUpdate();
    }
  }

  private void writeTableProgress(long tableId, String name, Checkpoint at, long ddlTs) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(dialect.upsertTableCheckpoint(tableCheckpointTable()))) {
      ps.setString(1, config.changefeedId());
      ps.setLong(2, tableId);
      ps.setString(3, name);
      ps.setLong(4, at.ts());
      ps.setLong(5, at.cursorCommitTs());
      ps.setLong(6, at.nextRowSeq());
      ps.setLong(7, ddlTs);
      ps.executeUpdate();
    }
  }

  // ---- connection and errors -----------------------------------------------------------------

  private String targetSchema(TableInfo info) {
    return config.targetSchema() != null ? config.targetSchema() : info.getSchemaName();
  }

  private String target(TableInfo info) {
    return dialect.qualified(targetSchema(info), info.getTableName());
  }

  private void connection() throws SQLException {
    if (connection != null && !connection.isClosed()) {
      return;
    }
    connection = DriverManager.getConnection(config.jdbcUrl(), config.user(), config.password());
    connection.setAutoCommit(false);
    writer = new RowWriter(connection, dialect, config.batchSize());
    decimals = dialect == Dialect.MYSQL ? new DecimalColumns(connection) : null;
    tableOptions = null;
    if (homeSchema == null) {
      try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery(dialect.currentSchemaQuery())) {
        homeSchema = rs.next() ? rs.getString(1) : null;
      }
      connection.commit();
      if (homeSchema == null) {
        throw new SQLException("the JDBC URL names no default schema/database for the checkpoint tables", "3D000");
      }
    }
    ensuredTables.clear();
  }

  private String tableOptions() throws SQLException {
    if (tableOptions == null) {
      tableOptions = KeyCollation.tableOptions(dialect, connection);
    }
    return tableOptions;
  }

  private SluiceException rollbackAndClassify(SQLException e, String table, long ts) {
    if (decimals != null) {
      decimals.forget();   // the fix may be a wider target column: read it again on the retry
    }
    try {
      if (connection != null && !connection.isClosed()) {
        connection.rollback();
      }
    } catch (SQLException ignored) {
      // the connection is broken: classify() sees that
    }
    return classify(e, table, ts);
  }

  private SluiceException classify(SQLException e, String table, long ts) {
    String state = sqlState(e);
    boolean broken;
    try {
      broken = connection == null || connection.isClosed() || !connection.isValid(2);
    } catch (SQLException x) {
      broken = true;
    }
    boolean transientState = state != null && (state.startsWith("08") || state.startsWith("57P")
        || state.equals("40001") || state.equals("40P01"));
    if (broken || transientState || e instanceof SQLTransientException || e instanceof SQLRecoverableException) {
      close();
      return new SinkUnavailableException("JDBC target " + config.jdbcUrl() + " failed while applying " + table
          + " at commit ts " + ts + " (SQL state " + state + "); nothing of the batch was kept: " + e.getMessage(), e);
    }
    return new SinkFailedException(table, ts, "JDBC target " + config.jdbcUrl() + " refused " + table + " at commit ts "
        + ts + " (SQL state " + state + "): " + e.getMessage(), e);
  }

  private static String sqlState(SQLException e) {
    for (SQLException x = e; x != null; x = x.getNextException()) {
      if (x.getSQLState() != null) {
        return x.getSQLState();
      }
      if (x.getCause() instanceof SQLException c && c.getSQLState() != null) {
        return c.getSQLState();
      }
    }
    return null;
  }
}
