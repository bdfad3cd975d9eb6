package dev.sluice.broker.capture;

import dev.sluice.api.CommitTs;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.Assumptions;
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
import java.util.Optional;
import java.util.UUID;

/**
 * A real PostgreSQL for capture tests, {@code wal_level = logical} unless told otherwise: the embedded 17
 * (zonky binaries), or with {@link #startSystem} the system's own server of another major version.
 */
public final class TestPostgres implements AutoCloseable {

  /** The embedded server's major version. */
  static final int EMBEDDED_MAJOR = 17;

  private final EmbeddedPostgres pg;          // null for a system server
  private final SystemPostgres system;        // null for the embedded server

  private TestPostgres(EmbeddedPostgres pg, SystemPostgres system) {
    this.pg = pg;
    this.system = system;
  }

  /**
   * The system's server of a major other than the embedded one (aborts the calling test when none is
   * installed: {@code scripts/install-test-deps.sh} brings Debian's with pgbench).
   */
  static TestPostgres startOtherMajor() {
    Optional<Path> home = SystemPostgres.home(EMBEDDED_MAJOR);
    Assumptions.assumeTrue(home.isPresent(), "no PostgreSQL server other than " + EMBEDDED_MAJOR
        + " under /usr/lib/postgresql: run scripts/install-test-deps.sh");
    TestPostgres pg = startSystem(home.get());
    long major = pg.queryLong("SELECT current_setting('server_version_num')::int / 10000");
    if (major != Long.parseLong(home.get().getFileName().toString())) {
      pg.close();
      throw new IllegalStateException(home.get() + " started PostgreSQL " + major);
    }
    return pg;
  }

  /** A server from the system's binaries at {@code home} (e.g. {@code /usr/lib/postgresql/15}). */
  static TestPostgres startSystem(Path home) {
    return new TestPostgres(null, SystemPostgres.start(home, Map.of()));
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
      return new TestPostgres(b.start(), null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return pg != null ? pg.getPort() : system.port();
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port() + "/postgres";
  }

  /** The same server through its Unix-domain socket ({@link dev.sluice.broker.upstream.UnixSocketFactory}). */
  public String socketJdbcUrl() {
    String dirs = queryString("SHOW unix_socket_directories");
    return dev.sluice.broker.upstream.UpstreamConfig.viaUnixSocket(jdbcUrl(), Path.of(dirs.split(",")[0].trim()));
  }

  public Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), "postgres", null);
  }

  Connection connect(String user, String password) throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), user, password);
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
    if (system != null) {
      system.close();
      return;
    }
    try {
      pg.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
