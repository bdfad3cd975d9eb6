package dev.sluice.it.workload;

import dev.sluice.it.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Inserts, updates and deletes (5:3:2) over {@code tables} tables {@code public.steady_<i>(id bigint
 * PRIMARY KEY, v bigint, note text)}, 1-5 rows per transaction, keys in a small range so updates and
 * deletes hit existing rows.
 *
 * <pre>{@code
 * SteadyWorkload w = SteadyWorkload.create(upstream, "steady", 3, 2_000);
 * w.start(2);
 * }</pre>
 */
public final class SteadyWorkload extends Workload {

  private final String prefix;
  private final int tables;
  private final int keys;
  private volatile String padding = "";

  private SteadyWorkload(PostgresServer upstream, String prefix, int tables, int keys) {
    super(upstream);
    this.prefix = prefix;
    this.tables = tables;
    this.keys = keys;
  }

  /** Creates the tables (if missing) and returns the workload, not started. */
  public static SteadyWorkload create(PostgresServer upstream, String prefix, int tables, int keys) {
    for (int i = 0; i < tables; i++) {
      upstream.exec("CREATE TABLE IF NOT EXISTS public." + prefix + "_" + i
          + " (id bigint PRIMARY KEY, v bigint NOT NULL, note text)");
    }
    return new SteadyWorkload(upstream, prefix, tables, keys);
  }

  /** Pads every note to about {@code bytes} bytes (to move more data per row). */
  public SteadyWorkload withNoteBytes(int bytes) {
    padding = "x".repeat(Math.max(0, bytes - 24));
    return this;
  }

  public String table(int i) {
    return "public." + prefix + "_" + i;
  }

  public int tables() {
    return tables;
  }

  @Override
  protected boolean transaction(Connection c, int writer) throws SQLException {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    String table = table(r.nextInt(tables));
    int rows = 1 + r.nextInt(5);
    for (int i = 0; i < rows; i++) {
      long id = r.nextInt(keys);
      int pick = r.nextInt(10);
      String sql = pick < 5
          ? "INSERT INTO " + table + " (id, v, note) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v,"
              + " note = EXCLUDED.note"
          : pick < 8 ? "UPDATE " + table + " SET v = ?, note = ? WHERE id = ?" : "DELETE FROM " + table + " WHERE id = ?";
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        long v = r.nextLong();
        String note = "w" + writer + "-" + Long.toHexString(v) + padding;
        if (pick < 5) {
          ps.setLong(1, id);
          ps.setLong(2, v);
          ps.setString(3, note);
        } else if (pick < 8) {
          ps.setLong(1, v);
          ps.setString(2, note);
          ps.setLong(3, id);
        } else {
          ps.setLong(1, id);
        }
        ps.executeUpdate();
      }
    }
    return true;
  }
}
