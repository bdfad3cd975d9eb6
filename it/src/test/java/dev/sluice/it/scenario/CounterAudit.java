package dev.sluice.it.scenario;

import dev.sluice.it.DownstreamAudit;
import dev.sluice.it.PostgresServer;
import dev.sluice.it.workload.CounterWorkload;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Exactly-once check of the counter workload downstream: each upstream transaction sets one counter
 * to its next value, so the audit of the downstream table must hold, per counter, every value from 0
 * to the upstream's final value exactly once (a gap is a lost transaction, a repeat one applied twice).
 *
 * <pre>{@code
 * CounterAudit.install(downstream);
 * assertThat(CounterAudit.problems(upstream, downstream)).isEmpty();
 * }</pre>
 */
final class CounterAudit {

  private CounterAudit() {}

  static void install(PostgresServer downstream) {
    DownstreamAudit.install(downstream, "CREATE TABLE " + CounterWorkload.TABLE + " (id int PRIMARY KEY, n bigint NOT NULL)",
        CounterWorkload.TABLE, "id", "n");
  }

  static List<String> problems(PostgresServer upstream, PostgresServer downstream) throws SQLException {
    Map<Long, Long> finalValues = new HashMap<>();
    try (Connection c = upstream.connect(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT id, n FROM " + CounterWorkload.TABLE)) {
      while (rs.next()) {
        finalValues.put(rs.getLong(1), rs.getLong(2));
      }
    }
    List<String> problems = new ArrayList<>();
    try (Connection c = downstream.connect(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT k::bigint, count(*), count(DISTINCT v), min(v::bigint), max(v::bigint)"
             + " FROM it_audit WHERE tbl = '" + CounterWorkload.TABLE + "' GROUP BY k")) {
      while (rs.next()) {
        long id = rs.getLong(1);
        long count = rs.getLong(2);
        long distinct = rs.getLong(3);
        long min = rs.getLong(4);
        long max = rs.getLong(5);
        Long expected = finalValues.remove(id);
        if (expected == null || min != 0 || max != expected || distinct != expected + 1 || count != distinct) {
          problems.add("counter " + id + ": upstream final " + expected + ", downstream applied " + count
              + " values (" + distinct + " distinct) from " + min + " to " + max);
        }
      }
    }
    finalValues.forEach((id, n) -> problems.add("counter " + id + " (upstream " + n + ") never applied downstream"));
    return problems;
  }
}
