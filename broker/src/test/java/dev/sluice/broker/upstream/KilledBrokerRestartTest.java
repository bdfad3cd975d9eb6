package dev.sluice.broker.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.broker.SluiceCommand;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code sluice server} on its embedded upstream, killed with SIGKILL while a client of that PostgreSQL
 * runs a long query, starts again at once: the PostgreSQL the killed broker left running is stopped with
 * a fast shutdown, which disconnects the client, instead of a smart shutdown that waited for it (the
 * restart failed after 60 s with "did not stop", and meanwhile the database refused connections).
 */
class KilledBrokerRestartTest {

  private static final Duration READY = Duration.ofSeconds(90);
  private final List<Process> started = new ArrayList<>();
  private Path dir;

  @AfterEach
  void stop() throws Exception {
    for (Process p : started) {
      p.destroy();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
    // the last broker stopped its PostgreSQL on SIGTERM; a leftover one would be found by the next start
    OrphanedPostmaster.find(dir.resolve("data/upstream")).ifPresent(p -> {
      try {
        p.stop(Duration.ofSeconds(10), Duration.ofSeconds(10));
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    deleteTree(dir);
  }

  @Test
  void aKilledBrokerRestartsWhileAClientHoldsAQueryOnItsPostgres() throws Exception {
    dir = Files.createTempDirectory(Path.of("/tmp"), "sluice-kill");   // short: the socket path must fit 107 bytes
    int pgPort = EmbeddedUpstreamTest.freePort();
    Broker first = Broker.start(dir, pgPort, started);
    first.await("sluice server running");

    String url = "jdbc:postgresql://127.0.0.1:" + pgPort + "/postgres";
    Connection client = DriverManager.getConnection(url, "postgres", null);
    CompletableFuture<SQLException> sleeping = CompletableFuture.supplyAsync(() -> {
      try (Statement s = client.createStatement()) {
        s.execute("SELECT pg_sleep(300)");
        return null;
      } catch (SQLException e) {
        return e;
      }
    });
    try (Connection c = DriverManager.getConnection(url, "postgres", null); Statement s = c.createStatement()) {
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
        try (var rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(300)'"
            + " AND state = 'active'")) {
          return rs.next() && rs.getInt(1) == 1;
        }
      });
    }

    first.process.destroyForcibly(); // SIGKILL: no shutdown hook, its PostgreSQL stays up with the client
    assertThat(first.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(sleeping).as("the client's query outlives the killed broker").isNotDone();

    long restartedAt = System.nanoTime();
    Broker second = Broker.start(dir, pgPort, started);
    second.await("sluice server running");
    long restartMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartedAt);

    List<String> said = second.output();
    assertThat(said).as("what the restart said").anyMatch(l -> l.contains("fast shutdown (SIGINT)"))
        .anyMatch(l -> l.contains("the previous PostgreSQL stopped (fast shutdown)"));
    SQLException disconnected = sleeping.get(30, TimeUnit.SECONDS);
    assertThat((Throwable) disconnected).as("the client was disconnected by the fast shutdown").isNotNull();
    assertThat(disconnected.getSQLState()).as(disconnected.getMessage()).isIn("57P01", "08006");
    assertThat(restartMs).as("restart took (a smart shutdown waited 60 s and failed)").isLessThan(60_000);
    try (Connection c = DriverManager.getConnection(url, "postgres", null); Statement s = c.createStatement()) {
      assertThat(s.execute("SELECT 1")).isTrue();
    }
    client.close();
  }

  /** A {@code sluice server} child JVM on the embedded upstream, its output kept. */
  private record Broker(Process process, List<String> lines, CompletableFuture<Void> ended) {

    static Broker start(Path dir, int pgPort, List<Process> started) throws IOException {
      Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx512m", "-cp", System.getProperty("java.class.path"),
          "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"), SluiceCommand.class.getName(), "server",
          "--data-dir", dir.resolve("data").toString(), "--embedded-port", Integer.toString(pgPort),
          "--grpc-port", "0", "--admin-port", "0").redirectErrorStream(true).start();
      started.add(p);
      List<String> lines = new CopyOnWriteArrayList<>();
      CompletableFuture<Void> ended = CompletableFuture.runAsync(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = r.readLine()) != null) {
            lines.add(line);
          }
        } catch (IOException e) {
          lines.add("EOF " + e.getMessage());
        }
      });
      return new Broker(p, lines, ended);
    }

    void await(String fragment) {
      // an exception in the condition ends the wait at once: the broker's own output says why it stopped
      org.awaitility.Awaitility.await().atMost(READY).until(() -> {
        if (lines.stream().anyMatch(l -> l.contains(fragment))) {
          return true;
        }
        if (!process.isAlive()) {
          ended.get(10, TimeUnit.SECONDS);
          throw new AssertionError("the broker exited " + process.exitValue() + " before '" + fragment + "':\n"
              + String.join("\n", lines));
        }
        return false;
      });
    }

    List<String> output() {
      return List.copyOf(lines);
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (var paths = Files.walk(root)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
