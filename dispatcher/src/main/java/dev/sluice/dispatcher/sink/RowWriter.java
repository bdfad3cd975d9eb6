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
import java.util.Set;

/**
 * Writes row changes as upserts and deletes by primary key through JDBC batches. Consecutive rows with
 * the same statement shape share one batch; a change of shape executes the pending batch first, so
 * the target sees the rows in their order. Unavailable values (unchanged TOAST) are left out of both
 * the insert and the update list, so the target keeps its current value. A table without a key gets
 * plain inserts, and updates and deletes of one row matching the whole old row (its replica identity
 * FULL image), executed one by one so that a row the target does not have is counted. One instance
 * per connection.
 */
final class RowWriter implements AutoCloseable {

  private final Connection connection;
  private final Dialect dialect;
  private final int batchSize;
  private final Map<String, PreparedStatement> statements = new HashMap<>();
  private PreparedStatement pending;
  private int pendingRows;
  /** The rows of the pending batch, in order: which one the target refused, when a batch fails. */
  private final List<RejectedRowException.Row> pendingRefs = new ArrayList<>();
  /** The commit ts of the rows being written, for {@link RejectedRowException}. */
  private long commitTs;
  private long unmatchedRows;

  RowWriter(Connection connection, Dialect dialect, int batchSize) {
    this.connection = connection;
    this.dialect = dialect;
    this.batchSize = batchSize;
  }

  /** The rows that follow belong to the transaction of {@code ts}. */
  void at(long ts) {
    commitTs = ts;
  }

