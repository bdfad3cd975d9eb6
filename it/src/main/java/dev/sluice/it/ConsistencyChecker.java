package dev.sluice.it;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Compares an upstream table with its downstream copy row by row, in primary-key order, at a resolved
 * ts: first {@link #awaitCheckpoint} waits until the changefeed's checkpoint (the sink's
 * {@code sluice_checkpoint} row, written in the same transaction as the rows) passes an upstream LSN
 * taken after the workload stopped, so every upstream transaction is applied; then {@link #compare}
 * merges both sides' rows ordered by the key.
 *
 * <p>Values are compared as PostgreSQL renders them as text, with two normalisations for types the
 * sink may map differently: numbers compare by value ({@code 1.50} = {@code 1.5}) and trailing blanks
 * of strings are ignored ({@code char(n)} padding).
 *
 * <pre>{@code
 * long end = upstream.currentLsn();           // after the workload stopped
 * ConsistencyChecker.awaitCheckpoint(downstream, "cf1", end, Duration.ofMinutes(2));
 * Comparison c = ConsistencyChecker.compare(upstream, downstream, "public.accounts");
 * assertThat(c.differences()).isEmpty();
 * }</pre>
 */
public final class ConsistencyChecker {

  private static final int MAX_REPORTED = 20;

  private ConsistencyChecker() {}

  /**
   * The outcome of one table's comparison.
   *
   * @param table           "schema.table"
   * @param upstreamRows    rows read upstream
   * @param downstreamRows  rows read downstream
   * @param differences     the first differences found (missing, extra or different rows, column sets)
   */
  public record Comparison(String table, long upstreamRows, long downstreamRows, List<String> differences) {

    public boolean equal() {
      return differences.isEmpty();
    }
  }

  /** The changefeed checkpoint the sink stored, 0 when none. */
  public static long checkpoint(PostgresServer downstream, String changefeedId) {
    try (Connection c = downstream.connect();
         PreparedStatement ps = c.prepareStatement("SELECT checkpoint_ts FROM sluice_checkpoint WHERE changefeed_id = ?")) {
      ps.setString(1, changefeedId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    } catch (SQLException e) {
      if ("42P01".equals(e.getSQLState())) {
        return 0;   // the sink has not created its checkpoint table yet
      }
      throw new IllegalStateException("cannot read the checkpoint of " + changefeedId + ": " + e.getMessage(), e);
    }
  }

  /** Waits until the changefeed checkpoint is at or past {@code ts}; returns it. */
  public static long awaitCheckpoint(PostgresServer downstream, String changefeedId, long ts, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long cp;
    while ((cp = checkpoint(downstream, changefeedId)) < ts) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("changefeed " + changefeedId + " checkpoint " + cp + " did not reach " + ts
            + " within " + timeout);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));   // poll interval of the wait, not a sleep-as-sync
    }
    return cp;
  }

  /** Compares {@code table} ("schema.table") on both servers, row by row in key order. */
  public static Comparison compare(PostgresServer upstream, PostgresServer downstream, String table) {
    try (Connection up = upstream.connect(); Connection down = downstream.connect()) {
      List<String> key = primaryKey(up, table);
      if (key.isEmpty()) {
        throw new IllegalArgumentException(table + " has no primary key upstream; it cannot be compared by key");
      }
      List<String> columns = columns(up, table);
      List<String> differences = new ArrayList<>();
      List<String> downColumns = columns(down, table);
      if (!new java.util.TreeSet<>(downColumns).equals(new java.util.TreeSet<>(columns))) {
        differences.add("columns differ: upstream " + columns + ", downstream " + downColumns);
        return new Comparison(table, 0, 0, differences);
      }
      String select = "SELECT " + String.join(", ", columns.stream().map(ConsistencyChecker::textOf).toList())
          + " FROM " + table + " ORDER BY " + String.join(", ", key.stream().map(k -> "\"" + k + "\"").toList());
      up.setAutoCommit(false);
      down.setAutoCommit(false);
      try (Statement su = up.createStatement(); Statement sd = down.createStatement()) {
        su.setFetchSize(2000);
        sd.setFetchSize(2000);
        try (ResultSet ru = su.executeQuery(select); ResultSet rd = sd.executeQuery(select)) {
          return merge(table, key, columns, ru, rd, differences);
        }
      } finally {
        up.rollback();
        down.rollback();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot compare " + table + ": " + e.getMessage(), e);
    }
  }

  private static Comparison merge(String table, List<String> key, List<String> columns, ResultSet ru, ResultSet rd,
      List<String> differences) throws SQLException {
    int[] keyIndex = key.stream().mapToInt(k -> columns.indexOf(k) + 1).toArray();
    long nu = 0;
    long nd = 0;
    boolean hu = ru.next();
    boolean hd = rd.next();
    while (hu || hd) {
      int order = !hu ? 1 : !hd ? -1 : compareKeys(ru, rd, keyIndex);
      if (order < 0) {
        report(differences, "missing downstream: " + row(ru, columns));
        nu++;
        hu = ru.next();
      } else if (order > 0) {
        report(differences, "extra downstream: " + row(rd, columns));
        nd++;
        hd = rd.next();
      } else {
        for (int i = 1; i <= columns.size(); i++) {
          if (!sameValue(ru.getString(i), rd.getString(i))) {
            report(differences, "differs at " + keyText(ru, keyIndex) + ": column " + columns.get(i - 1) + " upstream '"
                + ru.getString(i) + "', downstream '" + rd.getString(i) + "'");
          }
        }
        nu++;
        nd++;
        hu = ru.next();
        hd = rd.next();
      }
    }
    return new Comparison(table, nu, nd, List.copyOf(differences));
  }

  private static void report(List<String> differences, String what) {
    if (differences.size() < MAX_REPORTED) {
      differences.add(what);
    } else if (differences.size() == MAX_REPORTED) {
      differences.add("... (more differences not listed)");
    }
  }

  private static int compareKeys(ResultSet a, ResultSet b, int[] keyIndex) throws SQLException {
    for (int i : keyIndex) {
      String x = a.getString(i);
      String y = b.getString(i);
      int c = compareKeyValue(x, y);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  private static int compareKeyValue(String x, String y) {
    BigDecimal bx = number(x);
    BigDecimal by = number(y);
    if (bx != null && by != null) {
      return bx.compareTo(by);
    }
    return x.compareTo(y);   // text keys: both sides sorted by the same collation of the same server build
  }

  static boolean sameValue(String x, String y) {
    if (x == null || y == null) {
      return x == y;
    }
    if (x.equals(y)) {
      return true;
    }
    BigDecimal bx = number(x);
    BigDecimal by = number(y);
    if (bx != null && by != null) {
      return bx.compareTo(by) == 0;
    }
    return x.stripTrailing().equals(y.stripTrailing());
  }

  private static BigDecimal number(String s) {
    if (s == null || s.isEmpty() || !(Character.isDigit(s.charAt(0)) || s.charAt(0) == '-')) {
      return null;
    }
    try {
      return new BigDecimal(s);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static String keyText(ResultSet rs, int[] keyIndex) throws SQLException {
    StringBuilder sb = new StringBuilder("key (");
    for (int i = 0; i < keyIndex.length; i++) {
      sb.append(i == 0 ? "" : ", ").append(rs.getString(keyIndex[i]));
    }
    return sb.append(')').toString();
  }

  private static String row(ResultSet rs, List<String> columns) throws SQLException {
    StringBuilder sb = new StringBuilder("(");
    ResultSetMetaData md = rs.getMetaData();
    for (int i = 1; i <= md.getColumnCount(); i++) {
      sb.append(i == 1 ? "" : ", ").append(columns.get(i - 1)).append('=').append(rs.getString(i));
    }
    return sb.append(')').toString();
  }

  private static String textOf(String column) {
    return "\"" + column + "\"::text";
  }

  private static List<String> primaryKey(Connection c, String table) throws SQLException {
    String sql = "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid"
        + " AND a.attnum = ANY(i.indkey) WHERE i.indrelid = ?::regclass AND i.indisprimary"
        + " ORDER BY array_position(i.indkey, a.attnum)";
    return strings(c, sql, table);
  }

  private static List<String> columns(Connection c, String table) throws SQLException {
    String sql = "SELECT attname FROM pg_attribute WHERE attrelid = ?::regclass AND attnum > 0 AND NOT attisdropped"
        + " ORDER BY attnum";
    try {
      return strings(c, sql, table);
    } catch (SQLException e) {
      if ("42P01".equals(e.getSQLState())) {
        return List.of();   // the table does not exist on this side
      }
      throw e;
    }
  }

  private static List<String> strings(Connection c, String sql, String arg) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, arg);
      List<String> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
      return out;
    }
  }
}
