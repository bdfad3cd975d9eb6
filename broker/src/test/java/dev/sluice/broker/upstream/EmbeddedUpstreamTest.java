package dev.sluice.broker.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded upstream keeps its data across restarts, runs with wal_level = logical, and starts
 * again after the broker that owned it was killed with SIGKILL (its PostgreSQL left running).
 */
class EmbeddedUpstreamTest {

  @Test
  void dataSurvivesAKilledOwnerAndTheOrphanedServerIsReplaced() throws Exception {
    // short: the socket path must fit 107 bytes wherever the checkout lives (a deep one falls back to TCP)
    Path dir = Files.createTempDirectory(Path.of("/tmp"), "sluice-up");
    try {
      Path data = dir.resolve("upstream");
      int port = freePort();
      Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-cp", System.getProperty("java.class.path"), "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
          EmbeddedUpstreamMain.class.getName(), data.toString(), Integer.toString(port), "first")
          .redirectErrorStream(true).start();
      try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = out.readLine()) != null && !line.equals("READY")) {
          // zonky's start-up output
        }
        assertThat(line).as("child started its PostgreSQL").isEqualTo("READY");
        child.destroyForcibly(); // SIGKILL: zonky's shutdown hook does not run, PostgreSQL stays up
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
      }

      try (EmbeddedUpstream up = EmbeddedUpstream.start(data, port);
          Connection c = DriverManager.getConnection(up.jdbcUrl(), "postgres", null);
          Statement s = c.createStatement()) {
        s.execute("INSERT INTO kept VALUES ('second')");
        assertThat(strings(s, "SELECT v FROM kept ORDER BY v")).containsExactly("first", "second");
        assertThat(strings(s, "SHOW wal_level")).containsExactly("logical");
        assertThat(up.connection().displayUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:" + port + "/postgres"
            + " via unix socket " + dir.resolve("upstream-socket"));
      }
      // the broker's own connections go through the socket file (PostgreSQL shows no server address for them)
      try (EmbeddedUpstream up = EmbeddedUpstream.start(data, port);
          Connection c = DriverManager.getConnection(up.connection().jdbcUrl(), "postgres", null);
          Statement s = c.createStatement()) {
        assertThat(strings(s, "SELECT inet_server_addr() IS NULL")).containsExactly("t");
        assertThat(strings(s, "SELECT v FROM kept ORDER BY v")).containsExactly("first", "second");
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(f);
        }
      }
    }
  }

  @Test
  void aDataDirectoryTooDeepForASocketAddressFallsBackToTcp(@TempDir Path dir) {
    Path deep = dir.resolve("x".repeat(120)).resolve("upstream");
    assertThat(EmbeddedUpstream.socketDirectory(deep, 8302)).isNull();
    assertThat(EmbeddedUpstream.socketDirectory(Path.of("/srv/sluice/upstream"), 8302))
        .isEqualTo(Path.of("/srv/sluice/upstream-socket"));
  }

  @Test
  void demoSchemaAndWorkloadWriteTheMixAndChangeTheSchema(@TempDir Path dir) throws Exception {
    try (EmbeddedUpstream up = EmbeddedUpstream.start(dir.resolve("upstream"), freePort());
        Connection c = DriverManager.getConnection(up.jdbcUrl(), "postgres", null);
        Statement s = c.createStatement()) {
      DemoWorkload.createSchema(c);
      DemoWorkload.createSchema(c); // idempotent
      try (DemoWorkload w = DemoWorkload.start(up.connection(),
          new DemoWorkloadConfig(200, java.time.Duration.ofMillis(300), 7))) {
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
            .until(() -> w.committed() >= 300 && w.schemaChanges() >= 2);
      }
      assertThat(Long.parseLong(strings(s, "SELECT count(*) FROM demo.orders").get(0))).isPositive();
      assertThat(Long.parseLong(strings(s, "SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'orders'")
          .get(0))).isPositive();
    }
  }

  private static List<String> strings(Statement s, String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
