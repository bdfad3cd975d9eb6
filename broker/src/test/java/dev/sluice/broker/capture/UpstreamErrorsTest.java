package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.broker.upstream.UpstreamConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Errors a user can act on: each one names what is wrong and how to fix it. */
class UpstreamErrorsTest {

  @Test
  void walLevelReplicaRefusesToStartAndSaysHowToFix(@TempDir Path dir) {
    try (TestPostgres pg = TestPostgres.start(Map.of("wal_level", "replica"));
        CaptureHarness h = new CaptureHarness(dir, external(pg, "postgres"), CaptureHarness.config())) {
      assertThatThrownBy(h.capture::start).isInstanceOf(UpstreamMisconfiguredException.class)
          .hasMessage("wal_level is 'replica'; set wal_level = logical in postgresql.conf and restart PostgreSQL")
          .satisfies(e -> assertThat(((UpstreamMisconfiguredException) e).code()).isEqualTo(ErrorCode.UPSTREAM_MISCONFIGURED));
      assertThat(h.capture.status().state()).isEqualTo(CaptureState.FAILED);
      assertThat(h.capture.status().lastError()).contains("wal_level");
    }
  }

  @Test
  void roleWithoutReplicationIsNamedWithTheMissingPrivilege(@TempDir Path dir) {
    try (TestPostgres pg = TestPostgres.start()) {
      pg.exec("CREATE ROLE reader LOGIN");
      try (CaptureHarness h = new CaptureHarness(dir, external(pg, "reader"), CaptureHarness.config())) {
        assertThatThrownBy(h.capture::start).isInstanceOf(UpstreamMisconfiguredException.class)
            .hasMessageContaining("role reader lacks the REPLICATION privilege")
            .hasMessageContaining("ALTER ROLE reader REPLICATION");
      }
    }
  }

  @Test
  void missingPublicationThatTheRoleCannotCreateIsExplained(@TempDir Path dir) {
    try (TestPostgres pg = TestPostgres.start()) {
      pg.exec("CREATE ROLE repl LOGIN REPLICATION");
      try (CaptureHarness h = new CaptureHarness(dir, external(pg, "repl"), CaptureHarness.config())) {
        assertThatThrownBy(h.capture::start).isInstanceOf(UpstreamMisconfiguredException.class)
            .hasMessageContaining("publication sluice_pub does not exist and role repl cannot create it")
            .hasMessageContaining("CREATE PUBLICATION sluice_pub FOR ALL TABLES");
      }
    }
  }

  @Test
  void aPublicationPublishingPartitionsViaTheirRootIsRefusedWithTheFix(@TempDir Path dir) {
    try (TestPostgres pg = TestPostgres.start()) {
      pg.exec("CREATE PUBLICATION sluice_pub FOR ALL TABLES WITH (publish_via_partition_root = true)");
      try (CaptureHarness h = new CaptureHarness(dir, external(pg, "postgres"), CaptureHarness.config())) {
        assertThatThrownBy(h.capture::start).isInstanceOf(UpstreamMisconfiguredException.class)
            .hasMessageContaining("publication sluice_pub publishes the changes of partitions under their root")
            .hasMessageContaining("ALTER PUBLICATION sluice_pub SET (publish_via_partition_root = false)")
            .satisfies(e -> assertThat(((UpstreamMisconfiguredException) e).setting()).isEqualTo("publication"));
      }
      pg.exec("ALTER PUBLICATION sluice_pub SET (publish_via_partition_root = false)");
      assertStreams(dir.resolve("again"), pg);
    }
  }

  @Test
  void aPublicationFilteringRowsOrColumnsIsRefusedNamingTheTables(@TempDir Path dir) {
    try (TestPostgres pg = TestPostgres.start()) {
      pg.exec("CREATE TABLE public.orders (id int PRIMARY KEY, note text)",
          "CREATE TABLE public.items (id int PRIMARY KEY, sku text, secret text)",
          "CREATE PUBLICATION sluice_pub FOR TABLE public.orders WHERE (id > 10), public.items (id, sku)");
      try (CaptureHarness h = new CaptureHarness(dir, external(pg, "postgres"), CaptureHarness.config())) {
        assertThatThrownBy(h.capture::start).isInstanceOf(UpstreamMisconfiguredException.class)
            .hasMessageContaining("publication sluice_pub publishes public.items, public.orders with a row filter (WHERE) or a"
                + " column list")
            .hasMessageContaining("ALTER PUBLICATION sluice_pub SET TABLE")
            .satisfies(e -> assertThat(((UpstreamMisconfiguredException) e).setting()).isEqualTo("publication"));
      }
      pg.exec("ALTER PUBLICATION sluice_pub SET TABLE public.orders, public.items");
      assertStreams(dir.resolve("again"), pg);
    }
  }

