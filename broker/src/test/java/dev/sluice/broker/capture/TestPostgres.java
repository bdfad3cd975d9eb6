package dev.sluice.broker.capture;

import dev.sluice.api.CommitTs;
import dev.sluice.testing.containers.PostgresContainer;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import org.testcontainers.containers.Network;

/**
 * A real PostgreSQL for capture tests, {@code wal_level = logical} unless told otherwise: the embedded 17
 * (zonky binaries), or with {@link #startOtherMajor} PostgreSQL 15 in a container on a network of its
 * own, which the capture reaches as another host through the port the container publishes on 127.0.0.1.
 */
public final class TestPostgres implements AutoCloseable {

  /** The embedded server's major version. */
  static final int EMBEDDED_MAJOR = 17;

  private final EmbeddedPostgres pg;          // null for a container
  private final Network network;              // the container's; null for the embedded server
  private final PostgresContainer container;  // null for the embedded server

  private TestPostgres(EmbeddedPostgres pg, Network network, PostgresContainer container) {
    this.pg = pg;
    this.network = network;
    this.container = container;
  }

  /**
   * PostgreSQL {@value PostgresContainer#MAJOR} (Debian's, image {@code it/docker/postgres}) in a container
   * on a network this call creates; {@link #close()} removes both. Without a Docker engine or the image
   * this fails with the command that brings them ({@code scripts/install-test-deps.sh}).
   */
  static TestPostgres startOtherMajor() {
    Network network = Network.newNetwork();
    PostgresContainer container = new PostgresContainer(network, "upstream");
    try {
      container.start();
    } catch (RuntimeException e) {
      container.close();
      network.close();
      throw e;
    }
    TestPostgres pg = new TestPostgres(null, network, container);
    long major = pg.queryLong("SELECT current_setting('server_version_num')::int / 10000");
    if (major != PostgresContainer.MAJOR) {
      pg.close();
      throw new IllegalStateException(container.image().tag() + " runs PostgreSQL " + major + ", not "
          + PostgresContainer.MAJOR);
    }
    return pg;
  }

  public static TestPostgres start() {
    return start(Map.of());
  }

  /** Starts a fresh server; {@code settings} override the defaults ({@code wal_level} etc.). */
  public static TestPostgres start(Map<String, String> settings) {
    return start(settings, 0);
  }

  public static TestPostgres start(Map<String, String> settings, int port) {
    try {
      EmbeddedPostgres.Builder b = EmbeddedPostgres.builder()
          .setOverrideWorkingDirectory(new File("target/embedded-pg"))
          .setDataDirectory(Path.of("target", "pgdata-" + UUID.randomUUID()))
          .setCleanDataDirectory(true)
          .setServerConfig("wal_level", "logical")
          .setServerConfig("max_replication_slots", "10")
          .setServerConfig("max_wal_senders", "10")
          .setServerConfig("fsync", "off")
          .setServerConfig("synchronous_commit", "off");
      if (port > 0) {
        b.setPort(port);
      }
      settings.forEach(b::setServerConfig);
      return new TestPostgres(b.start(), null, null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return pg != null ? pg.getPort() : container.hostPort(PostgresContainer.PORT);
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port() + "/postgres";
  }

  /** The same server through its Unix-domain socket ({@link dev.sluice.broker.upstream.UnixSocketFactory}). */
  public String socketJdbcUrl() {
    if (container != null) {
      throw new UnsupportedOperationException("the socket of a server in a container is not on this host");
    }
    String dirs = queryString("SHOW unix_socket_directories");
    return dev.sluice.broker.upstream.UpstreamConfig.viaUnixSocket(jdbcUrl(), Path.of(dirs.split(",")[0].trim()));
  }

  public Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), "postgres", null);
  }

  Connection connect(String user, String password) throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), user, password);
  }

  /**
   * Sends {@code sql} as one simple query, as {@code psql -c} and many migration tools do: several
   * statements in it run as one implicit transaction, and {@code current_query()} is the whole string
   * (PgJDBC's default extended protocol would split it). Returns the WAL position after it.
   */
  public long simpleQuery(String sql) {
    try (Connection c = DriverManager.getConnection(jdbcUrl() + "?preferQueryMode=simple", "postgres", null);
         Statement s = c.createStatement()) {
      s.execute(sql);
      return currentLsn(c);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Runs each statement in autocommit. */
  public void exec(String... sql) {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      for (String q : sql) {
        s.execute(q);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Runs the statements in one transaction and returns the WAL position after its commit. */
  public long txn(String... sql) {
    try (Connection c = connect()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        for (String q : sql) {
          s.execute(q);
        }
      }
      c.commit();
      return currentLsn(c);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * {@code pg_current_wal_insert_lsn()}: every transaction committed so far has a commit ts below it
   * (the write position may lag behind with synchronous_commit = off).
   */
  public long currentLsn() {
    try (Connection c = connect()) {
      return currentLsn(c);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  public long queryLong(String sql) {
    try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  String queryString(String sql) {
    try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  public long oid(String qualifiedTable) {
    return queryLong("SELECT '" + qualifiedTable + "'::regclass::oid");
  }

  private static long currentLsn(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_current_wal_insert_lsn()::text")) {
      rs.next();
      return CommitTs.parseLsn(rs.getString(1)).value();
    }
  }

  @Override
  public void close() {
    if (container != null) {
      try {
        container.close();
      } finally {
        network.close();
      }
      return;
    }
    try {
      pg.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
