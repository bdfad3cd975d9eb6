package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.TableSpan;
import dev.sluice.broker.store.RowScan;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A transaction of 1,000,000 rows is written in fragments under a configured memory cap: never whole
 * in memory, every row stored once with row_seq 0..999,999 at the transaction's commit ts.
 */
class LargeTransactionTest {

  private static final int ROWS = 1_000_000;
  private static final int FRAGMENT_ROWS = 10_000;
  private static final long MEMORY_CAP = 8L << 20;

  @Test
  void millionRowTransactionIsCapturedInBoundedFragments(@TempDir Path dir) {
    CaptureConfig config = CaptureHarness.config()
        .withMemoryCap(MEMORY_CAP, 2L << 20)
        .withFragment(FRAGMENT_ROWS, 4L << 20);
    try (TestPostgres pg = TestPostgres.start(java.util.Map.of("logical_decoding_work_mem", "16MB"));
        CaptureHarness h = CaptureHarness.start(dir, pg, config)) {
      pg.exec("CREATE TABLE big (id int PRIMARY KEY, payload text NOT NULL)");
      long lsn = pg.txn("INSERT INTO big SELECT g, md5(g::text) FROM generate_series(0, " + (ROWS - 1) + ") g");
      org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(3))
          .until(() -> h.events.resolvedTs() >= lsn);

      long table = pg.oid("big");
      long count = 0;
      long commitTs = -1;
      try (RowScan scan = h.events.scan(TableSpan.wholeTable(table), 0, h.events.resolvedTs(), null)) {
        while (scan.next()) {
          if (commitTs < 0) {
            commitTs = scan.commitTs();
          }
          assertThat(scan.commitTs()).isEqualTo(commitTs);
          assertThat(scan.rowSeq()).isEqualTo(count);
          count++;
        }
      }
      assertThat(count).isEqualTo(ROWS);
      assertThat(h.counter("sluice.capture.fragments")).isGreaterThanOrEqualTo(ROWS / FRAGMENT_ROWS);
      assertThat(h.capture.maxBufferedBytes()).isPositive().isLessThanOrEqualTo(MEMORY_CAP);
      assertThat(h.registry.get("sluice.capture.buffer.max.bytes").gauge().value()).isLessThanOrEqualTo(MEMORY_CAP);
    }
  }
}
