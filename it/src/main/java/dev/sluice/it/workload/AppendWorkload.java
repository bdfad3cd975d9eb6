package dev.sluice.it.workload;

import dev.sluice.it.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Appends one row per transaction to {@code table (id bigint PRIMARY KEY, v bigint)}, ids 1, 2, 3, ...
 * and {@code v = 7 * id}, naming only those two columns, so it keeps working while other columns are
 * added with defaults (the DDL scenario).
 *
 * <pre>{@code
 * AppendWorkload w = AppendWorkload.into(upstream, "public.ddl_t");
 * w.paced(200).start(1);
 * }</pre>
 */
public final class AppendWorkload extends Workload {

  private final String table;
  private final AtomicLong nextId = new AtomicLong();

  private AppendWorkload(PostgresServer upstream, String table) {
    super(upstream);
    this.table = table;
  }

  /** Appends to an existing table. */
  public static AppendWorkload into(PostgresServer upstream, String table) {
    return new AppendWorkload(upstream, table);
  }

  @Override
  protected boolean transaction(Connection c, int writer) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (id, v) VALUES (?, ?)")) {
      long id = nextId.incrementAndGet();
      ps.setLong(1, id);
      ps.setLong(2, id * 7);
      return ps.executeUpdate() == 1;
    }
  }
}
