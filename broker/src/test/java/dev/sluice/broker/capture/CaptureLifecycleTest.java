package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start and stop: close releases the slot and every connection, even right after start. */
class CaptureLifecycleTest {

  @Test
  void closeRightAfterStartReleasesTheSlotAndStops(@TempDir Path dir) {
    try (TestPostgres pg = TestPostgres.start();
        CaptureHarness h = CaptureHarness.start(dir, pg, CaptureHarness.config())) {
      h.capture.close();
      assertThat(h.capture.status().state()).isEqualTo(CaptureState.STOPPED);
      await().atMost(Duration.ofSeconds(10)).until(() -> "f".equals(
          pg.queryString("SELECT active::text FROM pg_replication_slots WHERE slot_name = 'sluice_test'").substring(0, 1)));
      await().atMost(Duration.ofSeconds(10)).until(() -> pg.queryLong(
          "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'sluice%'") == 0);
    }
  }

  @Test
  void gracefulStopConfirmsEverythingStoredAndRestartResumesThere(@TempDir Path dir) {
    try (TestPostgres pg = TestPostgres.start()) {
      pg.exec("CREATE TABLE t (id int PRIMARY KEY)");
      long lsn;
      try (CaptureHarness h = CaptureHarness.start(dir, pg, CaptureHarness.config())) {
        lsn = pg.txn("INSERT INTO t SELECT generate_series(1, 1000)");
        h.awaitResolved(lsn);
      }
      long confirmed = dev.sluice.api.CommitTs.parseLsn(pg.queryString(
          "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = 'sluice_test'")).value();
      assertThat(confirmed).isGreaterThanOrEqualTo(lsn);
      try (CaptureHarness h = CaptureHarness.start(dir, pg, CaptureHarness.config())) {
        h.awaitResolved(pg.txn("INSERT INTO t VALUES (0)"));
        assertThat(h.rows(pg.oid("t"))).hasSize(1001);
      }
    }
  }
}
