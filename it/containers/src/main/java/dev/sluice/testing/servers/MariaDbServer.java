package dev.sluice.testing.servers;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;

/**
 * A real MariaDB server for tests: {@code mariadb-install-db} into a temp datadir under
 * {@code target/}, then {@code mariadbd --no-defaults --user=root} on a free loopback port; stopped
 * (SIGTERM, then kill) by {@link #close()}, or at once when the start fails. After start
 * the database {@code app} is created; tests connect as root over loopback TCP.
 *
 * <p>The Unix socket and pid file live in a short directory under {@code /tmp}, not beside the datadir:
 * a socket path has at most 107 bytes, fewer than a checkout's {@code target/} can take. A server that
 * exits during its start fails {@link #start()} at once with the end of its error log, its own words.
 * Shared by the client library's sink tests and the it/ scenarios.
 *
 * <pre>{@code
 * try (MariaDbServer maria = MariaDbServer.start()) {
 *   String sinkUri = maria.jdbcUrl() + "?user=root";   // jdbc:mariadb://127.0.0.1:<port>/app
 * }
 * }</pre>
 */
public final class MariaDbServer implements AutoCloseable {

  /** mariadb-install-db creates root@127.0.0.1 without a password (normal authentication). */
  public static final String USER = "root";
  public static final String PASSWORD = "";

  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  private static final int ERROR_LOG_LINES_REPORTED = 20;

  private final Path dir;
  private final Path runDir;
  private final int port;
  private final Process process;

  private MariaDbServer(Path dir, Path runDir, int port, Process process) {
    this.dir = dir;
    this.runDir = runDir;
    this.port = port;
    this.process = process;
  }

  public static MariaDbServer start() throws Exception {
    return start(Path.of("target"), List.of());
  }

  /** A server whose datadir is under {@code baseDir}, with {@code options} added to mariadbd's. */
  public static MariaDbServer start(Path baseDir, List<String> options) throws Exception {
    String mariadbd = find("mariadbd", "/usr/sbin/mariadbd");
    String installDb = find("mariadb-install-db", "/usr/bin/mariadb-install-db");
    Path dir = baseDir.resolve("mariadb-" + UUID.randomUUID()).toAbsolutePath();
    Files.createDirectories(dir.resolve("data"));
    run(List.of(installDb, "--no-defaults", "--user=root", "--datadir=" + dir.resolve("data"),
        "--auth-root-authentication-method=normal", "--skip-test-db"), dir.resolve("install.log"));
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path runDir = Files.createTempDirectory(Path.of("/tmp"), "sluice-mdb-");   // a short path (see above)
    Path errorLog = dir.resolve("error.log");
    List<String> command = new ArrayList<>(List.of(mariadbd, "--no-defaults", "--user=root",
        "--datadir=" + dir.resolve("data"), "--socket=" + runDir.resolve("mysqld.sock"),
        "--pid-file=" + runDir.resolve("mysqld.pid"), "--port=" + port, "--bind-address=127.0.0.1",
        "--skip-name-resolve", "--log-error=" + errorLog, "--innodb-buffer-pool-size=32M", "--skip-log-bin",
        "--max-connections=300"));
    command.addAll(options);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("stdout.log").toFile())
        .start();
    MariaDbServer server = new MariaDbServer(dir, runDir, port, p);
    try {
      String rootUrl = "jdbc:mariadb://127.0.0.1:" + port + "/";
      try {
        await().atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(100)).failFast(() -> !p.isAlive())
            .ignoreExceptionsInstanceOf(SQLException.class).until(() -> {
              try (Connection c = DriverManager.getConnection(rootUrl, USER, PASSWORD)) {
                return c.isValid(1);
              }
            });
      } catch (TerminalFailureException | ConditionTimeoutException e) {
        String what = p.isAlive() ? "accepted no connection on 127.0.0.1:" + port + " within " + START_TIMEOUT
            : "exited with code " + p.exitValue() + " during its start";
        throw new IllegalStateException("mariadbd " + what + "; the end of " + errorLog + ":\n  "
            + String.join("\n  ", tail(errorLog)), e);
      }
      try (Connection c = DriverManager.getConnection(rootUrl, USER, PASSWORD); Statement st = c.createStatement()) {
        st.execute("CREATE DATABASE app");
      }
      return server;
    } catch (Exception | Error e) {
      server.close();
      throw e;
    }
  }

  private static List<String> tail(Path log) throws IOException {
    if (!Files.exists(log)) {
      return List.of("(no error log)");
    }
    List<String> lines = Files.readAllLines(log);
    return lines.subList(Math.max(0, lines.size() - ERROR_LOG_LINES_REPORTED), lines.size());
  }

  /** The directory of the socket and pid file. */
  public Path runDir() {
    return runDir;
  }

  public String jdbcUrl() {
    return "jdbc:mariadb://127.0.0.1:" + port + "/app";
  }

  public Connection connect() throws SQLException {
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
    try (Stream<Path> files = Files.walk(runDir)) {
      for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + runDir, e);
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
    throw new IllegalStateException(name + " is not installed; the tests start a real MariaDB. "
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
