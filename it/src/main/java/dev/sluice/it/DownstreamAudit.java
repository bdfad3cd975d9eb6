package dev.sluice.it;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Detects rows a sink applied twice. A downstream trigger records (table, key, value) for every row
 * the sink inserts or updates into {@code it_audit}; when every upstream write gives the value column
 * a value that never repeats for the key (a random 64-bit number, a counter's next value), a repeated
 * (table, key, value) means the same change was applied twice. The audited table is created here,
 * before the changefeed starts, so the sink finds it (it creates only missing tables).
 *
 * <pre>{@code
 * DownstreamAudit.install(downstream, "CREATE TABLE public.counters (id int PRIMARY KEY, n bigint NOT NULL)",
 *     "public.counters", "id", "n");
 * assertThat(DownstreamAudit.duplicates(downstream)).isEmpty();
 * }</pre>
 */
public final class DownstreamAudit {

  private DownstreamAudit() {}

  /** Creates the table with {@code createTable} and its audit trigger on {@code keyColumn}, {@code valueColumn}. */
  public static void install(PostgresServer downstream, String createTable, String table, String keyColumn,
      String valueColumn) {
    downstream.exec("CREATE TABLE IF NOT EXISTS it_audit (tbl text NOT NULL, k text, v text)",
        "CREATE OR REPLACE FUNCTION it_audit_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            + " INSERT INTO it_audit VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, to_jsonb(NEW) ->> TG_ARGV[0],"
            + " to_jsonb(NEW) ->> TG_ARGV[1]); RETURN NULL; END $$",
        createTable,
        "CREATE TRIGGER it_audit AFTER INSERT OR UPDATE ON " + table
            + " FOR EACH ROW EXECUTE FUNCTION it_audit_row('" + keyColumn + "', '" + valueColumn + "')",
        // the sink applies as a replica (session_replication_role), where only ALWAYS triggers fire
        "ALTER TABLE " + table + " ENABLE ALWAYS TRIGGER it_audit");
  }

  /** Every (table, key, value) recorded more than once, with its count; empty when nothing was applied twice. */
  public static List<String> duplicates(PostgresServer downstream) {
    return strings(downstream, "SELECT tbl || ' key ' || k || ' value ' || v || ' applied ' || count(*) || ' times'"
        + " FROM it_audit WHERE v IS NOT NULL GROUP BY tbl, k, v HAVING count(*) > 1 ORDER BY 1 LIMIT 20");
  }

  /** Rows recorded for {@code table}. */
  public static long recorded(PostgresServer downstream, String table) {
    return downstream.queryLong("SELECT count(*) FROM it_audit WHERE tbl = '" + table + "'");
  }

  static List<String> strings(PostgresServer pg, String sql) {
    try (Connection c = pg.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException("SQL failed: " + sql + ": " + e.getMessage(), e);
    }
  }
}
