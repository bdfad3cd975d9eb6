package dev.sluice.it.workload;

import dev.sluice.it.PostgresServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issue #16's schema: accounts (optionally with an enum column and infinity timestamps), transfers
 * referencing them ({@code ON DELETE CASCADE}), a keyless history (inserts only, as pgbench's) and a
 * keyless REPLICA IDENTITY FULL tags table with equal rows that is updated and deleted. Each transaction
 * opens an account with its first transfer, history line and two equal tags, moves an older account's
 * balance, and every tenth closes an account (its transfers go by cascade). One writer.
 *
 * <pre>{@code
 * LedgerWorkload w = LedgerWorkload.create(upstream, "app", false);
 * w.paced(50).start(1);
 * }</pre>
 */
public final class LedgerWorkload extends Workload {

  private final String schema;
  private final boolean userTypesAndInfinity;
  private final AtomicLong next = new AtomicLong(1);

  private LedgerWorkload(PostgresServer upstream, String schema, boolean userTypesAndInfinity) {
    super(upstream);
    this.schema = schema;
    this.userTypesAndInfinity = userTypesAndInfinity;
  }

  /** Creates the schema's tables (one transaction) and the workload. */
  public static LedgerWorkload create(PostgresServer upstream, String schema, boolean userTypesAndInfinity) {
    LedgerWorkload w = new LedgerWorkload(upstream, schema, userTypesAndInfinity);
    try (Connection c = upstream.connect(); Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      for (String sql : w.ddl()) {
        s.execute(sql);
      }
      c.commit();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create the ledger schema: " + e.getMessage(), e);
    }
    return w;
  }

  private List<String> ddl() {
    List<String> out = new ArrayList<>();
    out.add("CREATE SCHEMA IF NOT EXISTS " + schema);
    if (userTypesAndInfinity) {
      out.add("CREATE TYPE " + schema + ".mood AS ENUM ('calm', 'busy', 'gone')");
    }
    out.add("CREATE TABLE " + schema + ".accounts (id int PRIMARY KEY, owner text NOT NULL, balance bigint NOT NULL,"
        + (userTypesAndInfinity ? " mood " + schema + ".mood NOT NULL DEFAULT 'calm'," : "")
        + " valid_until timestamptz NOT NULL)");
    out.add("CREATE TABLE " + schema + ".transfers (id bigserial PRIMARY KEY, account int NOT NULL REFERENCES "
        + schema + ".accounts (id) ON DELETE CASCADE, amount bigint NOT NULL, at timestamptz NOT NULL DEFAULT now())");
    out.add("CREATE TABLE " + schema + ".history (account int, delta bigint, note text)");
    out.add("CREATE TABLE " + schema + ".tags (account int, tag text)");
    out.add("ALTER TABLE " + schema + ".tags REPLICA IDENTITY FULL");
    return out;
  }

  @Override
  protected boolean transaction(Connection c, int writer) throws SQLException {
    long i = next.getAndIncrement();
    String validUntil = userTypesAndInfinity && i % 5 == 0 ? "'infinity'" : "TIMESTAMPTZ '2030-01-01 00:00:00+00'";
    try (Statement s = c.createStatement()) {
      s.execute("INSERT INTO " + schema + ".accounts (id, owner, balance, valid_until) VALUES (" + i + ", 'owner " + i
          + "', 100, " + validUntil + ")");
      s.execute("INSERT INTO " + schema + ".transfers (account, amount, at) VALUES (" + i + ", 100, TIMESTAMPTZ"
          + " '2024-01-01 00:00:00+00' + interval '" + i + " seconds')");
      s.execute("INSERT INTO " + schema + ".history VALUES (" + i + ", 100, 'opened')");
      s.execute("INSERT INTO " + schema + ".tags VALUES (" + i + ", 'new'), (" + i + ", 'new')");
      if (i > 3) {
        s.execute("UPDATE " + schema + ".accounts SET balance = balance - 1" + (userTypesAndInfinity ? ", mood = 'busy'"
            : "") + " WHERE id = " + (i - 3));
        s.execute("INSERT INTO " + schema + ".transfers (account, amount, at) VALUES (" + (i - 3) + ", -1, TIMESTAMPTZ"
            + " '2024-06-01 00:00:00+00')");
        s.execute("UPDATE " + schema + ".tags SET tag = 'old' WHERE ctid = (SELECT min(ctid) FROM " + schema
            + ".tags WHERE account = " + (i - 3) + ")");
      }
      if (i % 10 == 0) {
        s.execute("DELETE FROM " + schema + ".accounts WHERE id = " + (i - 9));   // its transfers go by cascade
        s.execute("DELETE FROM " + schema + ".tags WHERE account = " + (i - 9) + " AND tag = 'new'");
      }
    }
    return true;
  }
}
