package dev.sluice.broker.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.api.TableSpan;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.FatalException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.RocksDBException;

class RocksEventStoreTest {

  @TempDir
  Path dir;

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private RocksEventStore store;

  @BeforeEach
  void open() {
    store = RocksEventStore.open(config(), registry);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private EventStoreConfig config() {
    return EventStoreConfig.defaults(dir).withBlockCacheBytes(8L << 20).withWriteBufferBytes(4L << 20);
  }

  private void reopen() {
    store.close();
    store = RocksEventStore.open(config(), registry);
  }

  /** Writes one transaction of {@code rowsPerTable} rows in each table, resolved at its commit ts. */
  private List<ScannedRow> writeTxn(long commitTs, int rowsPerTable, long... tables) {
    StoreBatch batch = store.newBatch();
    List<ScannedRow> rows = txnRows(commitTs, rowsPerTable, tables);
    rows.forEach(r -> r.putInto(batch));
    batch.setPosition(new SourcePosition(commitTs, commitTs + 1));
    batch.setResolvedTs(commitTs);
    store.write(batch, true);
    return rows;
  }

  private static List<ScannedRow> txnRows(long commitTs, int rowsPerTable, long... tables) {
    List<ScannedRow> rows = new ArrayList<>();
    long seq = 0;
    for (long table : tables) {
      for (int i = 0; i < rowsPerTable; i++) {
        rows.add(ScannedRow.of(table, commitTs, seq, (int) (seq * 0x9E3779B9L + table)));
        seq++;
      }
    }
    return rows;
  }

  private List<ScannedRow> scan(long table, long from, long to) {
    return ScannedRow.drain(store.scan(TableSpan.wholeTable(table), from, to, null));
  }

  private static List<ScannedRow> ofTable(List<ScannedRow> rows, long table) {
    return rows.stream().filter(r -> r.tableId() == table)
        .sorted(Comparator.comparingLong(ScannedRow::commitTs).thenComparingLong(ScannedRow::rowSeq))
        .collect(Collectors.toList());
  }

  @Test
  void rowsRoundTripWithTheirKeyFieldsAndBytes() {
    StoreBatch batch = store.newBatch();
    byte[] value = new byte[] {0, 1, (byte) 0xff, 42};
    batch.putRow(16384, 1_000, 7, 0xCAFEBABE, value);
    batch.putRow(16384, 1_000, 8, 0, new byte[0]);
    batch.setResolvedTs(1_000);
    store.write(batch, true);

    try (RowScan scan = store.scan(TableSpan.wholeTable(16384), 0, 1_000, null)) {
      assertThat(scan.next()).isTrue();
      assertThat(scan.tableId()).isEqualTo(16384);
      assertThat(scan.commitTs()).isEqualTo(1_000);
      assertThat(scan.rowSeq()).isEqualTo(7);
      assertThat(scan.keyHash()).isEqualTo(0xCAFEBABE);
      assertThat(scan.rowChange()).isEqualTo(value);
      assertThat(scan.next()).isTrue();
      assertThat(scan.rowChange()).isEmpty();
      assertThat(scan.next()).isFalse();
      assertThat(scan.next()).isFalse();
    }
  }

  @Test
  void scanReturnsOneTablesRowsInCommitOrderAcrossBatches() {
    List<ScannedRow> written = new ArrayList<>();
    // commit order is the batches' order; rows inside a transaction interleave tables
    written.addAll(writeTxn(10, 2, 2, 1, 3));
    written.addAll(writeTxn(20, 3, 1));
    written.addAll(writeTxn(35, 1, 3, 2));
    written.addAll(writeTxn(40, 2, 1, 2));

    for (long table = 1; table <= 3; table++) {
      assertThat(scan(table, 0, 40)).as("table %d", table).containsExactlyElementsOf(ofTable(written, table));
    }
    assertThat(scan(4, 0, 40)).isEmpty();
  }

  @Test
  void groupCommitBatchOfManyTransactionsIsScannedInCommitOrder() {
    StoreBatch batch = store.newBatch();
    List<ScannedRow> written = new ArrayList<>();
    for (long ts = 100; ts <= 1_000; ts += 100) {
      List<ScannedRow> txn = txnRows(ts, 3, 1, 2);
      txn.forEach(r -> r.putInto(batch));
      batch.putTimeMark(ts, ts * 1_000);
      batch.setPosition(new SourcePosition(ts, ts + 1));
      batch.setResolvedTs(ts);
      written.addAll(txn);
    }
    assertThat(batch.rowCount()).isEqualTo(60);
    store.write(batch, true);

    assertThat(scan(1, 0, 1_000)).containsExactlyElementsOf(ofTable(written, 1));
    assertThat(store.position()).contains(new SourcePosition(1_000, 1_001));
    assertThat(store.resolvedTs()).isEqualTo(1_000);
    assertThat(store.timeMarks(0, 1_000)).hasSize(10);
  }

  @Test
  void scanBoundsAreExclusiveBelowAndInclusiveAbove() {
    writeTxn(10, 1, 1);
    writeTxn(20, 1, 1);
    writeTxn(30, 1, 1);

    assertThat(scan(1, 10, 30)).extracting(ScannedRow::commitTs).containsExactly(20L, 30L);
    assertThat(scan(1, 9, 10)).extracting(ScannedRow::commitTs).containsExactly(10L);
    assertThat(scan(1, 0, 9)).isEmpty();
    assertThat(scan(1, 19, 29)).extracting(ScannedRow::commitTs).containsExactly(20L);
    assertThat(scan(1, 30, 40)).isEmpty();
    assertThat(scan(1, 20, 20)).isEmpty();
    assertThat(scan(1, 25, 15)).isEmpty();
    assertThat(scan(1, 0, Long.MAX_VALUE)).extracting(ScannedRow::commitTs).containsExactly(10L, 20L, 30L);
  }

  @Test
  void scanToTheLargestTsStaysInsideItsTable() {
    writeTxn(10, 2, 1, 2);
    writeTxn(Long.MAX_VALUE - 1, 1, 1, 2);
    writeTxn(15, 1, Long.MAX_VALUE);

    assertThat(scan(1, 0, Long.MAX_VALUE)).extracting(ScannedRow::tableId).containsOnly(1L).hasSize(3);
    assertThat(scan(Long.MAX_VALUE, 0, Long.MAX_VALUE)).extracting(ScannedRow::commitTs).containsExactly(15L);
  }

  @Test
  void spanScanReturnsExactlyTheRowsWhoseHashLiesInTheSpan() {
    StoreBatch batch = store.newBatch();
    int[] hashes = {0, 1, 0x3FFF_FFFF, 0x4000_0000, 0x7FFF_FFFF, 0x8000_0000, 0xBFFF_FFFF, 0xC000_0000, -1};
    for (int i = 0; i < hashes.length; i++) {
      batch.putRow(7, 50, i, hashes[i], ScannedRow.valueOf(7, 50, i).getBytes(StandardCharsets.UTF_8));
    }
    batch.setResolvedTs(50);
    store.write(batch, true);

    List<TableSpan> quarters = TableSpan.wholeTable(7).split(4);
    List<List<Integer>> seen = new ArrayList<>();
    for (TableSpan quarter : quarters) {
      List<ScannedRow> rows = ScannedRow.drain(store.scan(quarter, 0, 50, null));
      assertThat(rows).allSatisfy(r -> assertThat(quarter.contains(r.keyHash())).isTrue());
      assertThat(rows).allSatisfy(r -> assertThat(r.value()).isEqualTo(ScannedRow.valueOf(7, 50, r.rowSeq())));
      seen.add(rows.stream().map(ScannedRow::keyHash).collect(Collectors.toList()));
    }
    assertThat(seen).containsExactly(List.of(0, 1, 0x3FFF_FFFF), List.of(0x4000_0000, 0x7FFF_FFFF),
        List.of(0x8000_0000, 0xBFFF_FFFF), List.of(0xC000_0000, -1));
  }

  @Test
  void cursorSkipsOnlyTheRowsOfItsTransactionBeforeNextRowSeq() {
    writeTxn(10, 3, 1);
    writeTxn(20, 5, 1);
    writeTxn(30, 2, 1);

    List<ScannedRow> rows = ScannedRow.drain(store.scan(TableSpan.wholeTable(1), 0, 30, new ScanCursor(20, 3)));

    assertThat(rows).extracting(r -> r.commitTs() + ":" + r.rowSeq())
        .containsExactly("10:0", "10:1", "10:2", "20:3", "20:4", "30:0", "30:1");
  }

  @Test
  void cursorPastTheLastRowOfItsTransactionSkipsTheWholeTransaction() {
    writeTxn(20, 5, 1);
    writeTxn(30, 2, 1);

    List<ScannedRow> rows = ScannedRow.drain(store.scan(TableSpan.wholeTable(1), 19, 30, new ScanCursor(20, 5)));

    assertThat(rows).extracting(r -> r.commitTs() + ":" + r.rowSeq()).containsExactly("30:0", "30:1");
  }

  @Test
  void cursorOutsideTheRangeChangesNothing() {
    writeTxn(20, 3, 1);
    writeTxn(30, 2, 1);

    assertThat(ScannedRow.drain(store.scan(TableSpan.wholeTable(1), 20, 30, new ScanCursor(20, 2))))
        .extracting(ScannedRow::rowSeq).containsExactly(0L, 1L);
    assertThat(ScannedRow.drain(store.scan(TableSpan.wholeTable(1), 0, 20, new ScanCursor(30, 1))))
        .extracting(ScannedRow::rowSeq).containsExactly(0L, 1L, 2L);
  }

  @Test
  void fragmentsAboveTheResolvedTsAreReturnedOnlyToScansThatReachThem() {
    writeTxn(40, 1, 1);
    // a large transaction at commit ts 50 streams in two fragments before its commit
    StoreBatch fragment = store.newBatch();
    txnRows(50, 3, 1).forEach(r -> r.putInto(fragment));
    store.write(fragment, false);
    assertThat(store.resolvedTs()).isEqualTo(40);

    assertThat(scan(1, 0, store.resolvedTs())).extracting(ScannedRow::commitTs).containsExactly(40L);
    // the store does not hide stored rows: a caller breaking "to <= resolvedTs" sees the fragment
    assertThat(scan(1, 40, 50)).extracting(ScannedRow::rowSeq).containsExactly(0L, 1L, 2L);

    StoreBatch commit = store.newBatch();
    commit.putRow(1, 50, 3, 0, ScannedRow.valueOf(1, 50, 3).getBytes(StandardCharsets.UTF_8));
    commit.setResolvedTs(50);
    store.write(commit, true);
    assertThat(scan(1, 40, store.resolvedTs())).extracting(ScannedRow::rowSeq).containsExactly(0L, 1L, 2L, 3L);
  }

  @Test
  void theFloorWhereCaptureBeganSurvivesReopenAndANewStoreHasNone() {
    assertThat(store.floorTs()).isZero();
    StoreBatch b = store.newBatch();
    b.setFloorTs(9);
    b.setResolvedTs(9);
    store.write(b, true);
    writeTxn(10, 1, 1);

    reopen();

    assertThat(store.floorTs()).isEqualTo(9);
    assertThat(store.resolvedTs()).isEqualTo(10);
  }

  @Test
  void positionResolvedTsAndLastCommitTsSurviveReopen() {
    writeTxn(10, 1, 1, 2);
    writeTxn(25, 2, 2);
    assertThat(store.lastCommitTs(1)).isEqualTo(10);
    assertThat(store.lastCommitTs(2)).isEqualTo(25);
    assertThat(store.lastCommitTs(3)).isZero();

    reopen();

    assertThat(store.position()).contains(new SourcePosition(25, 26));
    assertThat(store.resolvedTs()).isEqualTo(25);
    assertThat(store.lastCommitTs(1)).isEqualTo(10);
    assertThat(store.lastCommitTs(2)).isEqualTo(25);
    assertThat(store.lastCommitTs(3)).isZero();
    assertThat(scan(2, 0, 25)).hasSize(3);
  }

  @Test
  void storeOfAnotherLayoutVersionIsRefusedAsCorrupt() throws Exception {
    store.close();
    try (RawStoreDb raw = new RawStoreDb(dir)) {
      raw.putMeta(EventKey.FORMAT_VERSION, EventKey.ts(StoredMeta.FORMAT_VERSION + 1));
    }

    FatalException e = catchThrowableOfType(FatalException.class, () -> RocksEventStore.open(config(), registry));

    assertThat(e.code()).isEqualTo(ErrorCode.STORE_CORRUPT);
    assertThat(e.getMessage()).contains(dir.toString(), "layout version 2", "reads version 1");
  }

  @Test
  void newStoreHasNoPositionAndZeroTimestamps() {
    assertThat(store.position()).isEmpty();
    assertThat(store.resolvedTs()).isZero();
    assertThat(store.gcTs()).isZero();
    assertThat(store.timeMarks(0, Long.MAX_VALUE)).isEmpty();
  }

  @Test
  void resolvedListenerFiresOncePerWriteThatAdvancesTheResolvedTs() {
    List<Long> notified = new ArrayList<>();
    AtomicReference<Thread> listenerThread = new AtomicReference<>();
    AtomicReference<List<ScannedRow>> visibleAtNotify = new AtomicReference<>();
    store.addResolvedListener(ts -> {
      notified.add(ts);
      listenerThread.set(Thread.currentThread());
      visibleAtNotify.set(scan(1, 0, ts));
    });

    writeTxn(10, 2, 1);
    assertThat(notified).containsExactly(10L);
    assertThat(listenerThread.get()).isSameAs(Thread.currentThread());
    assertThat(visibleAtNotify.get()).hasSize(2);

    StoreBatch same = store.newBatch();
    same.setResolvedTs(10);
    store.write(same, true);
    StoreBatch lower = store.newBatch();
    lower.setResolvedTs(5);
    store.write(lower, false);
    StoreBatch none = store.newBatch();
    txnRows(15, 1, 1).forEach(r -> r.putInto(none));
    store.write(none, false);
    assertThat(notified).containsExactly(10L);

    StoreBatch heartbeat = store.newBatch();
    heartbeat.setResolvedTs(12);
    heartbeat.setResolvedTs(11); // the highest value set in a batch wins
    store.write(heartbeat, false);
    writeTxn(20, 1, 1);
    assertThat(notified).containsExactly(10L, 12L, 20L);
  }

  @Test
  void failingListenerNeitherFailsTheWriteNorSilencesLaterListeners() {
    List<Long> notified = new ArrayList<>();
    store.addResolvedListener(ts -> {
      throw new IllegalStateException("listener bug");
    });
    store.addResolvedListener(notified::add);

    writeTxn(10, 1, 1);

    assertThat(notified).containsExactly(10L);
    assertThat(store.resolvedTs()).isEqualTo(10);
  }

  @Test
  void timeMarksAreReturnedInCommitOrderWithinTheirBounds() {
    StoreBatch batch = store.newBatch();
    batch.putTimeMark(30, 3_000);
    batch.putTimeMark(10, 1_000);
    batch.putTimeMark(20, 2_000);
    store.write(batch, true);

    assertThat(store.timeMarks(0, 30)).containsExactly(new TimeMark(10, 1_000), new TimeMark(20, 2_000),
        new TimeMark(30, 3_000));
    assertThat(store.timeMarks(10, 20)).containsExactly(new TimeMark(20, 2_000));
    assertThat(store.timeMarks(30, 100)).isEmpty();
    assertThat(store.timeMarks(20, 10)).isEmpty();
  }

  @Test
  void batchWrittenTwiceLeavesTheSameStateAsOnce() {
    StoreBatch batch = store.newBatch();
    List<ScannedRow> rows = txnRows(10, 3, 1);
    rows.forEach(r -> r.putInto(batch));
    batch.setPosition(new SourcePosition(10, 11));
    batch.setResolvedTs(10);
    long size = batch.byteSize();
    store.write(batch, true);
    store.write(batch, true);

    assertThat(batch.byteSize()).isEqualTo(size);
    assertThat(scan(1, 0, 10)).containsExactlyElementsOf(rows);
  }

  @Test
  void failedWriteIsTransientAndAdvancesNothing() {
    writeTxn(10, 1, 1);
    List<Long> notified = new ArrayList<>();
    store.addResolvedListener(notified::add);
    // a real RocksDB failure: the batch names a column family the database does not have
    RocksStoreBatch broken = new RocksStoreBatch(store, 99, 99);
    broken.putRow(1, 20, 0, 0, new byte[] {1});
    broken.setPosition(new SourcePosition(20, 21));
    broken.setResolvedTs(20);

    StoreUnavailableException e = catchThrowableOfType(StoreUnavailableException.class,
        () -> store.write(broken, true));

    assertThat(e.code()).isEqualTo(ErrorCode.STORE_UNAVAILABLE);
    assertThat(e.getCause()).isInstanceOf(RocksDBException.class);
    assertThat(e.getMessage()).contains(dir.toString(), "write a batch of 1 rows with sync");
    assertThat(store.resolvedTs()).isEqualTo(10);
    assertThat(store.position()).contains(new SourcePosition(10, 11));
    assertThat(store.lastCommitTs(1)).isEqualTo(10);
    assertThat(notified).isEmpty();
    assertThat(scan(1, 0, 20)).hasSize(1);
  }

  @Test
  void batchKnowsItsRowCountAndGrowingSize() {
    StoreBatch batch = store.newBatch();
    long empty = batch.byteSize();
    batch.putRow(1, 10, 0, 0, new byte[100]);
    assertThat(batch.rowCount()).isEqualTo(1);
    assertThat(batch.byteSize()).isGreaterThanOrEqualTo(empty + 128);
  }

  @Test
  void invalidRowKeysAreRejectedWithTheOffendingValues() {
    StoreBatch batch = store.newBatch();
    assertThatThrownBy(() -> batch.putRow(0, 10, 0, 0, new byte[0]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("(0, 10, 0)");
    assertThatThrownBy(() -> batch.putRow(1, 0, 0, 0, new byte[0])).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> batch.putRow(1, 10, -1, 0, new byte[0])).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.scan(TableSpan.wholeTable(1), -1, 10, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
  }

  @Test
  void batchOfAnotherStoreIsRejected(@TempDir Path otherDir) {
    try (RocksEventStore other = RocksEventStore.open(EventStoreConfig.defaults(otherDir), new SimpleMeterRegistry())) {
      StoreBatch foreign = other.newBatch();
      assertThatThrownBy(() -> store.write(foreign, false)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("newBatch()");
    }
  }

  @Test
  void closedStoreRejectsWritesAndScans() {
    store.close();

    assertThatThrownBy(() -> store.write(store.newBatch(), true)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> store.scan(TableSpan.wholeTable(1), 0, 1, null))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> store.gc(5)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void rowScanAccessorsOutsideARowAreRejected() {
    writeTxn(10, 1, 1);
    try (RowScan scan = store.scan(TableSpan.wholeTable(1), 0, 10, null)) {
      assertThatThrownBy(scan::commitTs).isInstanceOf(IllegalStateException.class);
      assertThat(scan.next()).isTrue();
      assertThat(scan.next()).isFalse();
      assertThatThrownBy(scan::rowChange).isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void metricsCountRowsBytesWritesAndScannedRows() {
    writeTxn(10, 3, 1);
    StoreBatch unsynced = store.newBatch();
    unsynced.putRow(1, 20, 0, 0, new byte[72]);
    store.write(unsynced, false);
    scan(1, 0, 20);

    assertThat(registry.get("sluice.store.rows.written").counter().count()).isEqualTo(4);
    assertThat(registry.get("sluice.store.bytes.written").counter().count())
        .isEqualTo(3 * 28 + "t1/ts10/seq0".length() * 3 + 28 + 72);
    assertThat(registry.get("sluice.store.write.latency").tag("sync", "true").timer().count()).isEqualTo(1);
    assertThat(registry.get("sluice.store.write.latency").tag("sync", "false").timer().count()).isEqualTo(1);
    assertThat(registry.get("sluice.store.scan.rows").counter().count()).isEqualTo(4);
    assertThat(registry.get("sluice.store.resolved.ts").gauge().value()).isEqualTo(10);
    store.gc(5);
    assertThat(registry.get("sluice.store.gc.ts").gauge().value()).isEqualTo(5);
  }

  @Test
  void statsReportTablesAndTimestamps() {
    writeTxn(10, 3, 1, 2);
    store.gc(5);

    EventStoreStats stats = store.stats();

    assertThat(stats.resolvedTs()).isEqualTo(10);
    assertThat(stats.gcTs()).isEqualTo(5);
    assertThat(stats.tables()).isEqualTo(2);
    assertThat(stats.memtableBytes()).isPositive();
    assertThat(stats.openScans()).isZero();
  }
}
