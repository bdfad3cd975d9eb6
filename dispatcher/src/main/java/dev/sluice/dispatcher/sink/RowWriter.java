package dev.sluice.dispatcher.sink;

import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
import dev.sluice.dispatcher.RowImage;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes row changes as upserts and deletes by primary key through JDBC batches. Consecutive rows with
 * the same statement shape share one batch; a change of shape executes the pending batch first, so
 * the target sees the rows in their order. Unavailable values (unchanged TOAST) are left out of both
 * the insert and the update list, so the target keeps its current value. One instance per connection.
 */
final class RowWriter implements AutoCloseable {

  private final Connection connection;
  private final Dialect dialect;
  private final int batchSize;
  private final Map<String, PreparedStatement> statements = new HashMap<>();
  private PreparedStatement pending;
  private int pendingRows;

  RowWriter(Connection connection, Dialect dialect, int batchSize) {
    this.connection = connection;
    this.dialect = dialect;
    this.batchSize = batchSize;
  }

  /** Upserts {@code after} (a full after image) into {@code table}. */
  void upsert(String table, TableInfo info, RowImage after) throws SQLException {
    List<String> columns = new ArrayList<>();
    List<Value> values = new ArrayList<>();
    List<String> keys = info.getPrimaryKeyList();
    for (int i = 0; i < after.size() && i < info.getColumnsCount(); i++) {
      Value v = after.value(i);
      ColumnInfo c = info.getColumns(i);
      if (v.hasUnavailable()) {
        if (keys.contains(c.getName())) {
          throw new SQLException("key column " + c.getName() + " is unavailable in the after image");
        }
        continue;
      }
      columns.add(c.getName());
      values.add(v);
    }
    List<String> update = columns.stream().filter(c -> !keys.contains(c)).toList();
    PreparedStatement ps = statement(dialect.upsert(table, columns, keys, update));
    for (int i = 0; i < values.size(); i++) {
      dialect.bind(ps, i + 1, values.get(i));
    }
    add(ps);
  }

  /** Deletes the row whose key columns hold {@code keyValues} (in key order). */
  void delete(String table, TableInfo info, List<Value> keyValues) throws SQLException {
    PreparedStatement ps = statement(dialect.delete(table, info.getPrimaryKeyList()));
    for (int i = 0; i < keyValues.size(); i++) {
      dialect.bind(ps, i + 1, keyValues.get(i));
    }
    add(ps);
  }

  /** Executes the pending batch. */
  void flush() throws SQLException {
    if (pending != null && pendingRows > 0) {
      pending.executeBatch();
    }
    pending = null;
    pendingRows = 0;
  }

  /** The key values of {@code image} in key order, or null when a key column is missing or unavailable. */
  static List<Value> keyOf(TableInfo info, RowImage image) {
    List<Value> key = new ArrayList<>(info.getPrimaryKeyCount());
    for (String k : info.getPrimaryKeyList()) {
      int i = indexOf(info, k);
      if (i < 0 || i >= image.size() || image.value(i).hasUnavailable()) {
        return null;
      }
      key.add(image.value(i));
    }
    return key;
  }

  private static int indexOf(TableInfo info, String column) {
    for (int i = 0; i < info.getColumnsCount(); i++) {
      if (info.getColumns(i).getName().equals(column)) {
        return i;
      }
    }
    return -1;
  }

  private PreparedStatement statement(String sql) throws SQLException {
    PreparedStatement ps = statements.get(sql);
    if (ps == null) {
      ps = connection.prepareStatement(sql);
      statements.put(sql, ps);
    }
    if (ps != pending) {
      flush();
      pending = ps;
    }
    return ps;
  }

  private void add(PreparedStatement ps) throws SQLException {
    ps.addBatch();
    if (++pendingRows >= batchSize) {
      flush();
      pending = ps;
    }
  }

  /** Drops cached statements (after a DDL changed the tables they name). */
  void forgetStatements() throws SQLException {
    flush();
    for (PreparedStatement ps : statements.values()) {
      ps.close();
    }
    statements.clear();
  }

  @Override
  public void close() {
    for (PreparedStatement ps : statements.values()) {
      try {
        ps.close();
      } catch (SQLException e) {
        // the connection is going away anyway
      }
    }
    statements.clear();
  }
}
