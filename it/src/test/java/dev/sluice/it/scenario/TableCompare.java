package dev.sluice.it.scenario;

import dev.sluice.testing.servers.MariaDbServer;
import dev.sluice.it.PostgresServer;
import io.vertx.core.json.JsonArray;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Compares an upstream table with its copy row by row, as sorted lists of rows rendered as text. A
 * PostgreSQL copy (its DDL ran as captured) must equal the upstream in every column, generated ones
 * included. A MariaDB copy is compared column by column through expressions that render each type
 * alike on both sides (times in UTC, booleans as 1/0, bytes as hex, arrays as JSON); STORED generated
 * columns are left out there (the table info does not carry them, so the derived table lacks them).
 */
final class TableCompare {

  /** An upstream table: its relkind ('r' table, 'p' partitioned) and whether it has inheritance children. */
  record Table(String schema, String name, char kind, boolean hasChildren) {
    String pg() {
      return '"' + schema.replace("\"", "\"\"") + "\".\"" + name.replace("\"", "\"\"") + '"';
    }

    /** In the MariaDB copy: every table goes to the sink URL's database, {@code app}. */
    String maria() {
      return "`app`.`" + name + '`';
    }

    @Override
    public String toString() {
      return schema + "." + name;
    }
  }

  private record Column(String name, String type, boolean generated) {
    /** The name as a PostgreSQL identifier. */
    String pg() {
      return '"' + name.replace("\"", "\"\"") + '"';
    }
  }

  private TableCompare() {}

  /** The tables of {@code schemas} upstream. */
  static List<Table> tables(PostgresServer up, List<String> schemas) throws SQLException {
    List<Table> out = new ArrayList<>();
    String in = String.join(", ", schemas.stream().map(s -> "'" + s + "'").toList());
    try (Connection c = up.connect(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT n.nspname, c.relname, c.relkind, EXISTS (SELECT 1 FROM pg_inherits i"
             + " JOIN pg_class k ON k.oid = i.inhrelid WHERE i.inhparent = c.oid AND k.relispartition = false)"
             + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p')"
             + " AND n.nspname IN (" + in + ") ORDER BY 1, 2")) {
      while (rs.next()) {
        out.add(new Table(rs.getString(1), rs.getString(2), rs.getString(3).charAt(0), rs.getBoolean(4)));
      }
    }
    return out;
  }

  /** Every row of {@code t} on a PostgreSQL server, as its record text, sorted. */
  static List<String> pgRows(PostgresServer pg, Table t) throws SQLException {
    // ONLY: a table's own rows, as a changefeed copies them (an inheriting table or a partition is copied apart)
    return query(pg.connect(), "SELECT x::text FROM ONLY " + t.pg() + " x", List.of());
  }

  /** Every row of {@code t} and of the tables under it (a partitioned table's: its partitions'), sorted. */
  static List<String> pgTreeRows(PostgresServer pg, Table t) throws SQLException {
    return query(pg.connect(), "SELECT x::text FROM " + t.pg() + " x", List.of());
  }

  /** The rows of {@code t} upstream as the MariaDB copy shows them (its own rows only), sorted. */
  static List<String> upstreamAsMaria(PostgresServer up, Table t) throws SQLException {
    List<Column> cols = columns(up, t);
    List<String> exprs = cols.stream().map(c -> pgExpr(c)).toList();
    return query(up.connect(), "SELECT " + String.join(", ", exprs) + " FROM ONLY " + t.pg(), arrays(cols));
  }

  /** The rows of the MariaDB copy of {@code t}, rendered as {@link #upstreamAsMaria} renders upstream's, sorted. */
  static List<String> mariaRows(PostgresServer up, MariaDbServer maria, Table t) throws SQLException {
    List<Column> cols = columns(up, t);
    List<String> exprs = cols.stream().map(c -> mariaExpr(c)).toList();
    return query(maria.connect(), "SELECT " + String.join(", ", exprs) + " FROM " + t.maria(), arrays(cols));
  }

  private static List<Column> columns(PostgresServer up, Table t) throws SQLException {
    List<Column> out = new ArrayList<>();
    try (Connection c = up.connect(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT a.attname, t.typname, a.attgenerated <> '' FROM pg_attribute a"
             + " JOIN pg_type t ON t.oid = a.atttypid WHERE a.attrelid = '" + t.pg().replace("'", "''")
             + "'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")) {
      while (rs.next()) {
        if (!rs.getBoolean(3)) {
          out.add(new Column(rs.getString(1), rs.getString(2), false));
        }
      }
    }
    return out;
  }

  private static List<Boolean> arrays(List<Column> cols) {
    return cols.stream().map(c -> c.type().startsWith("_")).toList();
  }

  private static String pgExpr(Column c) {
    String q = c.pg();
    return switch (c.type()) {
      case "int2", "int4", "int8", "numeric", "date" -> q + "::text";
      case "float4", "float8" -> q + "::float8::text";
      case "bool" -> "CASE WHEN " + q + " THEN '1' WHEN NOT " + q + " THEN '0' END";
      case "bpchar" -> "rtrim(" + q + ")";
      case "bytea" -> "encode(" + q + ", 'hex')";
      case "time" -> "to_char(TIMESTAMP '2000-01-01' + " + q + ", 'HH24:MI:SS.US')";
      case "timestamp" -> "to_char(" + q + ", 'YYYY-MM-DD HH24:MI:SS.US')";
      case "timestamptz" -> "to_char(" + q + " AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')";
      // the type's output function, as capture reads it (format renders NULL as '')
      default -> c.type().startsWith("_") ? "array_to_json(" + q + ")::text"
          : "CASE WHEN " + q + " IS NOT NULL THEN format('%s', " + q + ") END";
    };
  }

  private static String mariaExpr(Column c) {
    String q = '`' + c.name().replace("`", "``") + '`';
    return switch (c.type()) {
      case "bpchar" -> "RTRIM(" + q + ")";
      case "bytea" -> "LOWER(HEX(" + q + "))";
      case "time" -> "TIME_FORMAT(" + q + ", '%H:%i:%s.%f')";
      case "timestamp", "timestamptz" -> "DATE_FORMAT(" + q + ", '%Y-%m-%d %H:%i:%s.%f')";
      default -> "CAST(" + q + " AS CHAR)";
    };
  }

  private static List<String> query(Connection c, String sql, List<Boolean> arrays) throws SQLException {
    List<String> out = new ArrayList<>();
    try (c; Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= n; i++) {
          String v = rs.getString(i);
          if (v != null && i - 1 < arrays.size() && arrays.get(i - 1)) {
            v = new JsonArray(v).encode();   // one spelling of the same array
          }
          row.append(i > 1 ? " | " : "").append(v == null ? "NULL" : v);
        }
        out.add(row.toString());
      }
    }
    out.sort(null);
    return out;
  }
}
