package dev.sluice.dispatcher.sink;

import dev.sluice.dispatcher.Checkpoint;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * One changefeed's rows in the checkpoint tables of a JDBC target ({@code sluice_checkpoint},
 * {@code sluice_table_checkpoint}, in the connection's default schema), and the progress they hold as
 * of the last commit. Writes join the connection's open transaction; {@link #committed} takes them
 * into the in-memory view once that transaction committed. Creates the tables, and brings one of an
 * earlier version up to date ({@code dropped_ts}, the {@code snapshot_*} columns, on PostgreSQL
 * {@code deferred_key}). One applier thread.
 */
final class JdbcProgress {

  private final String changefeedId;
  private final Dialect dialect;
  private String checkpointTable;
  private String tableCheckpointTable;
  private long checkpointTs;
  private final Map<Long, SinkCheckpoint.TableProgress> tables = new HashMap<>();

  JdbcProgress(String changefeedId, Dialect dialect) {
    this.changefeedId = changefeedId;
    this.dialect = dialect;
  }

  /** Creates (or updates) the checkpoint tables in {@code homeSchema} and reads this changefeed's rows. */
  void open(Connection c, String homeSchema, String tableOptions) throws SQLException {
    checkpointTable = dialect.qualified(homeSchema, JdbcSinkConfig.CHECKPOINT_TABLE);
    tableCheckpointTable = dialect.qualified(homeSchema, JdbcSinkConfig.TABLE_CHECKPOINT_TABLE);
    try (Statement st = c.createStatement()) {
      st.execute(dialect.createCheckpointTable(checkpointTable, tableOptions));
      st.execute(dialect.createTableCheckpointTable(tableCheckpointTable, tableOptions));
    }
    c.commit();
    if (!hasColumn(c, homeSchema, JdbcSinkConfig.TABLE_CHECKPOINT_TABLE, "dropped_ts")) {
      try (Statement st = c.createStatement()) {
        st.execute(dialect.addDroppedTsColumn(tableCheckpointTable));   // written by a version before it
      }
      c.commit();
    }
    if (!hasColumn(c, homeSchema, JdbcSinkConfig.TABLE_CHECKPOINT_TABLE, "snapshot_state")) {
      try (Statement st = c.createStatement()) {
        for (String sql : dialect.addSnapshotColumns(tableCheckpointTable)) {   // written by a version before them
          st.execute(sql);
        }
      }
      c.commit();
    }
    if (dialect.defersKeys() && !hasColumn(c, homeSchema, JdbcSinkConfig.TABLE_CHECKPOINT_TABLE, "deferred_key")) {
      try (Statement st = c.createStatement()) {
        st.execute(dialect.addDeferredKeyColumn(tableCheckpointTable));   // written by a version before it
      }
      c.commit();
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT checkpoint_ts FROM " + checkpointTable
        + " WHERE changefeed_id = ?")) {
      ps.setString(1, changefeedId);
      try (ResultSet rs = ps.executeQuery()) {
        checkpointTs = rs.next() ? rs.getLong(1) : 0;
      }
    }
    tables.clear();
    try (PreparedStatement ps = c.prepareStatement("SELECT table_id, table_name, checkpoint_ts, cursor_commit_ts, "
        + "next_row_seq, ddl_ts, dropped_ts, snapshot_state, snapshot_cursor, snapshot_rows, snapshot_since_ts"
        + (dialect.defersKeys() ? ", deferred_key" : "") + " FROM " + tableCheckpointTable
        + " WHERE changefeed_id = ?")) {
      ps.setString(1, changefeedId);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          tables.put(rs.getLong(1), new SinkCheckpoint.TableProgress(rs.getString(2),
              new Checkpoint(rs.getLong(3), rs.getLong(4), rs.getLong(5)), rs.getLong(6), rs.getLong(7),
              TableSnapshot.of(rs.getInt(8), rs.getString(9), rs.getLong(10), rs.getLong(11)),
              dialect.defersKeys() ? rs.getString(12) : null));
        }
      }
    }
    c.commit();
  }

  SinkCheckpoint snapshot() {
    return new SinkCheckpoint(checkpointTs, tables);
  }

  long checkpointTs() {
    return checkpointTs;
  }

  /** The committed progress of {@code tableId}, or null. */
  SinkCheckpoint.TableProgress table(long tableId) {
    return tables.get(tableId);
  }

  int tableCount() {
    return tables.size();
  }

  void writeCheckpoint(Connection c, long ts) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.upsertCheckpoint(checkpointTable))) {
      ps.setString(1, changefeedId);
      ps.setLong(2, ts);
      ps.executeUpdate();
    }
  }

  void writeTable(Connection c, long tableId, SinkCheckpoint.TableProgress p) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(dialect.upsertTableCheckpoint(tableCheckpointTable))) {
      ps.setString(1, changefeedId);
      ps.setLong(2, tableId);
      ps.setString(3, p.tableName());
      ps.setLong(4, p.applied().ts());
      ps.setLong(5, p.applied().cursorCommitTs());
      ps.setLong(6, p.applied().nextRowSeq());
      ps.setLong(7, p.ddlTs());
      ps.setLong(8, p.droppedTs());
      ps.setInt(9, p.snapshot().state().ordinal());
      ps.setString(10, p.snapshot().state() == TableSnapshot.State.NONE ? null : p.snapshot().cursorText());
      ps.setLong(11, p.snapshot().rows());
      ps.setLong(12, p.snapshot().sinceTs());
      if (dialect.defersKeys()) {
        ps.setString(13, p.deferredKey());
      }
      ps.executeUpdate();
    }
  }

  /** The transaction that wrote {@code written} and {@code ts} committed. */
  void committed(Map<Long, SinkCheckpoint.TableProgress> written, long ts) {
    tables.putAll(written);
    checkpointTs = Math.max(checkpointTs, ts);
  }

  private boolean hasColumn(Connection c, String schema, String table, String column) throws SQLException {
    try (ResultSet rs = dialect == Dialect.POSTGRESQL ? c.getMetaData().getColumns(null, schema, table, column)
        : c.getMetaData().getColumns(schema, null, table, column)) {
      return rs.next();
    }
  }
}