  /** A capture of {@code pg} as its superuser starts and streams. */
  private static void assertStreams(Path dir, TestPostgres pg) {
    try (CaptureHarness h = new CaptureHarness(dir, external(pg, "postgres"), CaptureHarness.config())) {
      h.capture.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> h.capture.status().state() == CaptureState.STREAMING);
    }
  }

  @Test
  void unreachableUpstreamIsRetriedWithBackoffUntilItAppears(@TempDir Path dir) throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    UpstreamConfig up = UpstreamConfig.external("jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", null);
    try (CaptureHarness h = new CaptureHarness(dir, up, CaptureHarness.config())) {
      h.capture.start();
      await().atMost(Duration.ofSeconds(20)).until(() -> h.capture.status().retryCount() >= 3);
      CaptureStatus retrying = h.capture.status();
      assertThat(retrying.state()).isEqualTo(CaptureState.RETRYING);
      assertThat(retrying.lastError()).contains("connecting on jdbc:postgresql://127.0.0.1:" + port);
      try (TestPostgres pg = TestPostgres.start(Map.of(), port)) {
        await().atMost(Duration.ofSeconds(30)).until(() -> h.capture.status().state() == CaptureState.STREAMING);
        assertThat(h.capture.status().retryCount()).isZero();
        assertThat(h.capture.status().lastError()).isNull();
        h.awaitResolved(pg.txn("SELECT 1"));
      }
    }
  }

  @Test
  void slotDroppedWhileTheBrokerWasDownIsALostSlotNamingIt(@TempDir Path dir) {
    try (TestPostgres pg = TestPostgres.start()) {
      try (CaptureHarness h = CaptureHarness.start(dir, pg, CaptureHarness.config())) {
        h.awaitResolved(pg.currentLsn());
      }
      pg.exec("SELECT pg_drop_replication_slot('sluice_test')");
      try (CaptureHarness h = new CaptureHarness(dir, external(pg, "postgres"), CaptureHarness.config())) {
        assertThatThrownBy(h.capture::start).isInstanceOf(ReplicationSlotLostException.class)
            .hasMessageContaining("replication slot sluice_test does not exist")
            .hasMessageContaining("delete its data directory")
            .satisfies(e -> assertThat(((ReplicationSlotLostException) e).slot()).isEqualTo("sluice_test"));
        assertThat(h.capture.status().state()).isEqualTo(CaptureState.FAILED);
      }
    }
  }

  @Test
  void slotInvalidatedForWalRemovalIsALostSlotSayingWhatToDo(@TempDir Path dir) {
    try (TestPostgres pg = TestPostgres.start(Map.of("max_slot_wal_keep_size", "1MB", "min_wal_size", "32MB"))) {
      try (CaptureHarness h = CaptureHarness.start(dir, pg, CaptureHarness.config())) {
        h.awaitResolved(pg.currentLsn());
      }
      pg.exec("CREATE TABLE filler (x text)");
      for (int i = 0; i < 4; i++) {
        pg.exec("INSERT INTO filler SELECT md5(g::text) FROM generate_series(1, 20000) g", "SELECT pg_switch_wal()");
      }
      pg.exec("CHECKPOINT");
      assertThat(pg.queryString("SELECT wal_status FROM pg_replication_slots WHERE slot_name = 'sluice_test'"))
          .isEqualTo("lost");
      try (CaptureHarness h = new CaptureHarness(dir, external(pg, "postgres"), CaptureHarness.config())) {
        assertThatThrownBy(h.capture::start).isInstanceOf(ReplicationSlotLostException.class)
            .hasMessageContaining("replication slot sluice_test was invalidated")
            .hasMessageContaining("pg_drop_replication_slot('sluice_test')")
            .hasMessageContaining("max_slot_wal_keep_size");
      }
    }
  }

  private static UpstreamConfig external(TestPostgres pg, String user) {
    return UpstreamConfig.external(pg.jdbcUrl(), user, null);
  }
}
