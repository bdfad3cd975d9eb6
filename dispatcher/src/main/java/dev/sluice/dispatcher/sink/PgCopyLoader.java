package dev.sluice.dispatcher.sink;

import dev.sluice.api.v1.TableInfo;
import dev.sluice.dispatcher.RowImage;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * Upserts many whole rows into a PostgreSQL table at COPY speed, all inside the caller's transaction, so the
 * sink's checkpoint still commits with the rows. First the rows go by {@code COPY ... FROM STDIN} (text
 * format) straight into the target under a savepoint: when none of their keys is there yet, which is a
 * snapshot into an empty table, inserting is upserting. When a key is there already (unique violation), the
 * savepoint is rolled back and that target's rows go, from then on, by a temporary table of the transaction
 * shaped like its columns and from there into it in one {@code INSERT ... SELECT ... ON CONFLICT (key) DO
 * UPDATE}. For a snapshot chunk's READ rows, whose keys are distinct and whose images are whole; a batch with
 * an unavailable value takes the ordinary path ({@link #upsert} says so). A table without a key is appended to by a
 * plain COPY. Rows backed by a COPY line (feature copy-text) are written as their line, never decoded
 * ({@link PgCopyInput}). One connection (not autocommitted), one applier thread.
 *
 * <pre>{@code
 * PgCopyLoader loader = new PgCopyLoader(connection);
 * loader.upsert("\"public\".\"accounts\"", info, images);
 * }</pre>
 */
final class PgCopyLoader {

  /** Fewer rows than this go the ordinary way: a COPY and an INSERT cost more than a few batched upserts. */
  static final int MIN_ROWS = 64;
  private static final String UNIQUE_VIOLATION = "23505";
  private static final int MAX_KEPT_TEXT_CHARS = 16 << 20;

  private final Connection connection;
  /** Target and column list to the temporary table that stages them. */
  private final Map<String, String> staging = new HashMap<>();
  /** Targets where a straight COPY met a key already there: they go by the staging table. */
  private final Set<String> conflicted = new HashSet<>();
  /** The COPY text of the last load's rows printed from values, its capacity kept for the next (alike in size). */
  private StringBuilder text = new StringBuilder();

  PgCopyLoader(Connection connection) {
    this.connection = connection;
  }

  /**
   * Upserts {@code images} (distinct keys) into {@code target} (quoted) by COPY, when every image holds a value
   * (maybe NULL) for every column; returns false, having written nothing, when one does not (an unavailable
   * value: the rows take the ordinary path). A failure forgets the staging tables: the caller's transaction
   * rolls back, and with it their creation.
   */
  boolean upsert(String target, TableInfo info, List<RowImage> images) throws SQLException {
    try {
      return load(target, info, images);
    } catch (SQLException | RuntimeException e) {
      staging.clear();
      throw e;
    }
  }

  /**
   * Inserts {@code images} into {@code target} (quoted) by one plain COPY, with no savepoint and no key conflict
   * handled: for a table whose key has no index while its snapshot loads ({@link DeferredKeys}). Rows that came as
   * COPY lines are written as they are. Returns false, having written nothing, when an image lacks a value for some
   * column (an unavailable value).
   */
  boolean insert(String target, TableInfo info, List<RowImage> images) throws SQLException {
    List<String> columns = new ArrayList<>(info.getColumnsCount());
    for (int i = 0; i < info.getColumnsCount(); i++) {
      columns.add(info.getColumns(i).getName());
    }
    PgCopyInput data = PgCopyInput.of(info, images, text);
    if (text.capacity() > MAX_KEPT_TEXT_CHARS) {
      text = new StringBuilder();   // a chunk of wide rows does not keep its buffer
    }
    if (data == null) {
      return false;
    }
    copy(target, Dialect.POSTGRESQL.quoted(columns), data);
    return true;
  }

  private boolean load(String target, TableInfo info, List<RowImage> images) throws SQLException {
    List<String> columns = new ArrayList<>(info.getColumnsCount());
    for (int i = 0; i < info.getColumnsCount(); i++) {
      columns.add(info.getColumns(i).getName());
    }
    String cols = Dialect.POSTGRESQL.quoted(columns);
    PgCopyInput data = PgCopyInput.of(info, images, text);
    if (text.capacity() > MAX_KEPT_TEXT_CHARS) {
      text = new StringBuilder();   // a chunk of wide rows does not keep its buffer
    }
    if (data == null) {
      return false;
    }
    List<String> keys = info.getPrimaryKeyList();
    if (keys.isEmpty()) {   // appended either way: straight in
      copy(target, cols, data);
      return true;
    }
    if (!conflicted.contains(target) && copyStraightIn(target, cols, data)) {
      return true;
    }
    String stage = stage(target, cols);
    try (Statement s = connection.createStatement()) {
      s.execute("TRUNCATE " + stage);
    }
    copy(stage, cols, data);
    StringBuilder sql = new StringBuilder("INSERT INTO ").append(target).append(" (").append(cols).append(") SELECT ")
        .append(cols).append(" FROM ").append(stage);
    List<String> update = columns.stream().filter(c -> !keys.contains(c)).toList();
    sql.append(" ON CONFLICT (").append(Dialect.POSTGRESQL.quoted(keys)).append(')');
    sql.append(update.isEmpty() ? " DO NOTHING" : " DO UPDATE SET " + String.join(", ",
        update.stream().map(c -> Dialect.POSTGRESQL.quote(c) + " = EXCLUDED." + Dialect.POSTGRESQL.quote(c))
            .toList()));
    try (Statement s = connection.createStatement()) {
      s.execute(sql.toString());
    }
    return true;
  }

  /**
   * COPY straight into the target under a savepoint: when no row of the batch is there yet (a snapshot into an
   * empty table, the usual case) an insert is the upsert, at half the downstream's work of staging and merging.
   * A key already there (unique violation) rolls back to the savepoint, marks the target and returns false: its
   * batches go by the staging table from then on.
   */
  private boolean copyStraightIn(String target, String cols, PgCopyInput data) throws SQLException {
    Savepoint before = connection.setSavepoint();
    try {
      copy(target, cols, data);
      connection.releaseSavepoint(before);
      return true;
    } catch (SQLException e) {
      if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
        throw e;
      }
      connection.rollback(before);
      conflicted.add(target);
      return false;
    }
  }

  private void copy(String into, String cols, PgCopyInput data) throws SQLException {
    CopyIn in = connection.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + into + " (" + cols
        + ") FROM STDIN");
    try {
      data.writeTo(in);
      in.endCopy();
    } catch (SQLException | RuntimeException e) {
      if (in.isActive()) {   // the server has not ended it with an error: end it, so the connection is usable
        try {
          in.cancelCopy();
        } catch (SQLException cancel) {
          e.addSuppressed(cancel);
        }
      }
      throw e;
    }
  }

  /**
   * The caller's transaction committed or rolled back: its staging tables (ON COMMIT DROP) are gone, the next
   * load makes new ones. Without this, a load after a commit or a rollback would find none.
   */
  void transactionEnded() {
    staging.clear();
  }

  /** The temporary table staging {@code target}'s columns, made once per transaction and column list. */
  private String stage(String target, String cols) throws SQLException {
    String key = target + "(" + cols + ")";
    String stage = staging.get(key);
    if (stage == null) {
      stage = "pg_temp.sluice_copy_" + staging.size();
      try (Statement s = connection.createStatement()) {
        s.execute("CREATE TEMP TABLE IF NOT EXISTS " + stage.substring("pg_temp.".length()) + " ON COMMIT DROP AS SELECT "
            + cols + " FROM " + target + " WITH NO DATA");
      }
      staging.put(key, stage);
    }
    return stage;
  }

  /** Drops the staging tables (the target's shape changed: a DDL was applied); the next load makes new ones. */
  void forget() throws SQLException {
    try (Statement s = connection.createStatement()) {
      for (String stage : staging.values()) {
        s.execute("DROP TABLE IF EXISTS " + stage);
      }
    }
    staging.clear();
  }
}
