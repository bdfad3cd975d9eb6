package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.upstream.UpstreamConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Capture of a co-located PostgreSQL through its Unix-domain socket (UnixSocketFactory in the URL). */
class UnixSocketCaptureTest {

  @Test
  void pgJdbcReachesTheServerThroughItsSocketFileNotTcp() throws Exception {
    try (TestPostgres pg = TestPostgres.start();
        Connection socket = DriverManager.getConnection(pg.socketJdbcUrl(), "postgres", null);
        Connection tcp = pg.connect();
        Statement viaSocket = socket.createStatement();
        Statement viaTcp = tcp.createStatement()) {
      // PostgreSQL reports no server address for a Unix-domain connection
      assertThat(bool(viaSocket, "SELECT inet_server_addr() IS NULL")).isTrue();
      assertThat(bool(viaTcp, "SELECT inet_server_addr() IS NULL")).isFalse();
    }
  }

  @Test
  void captureThroughTheSocketStoresEveryRowAndShowsTheSocketInItsStatus(@TempDir Path dir) {
    try (TestPostgres pg = TestPostgres.start()) {
      pg.exec("CREATE TABLE t (id int PRIMARY KEY, v text)");
      UpstreamConfig up = UpstreamConfig.external(pg.socketJdbcUrl(), "postgres", null);
      try (CaptureHarness h = new CaptureHarness(dir, up, CaptureHarness.config())) {
        h.capture.start();
        long lsn = pg.txn("INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, 5000) g");
        pg.txn("UPDATE t SET v = 'x' WHERE id <= 10");
        h.awaitResolved(pg.txn("DELETE FROM t WHERE id = 5000"));
        var rows = h.rows(pg.oid("t"));
        assertThat(rows).hasSize(5000 + 10 + 1);
        assertThat(rows.subList(0, 5000)).extracting(CaptureHarness.StoredRow::commitTs)
            .containsOnly(rows.get(0).commitTs());   // the insert is one transaction
        assertThat(rows.get(0).commitTs()).isPositive().isLessThanOrEqualTo(lsn);
        assertThat(pg.queryString("SELECT coalesce(client_addr::text, 'socket') FROM pg_stat_replication"
            + " WHERE application_name = 'sluice-capture'")).isEqualTo("socket");
        assertThat(h.capture.status().upstream()).isEqualTo(pg.jdbcUrl() + " via unix socket "
            + pg.queryString("SHOW unix_socket_directories"));
      }
    }
  }

  @Test
  void aSocketThatIsNotThereIsRetriedWithAnErrorNamingIt(@TempDir Path dir) {
    Path missing = dir.resolve("no-server");
    UpstreamConfig up = UpstreamConfig.external(
        UpstreamConfig.viaUnixSocket("jdbc:postgresql://localhost:5999/postgres", missing), "postgres", null);
    try (CaptureHarness h = new CaptureHarness(dir.resolve("stores"), up, CaptureHarness.config())) {
      h.capture.start();
      await().atMost(Duration.ofSeconds(20)).until(() -> h.capture.status().retryCount() >= 2);
      assertThat(h.capture.status().state()).isEqualTo(CaptureState.RETRYING);
      assertThat(h.capture.status().lastError())
          .contains("cannot connect to the PostgreSQL socket " + missing)
          .contains("is the server running");
    }
  }

  private static boolean bool(Statement s, String sql) throws Exception {
    try (ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getBoolean(1);
    }
  }
}
