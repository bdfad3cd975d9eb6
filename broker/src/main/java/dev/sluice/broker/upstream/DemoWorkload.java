package dev.sluice.broker.upstream;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo: schema {@code demo} (customers, orders with an enum status and jsonb items) and, when
 * started, a steady mix of transactions against it: new orders (some with a new customer), status and
 * amount updates, deletes of old orders, and every {@code ddlInterval} a schema change of
 * {@code demo.orders} (alternately {@code ADD COLUMN gift_note text} and its {@code DROP}, so a long run
 * never approaches PostgreSQL's column limit quickly).
 *
 * <pre>{@code
 * DemoWorkload.createSchema(connection);
 * try (DemoWorkload w = DemoWorkload.start(upstream, DemoWorkloadConfig.defaults())) { ... }
 * }</pre>
 */
public final class DemoWorkload implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DemoWorkload.class);

  static final String[] SCHEMA = {
      "CREATE SCHEMA IF NOT EXISTS demo",
      "DO $$ BEGIN CREATE TYPE demo.order_status AS ENUM ('new', 'paid', 'shipped', 'cancelled');"
          + " EXCEPTION WHEN duplicate_object THEN NULL; END $$",
      "CREATE TABLE IF NOT EXISTS demo.customers (id bigserial PRIMARY KEY, name text NOT NULL, email text,"
          + " created_at timestamptz NOT NULL DEFAULT now())",
      "CREATE TABLE IF NOT EXISTS demo.orders (id bigserial PRIMARY KEY,"
          + " customer_id bigint NOT NULL REFERENCES demo.customers (id), amount numeric(12,2) NOT NULL,"
          + " status demo.order_status NOT NULL DEFAULT 'new', items jsonb, created_at timestamptz NOT NULL DEFAULT now())",
      "INSERT INTO demo.customers (name, email) SELECT 'customer ' || g, 'c' || g || '@example.com'"
          + " FROM generate_series(1, 10) g WHERE NOT EXISTS (SELECT 1 FROM demo.customers)"};

  private static final String[] STATUSES = {"paid", "shipped", "cancelled"};

  private final UpstreamConfig upstream;
  private final DemoWorkloadConfig config;
  private final Random random;
  private final ScheduledExecutorService timer;
  private final AtomicLong committed = new AtomicLong();
  private final AtomicLong schemaChanges = new AtomicLong();
  private Connection connection;
  private long nextDdlNanos;
  private boolean failing;

  private DemoWorkload(UpstreamConfig upstream, DemoWorkloadConfig config) {
    this.upstream = upstream;
    this.config = config;
    this.random = new Random(config.seed());
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sluice-demo-workload");
      t.setDaemon(true);
      return t;
    });
  }

  /** Creates the demo schema when missing (idempotent). */
  public static void createSchema(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (String sql : SCHEMA) {
        s.execute(sql);
      }
    }
  }

  /** Starts writing at the configured pace on a thread of its own. */
  public static DemoWorkload start(UpstreamConfig upstream, DemoWorkloadConfig config) {
    DemoWorkload w = new DemoWorkload(upstream, config);
    w.nextDdlNanos = System.nanoTime() + config.ddlInterval().toNanos();
    long periodMicros = Math.max(1, (long) (1_000_000 / config.txnsPerSecond()));
    w.timer.scheduleAtFixedRate(w::tick, periodMicros, periodMicros, TimeUnit.MICROSECONDS);
    log.atInfo().addKeyValue("txnsPerSecond", config.txnsPerSecond()).addKeyValue("ddlInterval", config.ddlInterval())
        .log("demo workload started");
    return w;
  }

  /** Transactions committed so far. */
  public long committed() {
    return committed.get();
  }

  /** Schema changes made so far. */
  public long schemaChanges() {
    return schemaChanges.get();
  }

  private void tick() {
    try {
      if (connection == null) {
        connection = DriverManager.getConnection(upstream.jdbcUrl(), upstream.user(), upstream.password());
        connection.setAutoCommit(false);
      }
      if (System.nanoTime() >= nextDdlNanos) {
        changeSchema();
        nextDdlNanos = System.nanoTime() + config.ddlInterval().toNanos();
      } else {
        writeOne();
      }
      connection.commit();
      committed.incrementAndGet();
      if (failing) {
        failing = false;
        log.atInfo().log("demo workload writes again");
      }
    } catch (SQLException e) {
      if (!failing) {
        failing = true;
        log.atWarn().addKeyValue("sqlState", e.getSQLState()).log("demo workload failed, retrying: " + e.getMessage());
      }
      closeConnection();
    }
  }

  private void writeOne() throws SQLException {
    int pick = random.nextInt(100);
    if (pick < 40) {
      insertOrder(random.nextInt(10) == 0 ? insertCustomer() : 0);
    } else if (pick < 75) {
      try (PreparedStatement ps = connection.prepareStatement("UPDATE demo.orders SET status = ?::demo.order_status,"
          + " amount = amount + 1 WHERE id = (SELECT id FROM demo.orders ORDER BY id DESC OFFSET ? LIMIT 1)")) {
        ps.setString(1, STATUSES[random.nextInt(STATUSES.length)]);
        ps.setInt(2, random.nextInt(50));
        ps.executeUpdate();
      }
    } else if (pick < 90) {
      try (Statement s = connection.createStatement()) {
        s.executeUpdate("DELETE FROM demo.orders WHERE id = (SELECT min(id) FROM demo.orders)"
            + " AND (SELECT count(*) FROM demo.orders) > 200");
      }
    } else {
      insertCustomer();
    }
  }

  private long insertCustomer() throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(
        "INSERT INTO demo.customers (name, email) VALUES (?, ?) RETURNING id")) {
      int n = random.nextInt(1_000_000);
      ps.setString(1, "customer " + n);
      ps.setString(2, "c" + n + "@example.com");
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private void insertOrder(long customerId) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("INSERT INTO demo.orders (customer_id, amount, items)"
        + " VALUES (COALESCE(NULLIF(?, 0), (SELECT id FROM demo.customers ORDER BY random() LIMIT 1)), ?, ?::jsonb)")) {
      ps.setLong(1, customerId);
      ps.setBigDecimal(2, java.math.BigDecimal.valueOf(random.nextInt(100_000), 2));
      ps.setString(3, "[{\"sku\": \"sku-" + random.nextInt(500) + "\", \"qty\": " + (1 + random.nextInt(5)) + "}]");
      ps.executeUpdate();
    }
  }

  private void changeSchema() throws SQLException {
    boolean hasColumn;
    try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM"
        + " information_schema.columns WHERE table_schema = 'demo' AND table_name = 'orders'"
        + " AND column_name = 'gift_note'")) {
      rs.next();
      hasColumn = rs.getInt(1) > 0;
    }
    try (Statement s = connection.createStatement()) {
      s.execute(hasColumn ? "ALTER TABLE demo.orders DROP COLUMN gift_note"
          : "ALTER TABLE demo.orders ADD COLUMN gift_note text");
    }
    schemaChanges.incrementAndGet();
  }

  private void closeConnection() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // broken already
      }
      connection = null;
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    closeConnection();
    log.atInfo().addKeyValue("committed", committed.get()).addKeyValue("schemaChanges", schemaChanges.get())
        .log("demo workload stopped");
  }
}
