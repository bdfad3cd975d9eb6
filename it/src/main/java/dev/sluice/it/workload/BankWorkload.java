package dev.sluice.it.workload;

import dev.sluice.it.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Bank transfers: {@code public.accounts(id int PRIMARY KEY, balance bigint)} starting at
 * {@link #INITIAL_BALANCE} each; a transaction moves a random amount between two accounts (updated in
 * key order, so concurrent writers do not deadlock), so the sum of balances never changes.
 *
 * <pre>{@code
 * BankWorkload w = BankWorkload.create(upstream, 100);
 * long total = w.total();
 * w.start(4);
 * }</pre>
 */
public final class BankWorkload extends Workload {

  public static final String TABLE = "public.accounts";
  public static final long INITIAL_BALANCE = 1_000;
  private final int accounts;

  private BankWorkload(PostgresServer upstream, int accounts) {
    super(upstream);
    this.accounts = accounts;
  }

  public static BankWorkload create(PostgresServer upstream, int accounts) {
    upstream.exec("CREATE TABLE IF NOT EXISTS " + TABLE + " (id int PRIMARY KEY, balance bigint NOT NULL)",
        "INSERT INTO " + TABLE + " SELECT g, " + INITIAL_BALANCE + " FROM generate_series(0, " + (accounts - 1)
            + ") g ON CONFLICT DO NOTHING");
    return new BankWorkload(upstream, accounts);
  }

  /** The invariant: the sum of all balances. */
  public long total() {
    return accounts * INITIAL_BALANCE;
  }

  @Override
  protected boolean transaction(Connection c, int writer) throws SQLException {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    int a = r.nextInt(accounts);
    int b = r.nextInt(accounts);
    if (a == b) {
      return false;
    }
    long amount = 1 + r.nextInt(100);
    int first = Math.min(a, b);
    int second = Math.max(a, b);
    try (PreparedStatement ps = c.prepareStatement("UPDATE " + TABLE + " SET balance = balance + ? WHERE id = ?")) {
      ps.setLong(1, first == a ? -amount : amount);
      ps.setInt(2, first);
      ps.executeUpdate();
      ps.setLong(1, second == a ? -amount : amount);
      ps.setInt(2, second);
      ps.executeUpdate();
    }
    return true;
  }
}
