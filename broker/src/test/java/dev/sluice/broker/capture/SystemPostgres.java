package dev.sluice.broker.capture;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL server from the system's binaries ({@code /usr/lib/postgresql/<major>}, Debian's layout),
 * so capture is tested against a second major version besides the embedded 17: the Debian packages
 * that {@code scripts/install-test-deps.sh} installs for pgbench bring the server of the distribution's
 * major (15 on Debian 12). PostgreSQL refuses to run as root; as root the server runs as the
 * {@code postgres} user the packages create.
 */
final class SystemPostgres implements AutoCloseable {

  private static final Path INSTALLS = Path.of("/usr/lib/postgresql");

  private final Path home;
  private final Path dir;
  private final int port;
  private final Process server;

  private SystemPostgres(Path home, Path dir, int port, Process server) {
    this.home = home;
    this.dir = dir;
    this.port = port;
    this.server = server;
  }

  /** The newest installed major other than {@code exceptMajor}, when one is installed. */
  static Optional<Path> home(int exceptMajor) {
    if (!Files.isDirectory(INSTALLS)) {
      return Optional.empty();
    }
    try (Stream<Path> majors = Files.list(INSTALLS)) {
      return majors.filter(p -> Files.isExecutable(p.resolve("bin/postgres")) && Files.isExecutable(p.resolve("bin/initdb")))
          .filter(p -> p.getFileName().toString().matches("\\d+"))
          .filter(p -> Integer.parseInt(p.getFileName().toString()) != exceptMajor)
          .max(Comparator.comparingInt(p -> Integer.parseInt(p.getFileName().toString())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** initdb + a server with {@code wal_level = logical}; {@code settings} override the defaults. */
  static SystemPostgres start(Path home, Map<String, String> settings) {
    try {
      // not under target/: the postgres user must be able to reach it, and /root is closed to it
      Path dir = Files.createTempDirectory(Path.of("/tmp"), "sluice-pg" + home.getFileName() + "-");
      boolean root = "root".equals(System.getProperty("user.name"));
      if (root) {
        UserPrincipal postgres = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
        Files.setOwner(dir, postgres);
      }
      run(root, dir, List.of(home.resolve("bin/initdb").toString(), "-D", dir.resolve("data").toString(),
          "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"));
      int port;
      try (ServerSocket s = new ServerSocket(0)) {
        port = s.getLocalPort();
      }
      List<String> cmd = new ArrayList<>(List.of(home.resolve("bin/postgres").toString(), "-D",
          dir.resolve("data").toString(), "-p", Integer.toString(port), "-c", "listen_addresses=127.0.0.1",
          "-c", "unix_socket_directories=" + dir, "-c", "wal_level=logical", "-c", "max_replication_slots=10",
          "-c", "max_wal_senders=10", "-c", "fsync=off", "-c", "synchronous_commit=off"));
      settings.forEach((k, v) -> cmd.addAll(List.of("-c", k + "=" + v)));
      Process server = new ProcessBuilder(asUser(root, cmd)).redirectErrorStream(true)
          .redirectOutput(dir.resolve("server.log").toFile()).start();
      SystemPostgres pg = new SystemPostgres(home, dir, port, server);
      await("PostgreSQL " + home.getFileName() + " accepting connections (log: " + dir.resolve("server.log") + ")")
          .atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
            DriverManager.getConnection(pg.jdbcUrl(), "postgres", null).close();
            return true;
          });
      return pg;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void run(boolean root, Path dir, List<String> cmd) throws IOException {
    Path log = dir.resolve(Path.of(cmd.get(0)).getFileName() + ".log");
    Process p = new ProcessBuilder(asUser(root, cmd)).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
        throw new IllegalStateException(cmd.get(0) + " failed: " + Files.readString(log));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static List<String> asUser(boolean root, List<String> cmd) {
    if (!root) {
      return cmd;
    }
    List<String> wrapped = new ArrayList<>(List.of("runuser", "-u", "postgres", "--"));
    wrapped.addAll(cmd);
    return wrapped;
  }

  String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
  }

  int port() {
    return port;
  }

  @Override
  public void close() {
    try {
      run("root".equals(System.getProperty("user.name")), dir, List.of(home.resolve("bin/pg_ctl").toString(), "stop",
          "-D", dir.resolve("data").toString(), "-m", "fast", "-w"));
    } catch (IOException | IllegalStateException e) {
      server.destroyForcibly();   // stopping it is all that is left to do
    }
    try {
      if (!server.waitFor(30, TimeUnit.SECONDS)) {
        server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
