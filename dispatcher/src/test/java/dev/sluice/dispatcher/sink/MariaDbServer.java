package dev.sluice.dispatcher.sink;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A real MariaDB server for tests: {@code mariadb-install-db} into a temp datadir under
 * {@code target/}, then {@code mariadbd --no-defaults --user=root} on a free loopback port; stopped
 * (SIGTERM, then kill) by {@link #close()}, or at once when the start fails. After start
 * the database {@code app} is created; tests connect as root over loopback TCP.
 */
final class MariaDbServer implements AutoCloseable {

  /** mariadb-install-db creates root@127.0.0.1 without a password (normal authentication). */
  static final String USER = "root";
  static final String PASSWORD = "";

  private final Path dir;
  private final int port;
  private final Process process;

  private MariaDbServer(Path dir, int port, Process process) {
    this.dir = dir;
    this.port = port;
    this.process = process;
  }

  static MariaDbServer start() throws Exception {
    String mariadbd = find("mariadbd", "/usr/sbin/mariadbd");
    String installDb = find("mariadb-install-db", "/usr/bin/mariadb-install-db");
    Path dir = Path.of("target", "mariadb-" + UUID.randomUUID()).toAbsolutePath();
    Files.createDirectories(dir.resolve("data"));
    Files.createDirectories(dir.resolve("run"));
    run(List.of(installDb, "--no-defaults", "--user=root", "--datadir=" + dir.resolve("data"),
        "--auth-root-authentication-method=normal", "--skip-test-db"), dir.resolve("install.log"));
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path socket = dir.resolve("run/mysqld.sock");
    Process p = new ProcessBuilder(mariadbd, "--no-defaults", "--user=root", "--datadir=" + dir.resolve("data"),
        "--socket=" + socket, "--pid-file=" + dir.resolve("run/mysqld.pid"), "--port=" + port,
        "--bind-address=127.0.0.1", "--skip-name-resolve", "--log-error=" + dir.resolve("error.log"),
        "--innodb-buffer-pool-size=32M", "--skip-log-bin")
        .redirectErrorStream(true).redirectOutput(dir.resolve("stdout.log").toFile()).start();
    MariaDbServer server = new MariaDbServer(dir, port, p);
    try {
      String rootUrl = "jdbc:mariadb://127.0.0.1:" + port + "/";
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
          .until(() -> {
            if (!p.isAlive()) {
              throw new IllegalStateException("mariadbd exited; see " + dir.resolve("error.log"));
            }
            try (Connection c = DriverManager.getConnection(rootUrl, USER, PASSWORD)) {
              return c.isValid(1);
            }
          });
      try (Connection c = DriverManager.getConnection(rootUrl, USER, PASSWORD); Statement st = c.createStatement()) {
        st.execute("CREATE DATABASE app");
      }
      return server;
    } catch (Exception | Error e) {
      server.close();
      throw e;
    }
  }

  String jdbcUrl() {
    return "jdbc:mariadb://127.0.0.1:" + port + "/app";
  }

  Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), USER, PASSWORD);
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
    throw new IllegalStateException(name + " is not installed; the JDBC sink tests start a real MariaDB. "
        + "Run scripts/install-test-deps.sh (as root it installs mariadb-server with apt)");
  }

  private static void run(List<String> command, Path log) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " failed; see " + log);
    }
  }
}
