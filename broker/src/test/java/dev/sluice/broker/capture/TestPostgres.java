package dev.sluice.broker.capture;

import dev.sluice.api.CommitTs;
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

/** A real PostgreSQL 17 (zonky binaries) for capture tests; {@code wal_level = logical} unless told otherwise. */
public final class TestPostgres implements AutoCloseable {

  private final EmbeddedPostgres pg;

  private TestPostgres(EmbeddedPostgres pg) {
    this.pg = pg;
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
      return new TestPostgres(b.start());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return pg.getPort();
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres";
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
    try {
      pg.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
