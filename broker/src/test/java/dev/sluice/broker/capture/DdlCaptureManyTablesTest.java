package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.schema.DdlEvent;
import dev.sluice.schema.DdlType;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.StringJoiner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A transaction that changes more tables than there are WAL bytes between its commit record and the
 * previous one: all its events share its commit ts. Its own server, as a capture that stops here would
 * stall every other test sharing it.
 */
class DdlCaptureManyTablesTest {

  private static final int TABLES = 100;

  @Test
  void truncateOfManyTablesCommittedRightAfterAnotherTransactionKeepsCapturing(@TempDir Path dir) throws Exception {
    try (TestPostgres pg = TestPostgres.start()) {
      StringJoiner tables = new StringJoiner(", ");
      for (int i = 0; i < TABLES; i++) {
        pg.exec("CREATE TABLE many_" + i + " (id int PRIMARY KEY)");
        tables.add("many_" + i);
      }
      pg.exec("CREATE TABLE marker (id serial PRIMARY KEY, label text NOT NULL)");
      try (CaptureHarness h = CaptureHarness.start(dir, pg, CaptureHarness.config())) {
        h.awaitResolved(pg.currentLsn());
        try (Connection truncating = pg.connect(); Connection other = pg.connect()) {
          truncating.setAutoCommit(false);
          try (Statement s = truncating.createStatement()) {
            s.execute("TRUNCATE " + tables);
            s.execute("INSERT INTO marker (label) VALUES ('many truncated')");
          }
          try (Statement s = other.createStatement()) {
            s.execute("INSERT INTO marker (label) VALUES ('just before')"); // its commit record comes right before
          }
          truncating.commit();
        }
        long end = pg.currentLsn();
        await().atMost(Duration.ofSeconds(60))
            .until(() -> h.events.resolvedTs() >= end || h.capture.status().state() == CaptureState.FAILED);

        assertThat(h.capture.status().state()).isEqualTo(CaptureState.STREAMING);
        h.awaitResolved(end);
        Map<String, Long> at = new HashMap<>();
        h.rows(pg.oid("marker")).forEach(r -> at.put(r.change().getAfter(1).getStringValue(), r.commitTs()));
        long c = at.get("many truncated");
        assertThat(c - at.get("just before")).as("commit ts gap").isLessThan(TABLES);
        for (int i = 0; i < TABLES; i++) {
          assertThat(h.schemas.ddlEvents(pg.oid("many_" + i), 0, Long.MAX_VALUE)).last()
              .extracting(DdlEvent::type, DdlEvent::commitTs).containsExactly(DdlType.TRUNCATE_TABLE, c);
        }
      }
    }
  }
}
