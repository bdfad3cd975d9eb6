package dev.sluice.broker.capture;

import dev.sluice.broker.upstream.UpstreamConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;

/**
 * Opens connections to the upstream: normal ones (catalog reads, heartbeat) and the logical
 * replication connection.
 *
 * <pre>{@code
 * UpstreamConnector up = new UpstreamConnector(UpstreamConfig.external(url, "sluice", pw));
 * try (Connection c = up.openCatalog()) { ... }
 * }</pre>
 */
final class UpstreamConnector {

  private static final String CONNECT_TIMEOUT_SECONDS = "5";

  private final UpstreamConfig config;

  UpstreamConnector(UpstreamConfig config) {
    if (config.jdbcUrl() == null) {
      throw new IllegalArgumentException("capture needs a resolved upstream JDBC URL; start the embedded upstream first");
    }
    this.config = config;
  }

  String displayUrl() {
    return config.displayUrl();
  }

  /** A normal connection with {@code search_path = pg_catalog}, so type names come out schema-qualified. */
  Connection openCatalog() throws SQLException {
    Connection c = DriverManager.getConnection(config.jdbcUrl(), properties(false, "sluice-capture-catalog"));
    try (Statement s = c.createStatement()) {
      s.execute("SET search_path = pg_catalog, pg_temp");
    }
    return c;
  }

  /** A normal connection for the heartbeat. */
  Connection openPlain(String applicationName) throws SQLException {
    return DriverManager.getConnection(config.jdbcUrl(), properties(false, applicationName));
  }

  /**
   * A normal connection whose results always come in the protocol's text format (no binary transfer), so
   * each value is its type's output, as pgoutput sends it: the snapshot readers.
   */
  Connection openTextResults(String applicationName) throws SQLException {
    Properties p = properties(false, applicationName);
    PGProperty.BINARY_TRANSFER.set(p, "false");
    return DriverManager.getConnection(config.jdbcUrl(), p);
  }

  /** A logical replication connection ({@code replication=database}, simple query mode). */
  PGConnection openReplication() throws SQLException {
    Connection c = DriverManager.getConnection(config.jdbcUrl(), properties(true, "sluice-capture"));
    return c.unwrap(PGConnection.class);
  }

  private Properties properties(boolean replication, String applicationName) {
    Properties p = new Properties();
    if (config.user() != null) {
      PGProperty.USER.set(p, config.user());
    }
    if (config.password() != null) {
      PGProperty.PASSWORD.set(p, config.password());
    }
    PGProperty.CONNECT_TIMEOUT.set(p, CONNECT_TIMEOUT_SECONDS);
    PGProperty.APPLICATION_NAME.set(p, applicationName);
    if (replication) {
      PGProperty.ASSUME_MIN_SERVER_VERSION.set(p, "9.4");
      PGProperty.REPLICATION.set(p, "database");
      PGProperty.PREFER_QUERY_MODE.set(p, "simple");
    }
    return p;
  }
}
