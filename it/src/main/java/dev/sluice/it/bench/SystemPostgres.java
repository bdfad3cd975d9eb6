package dev.sluice.it.bench;

import dev.sluice.api.CommitTs;
import dev.sluice.it.LoopbackPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL cluster of the machine's own installation ({@code /usr/lib/postgresql/<major>/bin}, the
 * server package {@code scripts/install-test-deps.sh} brings with pgbench), for benchmarks that compare
 * with its client tools: {@code pg_dump} refuses a server newer than itself, so the embedded PostgreSQL 17
 * cannot be dumped with the system's pg_dump. Runs as the {@code postgres} user when the harness is root
 * (the server refuses root), in a directory of its own, on a free loopback port; fsync off.
 *
 * <pre>{@code
 * try (SystemPostgres up = SystemPostgres.start(Map.of("wal_level", "logical"))) {
 *   up.exec("CREATE TABLE t (id int PRIMARY KEY)");
 *   Path pgDump = up.bin("pg_dump");
 * }
 * }</pre>
 */
public final class SystemPostgres implements AutoCloseable {

  private final Path bin;
  private final Path dir;
  private final int port;

  private SystemPostgres(Path bin, Path dir, int port) {
    this.bin = bin;
    this.dir = dir;
    this.port = port;
  }

  /** The newest installed major's bin directory, or null when the server is not installed. */
  public static Path installation() {
    Path root = Path.of("/usr/lib/postgresql");
    if (!Files.isDirectory(root)) {
      return null;
    }
    try (var majors = Files.list(root)) {
      return majors.filter(p -> Files.isExecutable(p.resolve("bin/postgres")))
          .max(Comparator.comparingInt(p -> Integer.parseInt(p.getFileName().toString().replaceAll("\\D", "0"))))
          .map(p -> p.resolve("bin")).orElse(null);
    } catch (IOException e) {
      return null;
    }
  }

  /** A new cluster with {@code settings} in its postgresql.conf (fsync and full_page_writes off beside them). */
  public static SystemPostgres start(Map<String, String> settings) throws IOException {
    Path bin = installation();
    if (bin == null) {
      throw new IllegalStateException("no PostgreSQL server under /usr/lib/postgresql: run scripts/install-test-deps.sh"
          + " (postgresql-contrib brings it)");
    }
    Path dir = Files.createTempDirectory(Path.of("/tmp"), "syspg");   // short: it holds the socket
    Path data = dir.resolve("data");
    ownByServer(dir);
    run(bin, List.of("initdb", "-D", data.toString(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"));
    StringBuilder conf = new StringBuilder("\nfsync = off\nfull_page_writes = off\nmax_connections = 200\n");
    settings.forEach((k, v) -> conf.append(k).append(" = '").append(v).append("'\n"));
    Files.writeString(data.resolve("postgresql.conf"), conf.toString(), StandardCharsets.UTF_8,
        java.nio.file.StandardOpenOption.APPEND);
    int port = LoopbackPorts.free();
    run(bin, List.of("pg_ctl", "-D", data.toString(), "-l", dir.resolve("server.log").toString(), "-w", "-t", "120",
        "-o", "-p " + port + " -c listen_addresses=127.0.0.1 -k " + dir, "start"));
    return new SystemPostgres(bin, dir, port);
  }

  private static void ownByServer(Path dir) throws IOException {
    if (isRoot()) {
      exec(List.of("chown", "postgres:postgres", dir.toString()));
    }
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  /** Runs a tool of the installation as the server's user. */
  private static void run(Path bin, List<String> tool) {
    List<String> cmd = new ArrayList<>();
    if (isRoot()) {
      cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    cmd.add(bin.resolve(tool.get(0)).toString());
    cmd.addAll(tool.subList(1, tool.size()));
    exec(cmd);
  }

  private static void exec(List<String> cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", cmd) + " failed:\n" + out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A client tool of the same installation (pg_dump, psql). */
  public Path bin(String tool) {
    return bin.resolve(tool);
  }

  public int port() {
    return port;
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
  }

  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  public Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), "postgres", null);
  }

  public void exec(String... sql) {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      for (String q : sql) {
        s.execute(q);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("SQL failed: " + e.getMessage(), e);
    }
  }

  public long queryLong(String database, String sql) {
    try (Connection c = DriverManager.getConnection(jdbcUrl(database), "postgres", null);
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getLong(1) : 0;
    } catch (SQLException e) {
      throw new IllegalStateException("SQL failed: " + sql + ": " + e.getMessage(), e);
    }
  }

  public long currentLsn() {
    try (Connection c = connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_current_wal_insert_lsn()::text")) {
      rs.next();
      return CommitTs.parseLsn(rs.getString(1)).value();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    try {
      run(bin, List.of("pg_ctl", "-D", dir.resolve("data").toString(), "-m", "immediate", "-w", "stop"));
    } finally {
      try (var paths = Files.walk(dir)) {
        paths.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      } catch (IOException ignored) {
        // best effort: a temp directory
      }
    }
  }
}