  /**
   * Upserts {@code after} (a full after image) into {@code table}; {@code insertOnly} columns (identity
   * ALWAYS) are written when the row is inserted and left as they are when it exists.
   */
  void upsert(String table, TableInfo info, RowImage after, Set<String> insertOnly) throws SQLException {
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
      values.add(dialect.adapt(c, v));
    }
    List<String> update = columns.stream().filter(c -> !keys.contains(c) && !insertOnly.contains(c)).toList();
    PreparedStatement ps = statement(dialect.upsert(table, columns, keys, update));
    RejectedRowException.Row ref = new RejectedRowException.Row(info, commitTs, after, null);
    try {
      for (int i = 0; i < values.size(); i++) {
        dialect.bind(ps, i + 1, values.get(i));
      }
    } catch (SQLException e) {
      throw RejectedRowException.of(e, List.of(ref));
    }
    add(ps, ref);
  }

  /** Inserts {@code after} into a table without a key. */
  void insert(String table, TableInfo info, RowImage after) throws SQLException {
    List<String> columns = new ArrayList<>();
    List<Value> values = new ArrayList<>();
    available(info, after, columns, values);
    PreparedStatement ps = statement(dialect.insert(table, columns));
    RejectedRowException.Row ref = new RejectedRowException.Row(info, commitTs, after, null);
    try {
      for (int i = 0; i < values.size(); i++) {
        dialect.bind(ps, i + 1, values.get(i));
      }
    } catch (SQLException e) {
      throw RejectedRowException.of(e, List.of(ref));
    }
    add(ps, ref);
  }

  /** Updates the one row of a keyless table that equals {@code before} (every available column) to {@code after}. */
  void updateMatching(String table, TableInfo info, RowImage before, RowImage after) throws SQLException {
    List<String> set = new ArrayList<>();
    List<Value> values = new ArrayList<>();
    available(info, after, set, values);
    List<Dialect.ImageMatch> match = new ArrayList<>();
    List<Value> old = new ArrayList<>();
    matchOf(info, before, match, old);
    values.addAll(old);
    executeNow(dialect.updateMatching(table, set, match), values, new RejectedRowException.Row(info, commitTs, after,
        null));
  }

  /** Deletes the one row of a keyless table that equals {@code before} (every available column). */
  void deleteMatching(String table, TableInfo info, RowImage before) throws SQLException {
    List<Dialect.ImageMatch> match = new ArrayList<>();
    List<Value> old = new ArrayList<>();
    matchOf(info, before, match, old);
    executeNow(dialect.deleteMatching(table, match), old, new RejectedRowException.Row(info, commitTs, before, null));
  }

  /** Updates and deletes of keyless tables that found no row in the target since this writer was made. */
  long unmatchedRows() {
    return unmatchedRows;
  }

  private void executeNow(String sql, List<Value> values, RejectedRowException.Row ref) throws SQLException {
    flush();   // the batched rows before this one come first
    PreparedStatement ps = statements.get(sql);
    if (ps == null) {
      ps = connection.prepareStatement(sql);
      statements.put(sql, ps);
    }
    try {
      for (int i = 0; i < values.size(); i++) {
        dialect.bind(ps, i + 1, values.get(i));
      }
      if (ps.executeUpdate() == 0) {
        unmatchedRows++;
      }
    } catch (SQLException e) {
      throw RejectedRowException.of(e, List.of(ref));
    }
  }

  private void available(TableInfo info, RowImage image, List<String> columns, List<Value> values) {
    for (int i = 0; i < image.size() && i < info.getColumnsCount(); i++) {
      if (!image.value(i).hasUnavailable()) {
        columns.add(info.getColumns(i).getName());
        values.add(dialect.adapt(info.getColumns(i), image.value(i)));
      }
    }
  }

  private void matchOf(TableInfo info, RowImage before, List<Dialect.ImageMatch> match, List<Value> values) {
    for (int i = 0; i < before.size() && i < info.getColumnsCount(); i++) {
      Value v = before.value(i);
      if (v.hasUnavailable()) {
        continue;
      }
      ColumnInfo c = info.getColumns(i);
      boolean asText = comparedAsText(c);
      match.add(new Dialect.ImageMatch(c.getName(), asText, asText ? dialect.columnType(c, false) : null));
      values.add(dialect.adapt(c, v));
    }
  }

  private static boolean comparedAsText(ColumnInfo c) {
    return switch (c.getKind()) {
      case VALUE_KIND_JSON, VALUE_KIND_TEXT_FALLBACK -> true;
      case VALUE_KIND_ARRAY -> c.getElementKind() == dev.sluice.api.v1.ValueKind.VALUE_KIND_JSON
          || c.getElementKind() == dev.sluice.api.v1.ValueKind.VALUE_KIND_TEXT_FALLBACK;
      default -> false;
    };
  }

  /** Deletes the row whose key columns hold {@code keyValues} (in key order). */
  void delete(String table, TableInfo info, List<Value> keyValues) throws SQLException {
    PreparedStatement ps = statement(dialect.delete(table, info.getPrimaryKeyList()));
    RejectedRowException.Row ref = new RejectedRowException.Row(info, commitTs, null, keyValues);
    try {
      for (int i = 0; i < keyValues.size(); i++) {
        dialect.bind(ps, i + 1, keyValues.get(i));
      }
    } catch (SQLException e) {
      throw RejectedRowException.of(e, List.of(ref));
    }
    add(ps, ref);
  }

  /**
   * Executes the pending batch.
   *
   * @throws RejectedRowException naming the table and key of the row the target refused
   */
  void flush() throws SQLException {
    try {
      if (pending != null && pendingRows > 0) {
        pending.executeBatch();
      }
    } catch (SQLException e) {
      throw RejectedRowException.of(e, List.copyOf(pendingRefs));
    } finally {
      pending = null;
      pendingRows = 0;
      pendingRefs.clear();
    }
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

  private void add(PreparedStatement ps, RejectedRowException.Row ref) throws SQLException {
    ps.addBatch();
    pendingRefs.add(ref);
    if (++pendingRows >= batchSize) {
      flush();
      pending = ps;
    }
  }

  /** Forgets the rows batched but not executed (their transaction is rolled back). */
  void discard() {
    if (pending != null) {
      try {
        pending.clearBatch();
      } catch (SQLException e) {
        // the statement is broken with its connection; it is not used again then
      }
    }
    pending = null;
    pendingRows = 0;
    pendingRefs.clear();
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
