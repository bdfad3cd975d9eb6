package dev.sluice.broker.snapshot;

import dev.sluice.api.v1.Value;
import dev.sluice.schema.ColumnInfo;
import dev.sluice.schema.TableInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * Plans the SELECT of one chunk, in the upstream's SQL (PostgreSQL).
 *
 * <p><b>Keyed tables</b> are read in key order from after the last key: a row-value comparison on the key
 * columns, which the key's btree index serves as a range scan, so every chunk costs its own rows and not
 * the rows before it:
 * <pre>
 * SELECT t0."id", t0."name" FROM ONLY "public"."orders" AS t0
 *  WHERE (t0."id") &gt; (CAST(? AS bigint)) ORDER BY t0."id" LIMIT 8192
 * </pre>
 * The position's values are bound as text and cast to each key column's type (its {@code format_type}),
 * so they compare with the column's own operators and collation, as the ORDER BY does.
 *
 * <p><b>Keyless tables</b> are read by heap block, a TID range scan (PostgreSQL 14+):
 * <pre>
 * SELECT t0."a", t0.ctid FROM ONLY "public"."log" AS t0
 *  WHERE t0.ctid &gt;= '(512,0)'::tid AND t0.ctid &lt; '(1024,0)'::tid ORDER BY t0.ctid
 * </pre>
 *
 * The reader takes every column in the text format of the protocol, which is the type's output function,
 * what pgoutput sends for the same value, so a snapshot row decodes exactly as a captured row of the same
 * table info would. Not {@code ::text}: some casts to text differ from the output (a boolean becomes
 * {@code true}, not {@code t}; a {@code char(n)} loses its padding). Pure.
 */
public final class ChunkPlanner {

  private ChunkPlanner() {}

  /** The rows after {@code afterKey} (empty: from the first) in key order, at most {@code limit}. */
  public static ChunkQuery keyed(TableInfo table, List<Value> afterKey, int limit) {
    return keyed(table, afterKey, limit, false);
  }

  /** {@link #keyed}, its position's values as parameters or, with {@code inline}, as literals in the text. */
  private static ChunkQuery keyed(TableInfo table, List<Value> afterKey, int limit, boolean inline) {
    List<String> keys = table.primaryKey();
    if (keys.isEmpty()) {
      throw new IllegalArgumentException(table.qualifiedName() + " has no key; plan it by blocks");
    }
    if (!afterKey.isEmpty() && afterKey.size() != keys.size()) {
      throw new IllegalArgumentException("the position has " + afterKey.size() + " key values; " + table.qualifiedName()
          + " has " + keys.size() + " key columns " + keys);
    }
    StringBuilder sql = select(table, false);
    List<String> params = new ArrayList<>();
    if (!afterKey.isEmpty()) {
      sql.append(" WHERE (");
      appendColumns(sql, keys);
      sql.append(") > (");
      for (int i = 0; i < keys.size(); i++) {
        ColumnInfo c = table.columns().get(table.columnIndex(keys.get(i)));
        String text = KeyLiterals.text(afterKey.get(i));
        sql.append(i == 0 ? "" : ", ").append("CAST(").append(inline ? literal(text) : "?").append(" AS ")
            .append(c.sourceType()).append(')');
        if (!inline) {
          params.add(text);
        }
      }
      sql.append(')');
    }
    sql.append(" ORDER BY ");
    appendColumns(sql, keys);
    sql.append(" LIMIT ").append(limit);
    return new ChunkQuery(sql.toString(), params, 0);
  }

  /**
   * The same rows as {@link #keyed}, as a {@code COPY (SELECT ...) TO STDOUT} in the text format: a COPY takes no
   * parameters, so the position's values are literals ({@code E'...'}, quotes and backslashes escaped), cast to
   * each key column's type as {@link #keyed} casts its parameters.
   * <pre>
   * COPY (SELECT t0."id", t0."name" FROM ONLY "public"."orders" AS t0
   *  WHERE (t0."id") &gt; (CAST(E'8192' AS bigint)) ORDER BY t0."id" LIMIT 8192) TO STDOUT
   * </pre>
   */
  public static String keyedCopy(TableInfo table, List<Value> afterKey, int limit) {
    return "COPY (" + keyed(table, afterKey, limit, true).sql() + ") TO STDOUT";
  }

  /** {@code text} as an escape string constant, whatever standard_conforming_strings is. */
  static String literal(String text) {
    return "E'" + text.replace("\\", "\\\\").replace("'", "''") + "'";
  }

  /** The rows of heap blocks {@code [fromBlock, toBlock)} in heap order. */
  public static ChunkQuery blocks(TableInfo table, long fromBlock, long toBlock) {
    if (fromBlock < 0 || toBlock <= fromBlock || toBlock > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException("block range [" + fromBlock + ", " + toBlock + ") is not a range of blocks");
    }
    StringBuilder sql = select(table, true);
    sql.append(" WHERE t0.ctid >= '(").append(fromBlock).append(",0)'::tid AND t0.ctid < '(").append(toBlock)
        .append(",0)'::tid ORDER BY t0.ctid");
    return new ChunkQuery(sql.toString(), List.of(), table.columns().size() + 1);
  }

  private static StringBuilder select(TableInfo table, boolean withCtid) {
    StringBuilder sql = new StringBuilder("SELECT ");
    for (int i = 0; i < table.columns().size(); i++) {
      sql.append(i == 0 ? "" : ", ").append("t0.").append(quote(table.columns().get(i).name()));
    }
    if (withCtid) {
      sql.append(table.columns().isEmpty() ? "" : ", ").append("t0.ctid");
    }
    return sql.append(" FROM ").append(ownRows(table)).append(" AS t0");
  }

  private static void appendColumns(StringBuilder sql, List<String> names) {
    for (int i = 0; i < names.size(); i++) {
      sql.append(i == 0 ? "" : ", ").append("t0.").append(quote(names.get(i)));
    }
  }

  /**
   * {@code ONLY "schema"."table"}: what a snapshot of the table reads. A parent's snapshot is its own rows, as its
   * captured changes are; an inheriting table or a partition is a table of its own, snapshotted (and captured) under
   * its own name.
   */
  public static String ownRows(TableInfo table) {
    return "ONLY " + quote(table.schemaName()) + '.' + quote(table.tableName());
  }

  /** A quoted identifier: {@code "a""b"} for {@code a"b}. */
  static String quote(String identifier) {
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }
}
