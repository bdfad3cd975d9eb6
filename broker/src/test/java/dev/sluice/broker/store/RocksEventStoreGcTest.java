package dev.sluice.broker.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.api.TableSpan;
import dev.sluice.api.error.ErrorCode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocksEventStoreGcTest {

  @TempDir
  Path dir;

  private RocksEventStore store;

  @BeforeEach
  void open() {
    store = RocksEventStore.open(EventStoreConfig.defaults(dir), new SimpleMeterRegistry());
    for (long ts = 10; ts <= 40; ts += 10) {
      StoreBatch batch = store.newBatch();
      for (long table = 1; table <= 3; table++) {
        for (long seq = 0; seq < 2; seq++) {
          ScannedRow.of(table, ts, seq + table * 10, (int) seq).putInto(batch);
        }
      }
      batch.putTimeMark(ts, ts * 100);
      batch.setPosition(new SourcePosition(ts, ts + 1));
      batch.setResolvedTs(ts);
      store.write(batch, true);
    }
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void gcDeletesRowsBelowTsOfEveryTableAndKeepsRowsAtAndAbove() throws Exception {
    store.gc(30);
    assertThat(store.gcTs()).isEqualTo(30);
    for (long table = 1; table <= 3; table++) {
      assertThat(ScannedRow.drain(store.scan(TableSpan.wholeTable(table), 29, 40, null)))
          .extracting(ScannedRow::commitTs).containsExactly(30L, 30L, 40L, 40L);
    }
    store.close();

    assertThat(storedRowCommitTs()).containsExactly(30L, 30L, 40L, 40L, 30L, 30L, 40L, 40L, 30L, 30L, 40L, 40L);
  }

  @Test
  void gcTsPersistsAcrossReopen() {
    store.gc(20);
    store.close();
    store = RocksEventStore.open(EventStoreConfig.defaults(dir), new SimpleMeterRegistry());

    assertThat(store.gcTs()).isEqualTo(20);
    assertThat(store.resolvedTs()).isEqualTo(40);
    assertThat(store.lastCommitTs(2)).as("GC keeps the newest commit ts per table").isEqualTo(40);
  }

  @Test
  void scanNeedingCollectedRowsIsRejectedWithCodeNumbersAndRemedy() {
    store.gc(30);
    TableSpan span = TableSpan.wholeTable(2);

    StartTsBelowGcException e = catchThrowableOfType(StartTsBelowGcException.class,
        () -> store.scan(span, 28, 40, null));

    assertThat(e.code()).isEqualTo(ErrorCode.START_TS_BELOW_GC);
    assertThat(e.getMessage()).isEqualTo("start ts 28 of span 2[*] is below the event store's GC point 30: rows "
        + "with commit ts below 30 were deleted; start again from 29 or later");
    assertThat(e.fromExclusive()).isEqualTo(28);
    assertThat(e.gcTs()).isEqualTo(30);
    assertThat(e.span()).isEqualTo(span);
    assertThat(ScannedRow.drain(store.scan(span, 29, 40, null))).hasSize(4);
    assertThat(store.stats().openScans()).as("a rejected scan releases what it opened").isZero();
  }

  @Test
  void gcNeverMovesBackwards() {
    store.gc(30);
    store.gc(10);
    store.gc(30);

    assertThat(store.gcTs()).isEqualTo(30);
    assertThat(ScannedRow.drain(store.scan(TableSpan.wholeTable(1), 29, 40, null))).hasSize(4);
  }

  @Test
  void gcDeletesTimeMarksBelowTs() {
    store.gc(30);

    assertThat(store.timeMarks(0, 40)).containsExactly(new TimeMark(30, 3_000), new TimeMark(40, 4_000));
  }

  @Test
  void scanOpenedBeforeGcStillReturnsEveryRowOfItsRange() {
    List<Long> seen = new ArrayList<>();
    try (RowScan scan = store.scan(TableSpan.wholeTable(1), 0, 40, null)) {
      assertThat(scan.next()).isTrue();
      seen.add(scan.commitTs());
      store.gc(40);
      while (scan.next()) {
        seen.add(scan.commitTs());
        assertThat(new String(scan.rowChange(), StandardCharsets.UTF_8))
            .isEqualTo(ScannedRow.valueOf(1, scan.commitTs(), scan.rowSeq()));
      }
    }
    assertThat(seen).containsExactly(10L, 10L, 20L, 20L, 30L, 30L, 40L, 40L);
  }

  @Test
  void gcAfterNewRowsDeletesThemToo() throws Exception {
    store.gc(50);
    StoreBatch batch = store.newBatch();
    ScannedRow.of(1, 60, 0, 0).putInto(batch);
    batch.setResolvedTs(60);
    store.write(batch, true);
    store.gc(70);

    assertThat(store.gcTs()).isEqualTo(70);
    store.close();
    assertThat(storedRowCommitTs()).isEmpty();
  }

  @Test
  void gcDropsFilesHoldingOnlyCollectedRowsSoTheirSpaceComesBackAtOnce() throws Exception {
    Path d = dir.resolve("reclaim");
    byte[] value = new byte[200];
    writeRows(d, 7, 100, 20_000, value);                      // table 7: all below the GC point
    try (RawStoreDb raw = new RawStoreDb(d)) {
      raw.compactRows(null, null);                            // one last-level file of table 7 alone
    }
    writeRows(d, 8, 50_000, 2_000, value);                    // table 8: at and above the GC point
    try (RawStoreDb raw = new RawStoreDb(d)) {
      raw.compactRows(EventKey.table(8), EventKey.table(9));  // a last-level file of table 8 alone
    }
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (RocksEventStore s = RocksEventStore.open(EventStoreConfig.defaults(d), registry)) {
      long before = s.stats().liveDataBytes();
      RowScan opened = s.scan(TableSpan.wholeTable(7), 99, 60_000, null);
      assertThat(opened.next()).isTrue();

      s.gc(50_000);

      int rest = 0;
      while (opened.next()) {
        rest++;
      }
      opened.close();
      assertThat(rest).as("a scan opened before the GC keeps the file it reads").isEqualTo(19_999);

      long after = s.stats().liveDataBytes();
      double reclaimed = registry.get("sluice.store.gc.reclaimed").counter().count();
      assertThat(reclaimed).as("table 7's file (10x table 8's) is gone without a compaction")
          .isGreaterThan(0.8 * before).isEqualTo((double) (before - after));
      assertThat(ScannedRow.drain(s.scan(TableSpan.wholeTable(7), 49_999, 60_000, null))).isEmpty();
      assertThat(ScannedRow.drain(s.scan(TableSpan.wholeTable(8), 49_999, 60_000, null))).hasSize(2_000);
    }
  }

  /** {@code rows} rows of {@code table}, 100 per commit ts from {@code firstTs}, through a store opened on {@code d}. */
  private static void writeRows(Path d, long table, long firstTs, int rows, byte[] value) {
    try (RocksEventStore s = RocksEventStore.open(EventStoreConfig.defaults(d), new SimpleMeterRegistry())) {
      long ts = firstTs;
      for (int written = 0; written < rows; ts++) {
        StoreBatch batch = s.newBatch();
        for (int seq = 0; seq < 100 && written < rows; seq++, written++) {
          batch.putRow(table, ts, seq, seq, value);
        }
        batch.setResolvedTs(ts);
        s.write(batch, false);
      }
    }
  }

  private List<Long> storedRowCommitTs() throws Exception {
    try (RawStoreDb raw = new RawStoreDb(dir)) {
      return raw.rowCommitTs();
    }
  }
}
