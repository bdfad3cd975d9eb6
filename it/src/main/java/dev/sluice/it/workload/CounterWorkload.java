package dev.sluice.it.workload;

import dev.sluice.it.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Counter increments: {@code public.counters(id int PRIMARY KEY, n bigint)}, each transaction adds 1
 * to one random counter. Every counter therefore passes through 1, 2, ..., n, one value per upstream
 * transaction, which a downstream audit trigger can check for loss and duplicates.
 *
 * <pre>{@code
 * CounterWorkload w = CounterWorkload.create(upstream, 20);
 * w.start(2);
 * }</pre>
 */
public final class CounterWorkload extends Workload {

  public static final String TABLE = "public.counters";
  private final int counters;

  private CounterWorkload(PostgresServer upstream, int counters) {
    super(upstream);
    this.counters = counters;
  }

  public static CounterWorkload create(PostgresServer upstream, int counters) {
    upstream.exec("CREATE TABLE IF NOT EXISTS " + TABLE + " (id int PRIMARY KEY, n bigint NOT NULL)",
        "INSERT INTO " + TABLE + " SELECT g, 0 FROM generate_series(0, " + (counters - 1) + ") g ON CONFLICT DO NOTHING");
    return new CounterWorkload(upstream, counters);
  }

  @Override
  protected boolean transaction(Connection c, int writer) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("UPDATE " + TABLE + " SET n = n + 1 WHERE id = ?")) {
      ps.setInt(1, ThreadLocalRandom.current().nextInt(counters));
      return ps.executeUpdate() == 1;
    }
  }
}
