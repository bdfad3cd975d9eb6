package dev.sluice.broker.capture;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits a tiny transaction on the upstream every interval ({@code pg_logical_emit_message(true,
 * 'sluice_heartbeat', '')}) through its own connection. Each one arrives through the slot as a
 * transaction with an exact commit ts, so the resolved ts keeps advancing while no user transaction
 * commits. The heartbeat writes a few bytes of WAL and no table rows.
 *
 * <pre>{@code
 * try (Heartbeat hb = Heartbeat.start(connectionFactory, Duration.ofMillis(200))) { ... }
 * }</pre>
 */
final class Heartbeat implements AutoCloseable {

  static final String PREFIX = "sluice_heartbeat";
  private static final Logger log = LoggerFactory.getLogger(Heartbeat.class);

  /** Opens a normal (non-replication) connection to the upstream. */
  @FunctionalInterface
  interface ConnectionFactory {
    Connection open() throws SQLException;
  }

  private final ConnectionFactory factory;
  private final ScheduledExecutorService timer;
  private Connection connection;
  private boolean failing;

  private Heartbeat(ConnectionFactory factory, String slot) {
    this.factory = factory;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sluice-heartbeat-" + slot);
      t.setDaemon(true);
      return t;
    });
  }

  static Heartbeat start(ConnectionFactory factory, Duration interval, String slot) {
    Heartbeat hb = new Heartbeat(factory, slot);
    long nanos = interval.toNanos();
    hb.timer.scheduleWithFixedDelay(hb::beat, nanos, nanos, TimeUnit.NANOSECONDS);
    return hb;
  }

  private void beat() {
    try {
      if (connection == null || connection.isClosed()) {
        connection = factory.open();
        connection.setAutoCommit(true);
      }
      try (Statement s = connection.createStatement()) {
        s.execute("SELECT pg_catalog.pg_logical_emit_message(true, '" + PREFIX + "', '')");
      }
      if (failing) {
        failing = false;
        log.atInfo().log("heartbeat works again");
      }
    } catch (SQLException e) {
      if (!failing) { // once per failure streak: the capture's status carries the connection state
        failing = true;
        log.atWarn().addKeyValue("sqlState", e.getSQLState()).log("heartbeat failed: " + e.getMessage()
            + "; the resolved ts advances only with user transactions until it works again");
      }
      closeConnection();
    }
  }

  private void closeConnection() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // closing a broken connection: nothing to do
      }
      connection = null;
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    closeConnection();
  }
}
