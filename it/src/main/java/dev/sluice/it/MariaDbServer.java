package dev.sluice.it;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A real MariaDB server as a sink target: {@code mariadb-install-db} into a fresh datadir under the temp
 * directory, then {@code mariadbd --no-defaults} on a free loopback port, with the database {@code app};
 * root over loopback TCP without a password. {@code scripts/install-test-deps.sh} installs it.
 *
 * <pre>{@code
 * try (MariaDbServer maria = MariaDbServer.start()) {
 *   String sink = maria.jdbcUrl() + "?user=root";
 * }
 * }</pre>
 */
public final class MariaDbServer implements AutoCloseable {

  private static final String USER = "root";

  private final int port;
  private final Process process;

  private MariaDbServer(int port, Process process) {
    this.port = port;
    this.process = process;
  }

  public static MariaDbServer start() {
    String mariadbd = find("mariadbd", "/usr/sbin/mariadbd");
    String installDb = find("mariadb-install-db", "/usr/bin/mariadb-install-db");
    Path dir = Path.of("/tmp", "it-mariadb-" + UUID.randomUUID());   // short: the socket path must fit 107 bytes
    try {
      Files.createDirectories(dir.resolve("data"));
      run(List.of(installDb, "--no-defaults", "--user=root", "--datadir=" + dir.resolve("data"),
          "--auth-root-authentication-method=normal", "--skip-test-db"), dir.resolve("install.log"));
      int port = LoopbackPorts.free();
      Process p = new ProcessBuilder(mariadbd, "--no-defaults", "--user=root", "--datadir=" + dir.resolve("data"),
          "--socket=" + dir.resolve("mysqld.sock"), "--pid-file=" + dir.resolve("mysqld.pid"), "--port=" + port,
          "--bind-address=127.0.0.1", "--skip-name-resolve", "--log-error=" + dir.resolve("error.log"),
          "--innodb-buffer-pool-size=64M", "--skip-log-bin", "--max-connections=300")
          .redirectErrorStream(true).redirectOutput(dir.resolve("stdout.log").toFile()).start();
      MariaDbServer server = new MariaDbServer(port, p);
      try {
        server.awaitReady(dir);
        try (Connection c = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port + "/", USER, "");
             Statement st = c.createStatement()) {
          st.execute("CREATE DATABASE app");
        }
        return server;
      } catch (SQLException | RuntimeException e) {
        server.close();
        throw new IllegalStateException("MariaDB did not start; see " + dir.resolve("error.log") + ": " + e, e);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot start MariaDB under " + dir + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private void awaitReady(Path dir) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try (Connection c = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port + "/", USER, "")) {
        if (c.isValid(1)) {
          return;
        }
      } catch (SQLException e) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("no connection within 60 s: " + e.getMessage(), e);
        }
      }
      if (process.waitFor(100, TimeUnit.MILLISECONDS)) {   // waits on the process: returns at once if it died
        throw new IllegalStateException("mariadbd exited with " + process.exitValue() + "; see " + dir.resolve("error.log"));
      }
    }
  }

  /** {@code jdbc:mariadb://127.0.0.1:<port>/app}; add {@code ?user=root} for a sink URI. */
  public String jdbcUrl() {
    return "jdbc:mariadb://127.0.0.1:" + port + "/app";
  }

  public Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), USER, "");
  }

  @Override
  public void close() {
    process.destroy();   // SIGTERM: mariadbd shuts down cleanly
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private static String find(String name, String usual) {
    if (new File(usual).canExecute()) {
      return usual;
    }
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      File f = new File(d, name);
      if (f.canExecute()) {
        return f.getPath();
      }
    }
    throw new IllegalStateException(name + " is not installed; run scripts/install-test-deps.sh (as root it installs"
        + " mariadb-server with apt)");
  }

  private static void run(List<String> command, Path log) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " failed; see " + log);
    }
  }
}
