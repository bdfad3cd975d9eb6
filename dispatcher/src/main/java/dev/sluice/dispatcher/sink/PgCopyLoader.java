package dev.sluice.dispatcher.sink;

import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
import dev.sluice.dispatcher.RowImage;
import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.postgresql.PGConnection;

/**
 * Upserts many whole rows into a PostgreSQL table at COPY speed: the rows go by {@code COPY ... FROM STDIN}
 * (text format) into a temporary table of the transaction shaped like the target's columns, and from there
 * into the target in one {@code INSERT ... SELECT ... ON CONFLICT (key) DO UPDATE}, all inside the caller's
 * transaction, so the sink's checkpoint still commits with the rows. For a snapshot chunk's READ rows,
 * whose keys are distinct and whose images are whole; a row with an unavailable value takes the ordinary
 * path ({@link #whole}). A table without a key gets a plain {@code INSERT ... SELECT}. One connection,
 * one applier thread.
 *
 * <pre>{@code
 * PgCopyLoader loader = new PgCopyLoader(connection);
 * loader.upsert("\"public\".\"accounts\"", info, images);
 * }</pre>
 */
final class PgCopyLoader {

  /** Fewer rows than this go the ordinary way: a COPY and an INSERT cost more than a few batched upserts. */
  static final int MIN_ROWS = 64;

  private final Connection connection;
  /** Target and column list to the temporary table that stages them. */
  private final Map<String, String> staging = new HashMap<>();

  PgCopyLoader(Connection connection) {
    this.connection = connection;
  }

  /** Whether every image holds a value (maybe NULL) for every column: what a COPY needs. */
  static boolean whole(List<RowImage> images, TableInfo info) {
    for (RowImage image : images) {
      if (image.size() < info.getColumnsCount()) {
        return false;
      }
      for (int i = 0; i < info.getColumnsCount(); i++) {
        if (image.value(i).hasUnavailable()) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Upserts {@code images} (whole, distinct keys) into {@code target} (quoted), by COPY and one statement.
   * A failure forgets the staging tables: the caller's transaction rolls back, and with it their creation.
   */
  void upsert(String target, TableInfo info, List<RowImage> images) throws SQLException {
    try {
      load(target, info, images);
    } catch (SQLException | RuntimeException e) {
      staging.clear();
      throw e;
    }
  }

  private void load(String target, TableInfo info, List<RowImage> images) throws SQLException {
    List<String> columns = new ArrayList<>(info.getColumnsCount());
    for (int i = 0; i < info.getColumnsCount(); i++) {
      columns.add(info.getColumns(i).getName());
    }
    String cols = Dialect.POSTGRESQL.quoted(columns);
    String stage = stage(target, cols);
    try (Statement s = connection.createStatement()) {
      s.execute("TRUNCATE " + stage);
    }
    StringBuilder data = new StringBuilder(images.size() * 64);
    for (RowImage image : images) {
      for (int i = 0; i < columns.size(); i++) {
        if (i > 0) {
          data.append('\t');
        }
        appendCopyText(data, image.value(i));
      }
      data.append('\n');
    }
    try {
      connection.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + stage + " (" + cols + ") FROM STDIN",
          new StringReader(data.toString()));
    } catch (IOException e) {
      throw new SQLException("COPY into the staging table of " + target + " failed: " + e.getMessage(), "08000", e);
    }
    List<String> keys = info.getPrimaryKeyList();
    StringBuilder sql = new StringBuilder("INSERT INTO ").append(target).append(" (").append(cols).append(") SELECT ")
        .append(cols).append(" FROM ").append(stage);
    if (!keys.isEmpty()) {
      List<String> update = columns.stream().filter(c -> !keys.contains(c)).toList();
      sql.append(" ON CONFLICT (").append(Dialect.POSTGRESQL.quoted(keys)).append(')');
      sql.append(update.isEmpty() ? " DO NOTHING" : " DO UPDATE SET " + String.join(", ",
          update.stream().map(c -> Dialect.POSTGRESQL.quote(c) + " = EXCLUDED." + Dialect.POSTGRESQL.quote(c))
              .toList()));
    }
    try (Statement s = connection.createStatement()) {
      s.execute(sql.toString());
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

  /** One value in COPY's text format: {@code \N} for NULL, the value's text with \, tab, newline, CR escaped. */
  static void appendCopyText(StringBuilder out, Value v) {
    if (v.hasNullValue() || v.getKindCase() == Value.KindCase.KIND_NOT_SET) {
      out.append("\\N");
      return;
    }
    String text = v.hasArrayValue() ? ValueText.pgArray(v) : ValueText.scalar(v);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '\t' -> out.append("\\t");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        default -> out.append(c);
      }
    }
  }
}
