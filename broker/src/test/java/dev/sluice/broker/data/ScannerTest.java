package dev.sluice.broker.data;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.DataEvent;
import dev.sluice.api.v1.DmlBatch;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.broker.store.ScanCursor;
import dev.sluice.broker.testing.StoreFixture;
import dev.sluice.schema.TableInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scanner's merge of rows, DDL and sync points over real stores. */
class ScannerTest {

  @TempDir Path dir;
  StoreFixture stores;
  Scanner scanner;
  TableInfo t;
  /** Whether the scans of a test run for a stream with the ddl-in-txn feature. */
  boolean ddlInTxn = true;

  @BeforeEach
  void open() {
    stores = new StoreFixture(dir);
    scanner = new Scanner(stores.events, stores.schema);
    t = stores.createTable(100, "orders");
  }

  @AfterEach
  void close() {
    stores.close();
  }

  private ScanTask task(long from, long to, ScanCursor cursor, int nextFragment, long budget, int fragmentBytes,
      Set<RowOp> ignored, int syncIntervalS, long lastMarkTime) {
    return new ScanTask(DispatcherId.random(), null, 1, 2, TableSpan.wholeTable(100), from, to, cursor, nextFragment,
        t.version(), 0, lastMarkTime, ignored, syncIntervalS, 0, true, ddlInTxn, budget, fragmentBytes,
        new AtomicBoolean());
  }

  private ScanTask whole(long from, long to) {
    return task(from, to, null, 0, 1 << 20, 1 << 20, Set.of(), 0, -1);
  }

  @Test
  void ddlSitsBetweenTheTransactionsAroundIt() throws Exception {
    long t1 = stores.insert(100, 1, 2);
    TableInfo v2 = stores.addColumn(t, "note");
    long t3 = stores.insert(100, 3);

    ScanResult r = scanner.run(whole(t.version(), stores.lastTs()));

    assertThat(kinds(r)).containsExactly("DML@" + t1, "DDL@" + v2.version(), "DML@" + t3);
    assertThat(dml(r, 0).getTableInfoVersion()).isEqualTo(t.version());
    assertThat(dml(r, 2).getTableInfoVersion()).isEqualTo(v2.version());
    assertThat(r.progressTs()).isEqualTo(stores.lastTs());
    assertThat(r.reachedEnd()).isTrue();
    assertThat(r.cursor()).isNull();
    assertThat(r.tableInfoVersion()).isEqualTo(v2.version());
  }

  /**
   * Issue #16 (7): ADD COLUMN, UPDATE, SET NOT NULL in one transaction: the rows come between the two DDLs,
   * in parts split at them, each over the version in force at its place; an empty last part closes the
   * transaction after the last DDL.
   */
  @Test
  void aTransactionsRowsAreSplitAroundItsDdlAtTheirPlaces() throws Exception {
    TableInfo added = StoreFixture.withColumn(t, "first_name", true);
    TableInfo notNull = StoreFixture.withColumn(t, "first_name", false);
    long c = stores.transaction(100, List.of(added, StoreFixture.row(RowOp.ROW_OP_UPDATE, 1, "a"),
        StoreFixture.row(RowOp.ROW_OP_UPDATE, 2, "b"), notNull));

    ScanResult r = scanner.run(whole(t.version(), stores.lastTs()));

    assertThat(kinds(r)).containsExactly("DDL@" + c, "DML@" + c, "DDL@" + c, "DML@" + c);
    List<DataEvent> ev = events(r);
    assertThat(ev.get(0).getDdl().getRowSeq()).isZero();
    assertThat(ev.get(1).getDml().getRowsList()).extracting(RowChange::getRowSeq).containsExactly(1L, 2L);
    assertThat(ev.get(1).getDml().getLastFragment()).isFalse();
    assertThat(ev.get(1).getDml().getTableInfoVersion()).isEqualTo(c);
    assertThat(ev.get(1).getDml().getTableInfoVersionRowSeq()).isZero();
    assertThat(ev.get(2).getDdl().getRowSeq()).isEqualTo(3);
    assertThat(ev.get(3).getDml().getRowsList()).isEmpty();
    assertThat(ev.get(3).getDml().getFragmentIndex()).isEqualTo(1);
    assertThat(ev.get(3).getDml().getLastFragment()).isTrue();
    assertThat(ev.get(3).getDml().getTableInfoVersionRowSeq()).isEqualTo(3);
    assertThat(r.tableInfoVersion()).isEqualTo(c);
    assertThat(r.tableInfoVersionRowSeq()).isEqualTo(3);
    assertThat(r.progressTs()).isEqualTo(stores.lastTs());
  }

  /** Rows written before a DDL of the same transaction go before it, over the older version. */
  @Test
  void rowsBeforeADdlOfTheirTransactionKeepTheOlderVersion() throws Exception {
    TableInfo added = StoreFixture.withColumn(t, "note", true);
    long c = stores.transaction(100, List.of(StoreFixture.row(RowOp.ROW_OP_INSERT, 1, "old shape"), added,
        StoreFixture.row(RowOp.ROW_OP_INSERT, 2, "new shape")));

    ScanResult r = scanner.run(whole(t.version(), stores.lastTs()));

    assertThat(kinds(r)).containsExactly("DML@" + c, "DDL@" + c, "DML@" + c);
    List<DataEvent> ev = events(r);
    assertThat(ev.get(0).getDml().getRowsList()).extracting(RowChange::getRowSeq).containsExactly(0L);
    assertThat(ev.get(0).getDml().getTableInfoVersion()).isEqualTo(t.version());
    assertThat(ev.get(0).getDml().getLastFragment()).isFalse();
    assertThat(ev.get(2).getDml().getRowsList()).extracting(RowChange::getRowSeq).containsExactly(2L);
    assertThat(ev.get(2).getDml().getFragmentIndex()).isEqualTo(1);
    assertThat(ev.get(2).getDml().getLastFragment()).isTrue();
    assertThat(ev.get(2).getDml().getTableInfoVersion()).isEqualTo(c);
    assertThat(ev.get(2).getDml().getTableInfoVersionRowSeq()).isEqualTo(1);
  }

  /** A stream without the ddl-in-txn feature gets the order of earlier versions: DDL first. */
  @Test
  void withoutTheFeatureEveryDdlOfATransactionComesBeforeItsRows() throws Exception {
    ddlInTxn = false;
    TableInfo added = StoreFixture.withColumn(t, "note", true);
    long c = stores.transaction(100, List.of(StoreFixture.row(RowOp.ROW_OP_INSERT, 1, "x"), added,
        StoreFixture.row(RowOp.ROW_OP_INSERT, 2, "y"), StoreFixture.withColumn(t, "note", false)));

    ScanResult r = scanner.run(whole(t.version(), stores.lastTs()));

    assertThat(kinds(r)).containsExactly("DDL@" + c, "DDL@" + c, "DML@" + c);
    assertThat(dml(r, 2).getRowsList()).hasSize(2);
    assertThat(dml(r, 2).getLastFragment()).isTrue();
  }

  /** A cursor inside such a transaction is exact: a DDL it passed is not sent again, a later one is. */
  @Test
  void aCursorInsideATransactionResumesAtItsRowOrDdl() throws Exception {
    TableInfo added = StoreFixture.withColumn(t, "first_name", true);
    long c = stores.transaction(100, List.of(added, StoreFixture.row(RowOp.ROW_OP_UPDATE, 1, "a"),
        StoreFixture.row(RowOp.ROW_OP_UPDATE, 2, "b"), StoreFixture.withColumn(t, "first_name", false),
        StoreFixture.row(RowOp.ROW_OP_UPDATE, 3, "c")));

    ScanResult afterRow1 = scanner.run(task(c - 1, stores.lastTs(), new ScanCursor(c, 2), 1, 1 << 20, 1 << 20,
        Set.of(), 0, -1));
    assertThat(kinds(afterRow1)).containsExactly("DML@" + c, "DDL@" + c, "DML@" + c);
    List<DataEvent> ev = events(afterRow1);
    assertThat(ev.get(0).getDml().getRowsList()).extracting(RowChange::getRowSeq).containsExactly(2L);
    assertThat(ev.get(0).getDml().getFragmentIndex()).isEqualTo(1);
    assertThat(ev.get(1).getDdl().getRowSeq()).isEqualTo(3);
    assertThat(ev.get(2).getDml().getRowsList()).extracting(RowChange::getRowSeq).containsExactly(4L);

    ScanResult afterDdl = scanner.run(task(c - 1, stores.lastTs(), new ScanCursor(c, 4), 2, 1 << 20, 1 << 20,
        Set.of(), 0, -1));
    assertThat(kinds(afterDdl)).containsExactly("DML@" + c);
    assertThat(dml(afterDdl, 0).getRowsList()).extracting(RowChange::getRowSeq).containsExactly(4L);
    assertThat(dml(afterDdl, 0).getLastFragment()).isTrue();
  }

  /** A scan that runs out of budget inside such a transaction leaves a cursor a later scan resumes exactly at. */
  @Test
  void aBudgetStopInsideATransactionWithDdlResumesWithoutLossOrRepeat() throws Exception {
    List<Object> changes = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      changes.add(StoreFixture.row(RowOp.ROW_OP_INSERT, i, "r" + i));
    }
    changes.add(StoreFixture.withColumn(t, "note", true));
    for (int i = 6; i < 9; i++) {
      changes.add(StoreFixture.row(RowOp.ROW_OP_INSERT, i, "r" + i));
    }
    long c = stores.transaction(100, changes);

    List<String> seen = new ArrayList<>();
    ScanCursor cursor = null;
    int nextFragment = 0;
    long from = t.version();
    for (int scan = 0; scan < 20; scan++) {
      ScanResult r = scanner.run(task(from, stores.lastTs(), cursor, nextFragment, 30, 30, Set.of(), 0, -1));
      for (DataEvent e : events(r)) {
        if (e.hasDdl()) {
          seen.add("DDL" + e.getDdl().getRowSeq());
        } else if (e.hasDml()) {
          e.getDml().getRowsList().forEach(row -> seen.add("row" + row.getRowSeq()));
        }
      }
      if (r.reachedEnd()) {
        break;
      }
      from = r.progressTs();
      cursor = r.cursor();
      nextFragment = r.nextFragmentIndex();
    }
    assertThat(seen).containsExactly("row0", "row1", "row2", "row3", "row4", "row5", "DDL6", "row7", "row8", "row9");
    assertThat(c).isEqualTo(stores.lastTs());
  }

  @Test
  void aSpentBudgetStopsAtATransactionBoundary() throws Exception {
    long t1 = stores.insert(100, 1, 2, 3);
    stores.insert(100, 4, 5, 6);

    ScanResult r = scanner.run(task(t.version(), stores.lastTs(), null, 0, 10, 1 << 20, Set.of(), 0, -1));

    assertThat(kinds(r)).containsExactly("DML@" + t1);
    assertThat(dml(r, 0).getLastFragment()).isTrue();
    assertThat(r.progressTs()).isEqualTo(t1);
    assertThat(r.reachedEnd()).isFalse();
    assertThat(r.cursor()).isNull();
  }

  @Test
  void aLargeTransactionGoesOutInFragmentsAndResumesAtItsCursor() throws Exception {
    long[] ids = new long[50];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i;
    }
    long big = stores.insert(100, ids);
    long rowBytes = StoreFixture.row(RowOp.ROW_OP_INSERT, 10, "v10").toBuilder().setRowSeq(10).build()
        .getSerializedSize();
    int fragmentBytes = (int) (rowBytes * 10);

    // budget for two fragments: the scan stops inside the transaction with a cursor
    ScanResult first = scanner.run(task(t.version(), stores.lastTs(), null, 0, fragmentBytes * 2L, fragmentBytes,
        Set.of(), 0, -1));
    assertThat(first.reachedEnd()).isFalse();
    assertThat(first.progressTs()).isEqualTo(t.version());
    assertThat(first.nextFragmentIndex()).isEqualTo(2);
    List<DmlBatch> fragments = new ArrayList<>();
    for (DataEvent e : events(first)) {
      fragments.add(e.getDml());
    }
    int sentRows = fragments.stream().mapToInt(DmlBatch::getRowsCount).sum();
    assertThat(first.cursor()).isEqualTo(new ScanCursor(big, sentRows));

    ScanResult rest = scanner.run(task(first.progressTs(), stores.lastTs(), first.cursor(), first.nextFragmentIndex(),
        1 << 20, fragmentBytes, Set.of(), 0, -1));
    for (DataEvent e : events(rest)) {
      fragments.add(e.getDml());
    }
    assertThat(rest.reachedEnd()).isTrue();
    for (int i = 0; i < fragments.size(); i++) {
      assertThat(fragments.get(i).getFragmentIndex()).isEqualTo(i);
      assertThat(fragments.get(i).getLastFragment()).isEqualTo(i == fragments.size() - 1);
    }
    assertThat(fragments.size()).isGreaterThanOrEqualTo(4);
    List<Long> seqs = new ArrayList<>();
    for (DmlBatch f : fragments) {
      assertThat(f.getCommitTs()).isEqualTo(big);
      f.getRowsList().forEach(row -> seqs.add(row.getRowSeq()));
    }
    assertThat(seqs).hasSize(50).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void aCursorAfterTheLastRowClosesTheTransactionWithAnEmptyLastFragment() throws Exception {
    long ts = stores.insert(100, 1, 2);

    ScanResult r = scanner.run(task(t.version(), stores.lastTs(), new ScanCursor(ts, 2), 3, 1 << 20, 1 << 20,
        Set.of(), 0, -1));

    assertThat(events(r)).hasSize(1);
    DmlBatch last = dml(r, 0);
    assertThat(last.getRowsList()).isEmpty();
    assertThat(last.getFragmentIndex()).isEqualTo(3);
    assertThat(last.getLastFragment()).isTrue();
  }

  @Test
  void ddlAtOrBelowTheCursorWasAlreadySent() throws Exception {
    stores.addColumn(t, "note");
    long ts = stores.insert(100, 1, 2, 3);

    ScanResult r = scanner.run(task(t.version(), stores.lastTs(), new ScanCursor(ts, 1), 1, 1 << 20, 1 << 20,
        Set.of(), 0, -1));

    assertThat(kinds(r)).containsExactly("DML@" + ts);
    assertThat(dml(r, 0).getRowsList()).extracting(RowChange::getRowSeq).containsExactly(1L, 2L);
  }

  @Test
  void ignoredOperationsAreFilteredAndEmptiedTransactionsVanish() throws Exception {
    long inserts = stores.insert(100, 1, 2);
    long deletes = stores.commit(100, List.of(StoreFixture.row(RowOp.ROW_OP_DELETE, 1, "v1")));
    long mixed = stores.commit(100, List.of(StoreFixture.row(RowOp.ROW_OP_UPDATE, 2, "w"),
        StoreFixture.row(RowOp.ROW_OP_DELETE, 2, "w")));

    ScanResult r = scanner.run(task(t.version(), stores.lastTs(), null, 0, 1 << 20, 1 << 20,
        Set.of(RowOp.ROW_OP_DELETE), 0, -1));

    assertThat(kinds(r)).containsExactly("DML@" + inserts, "DML@" + mixed);
    assertThat(dml(r, 1).getRowsList()).extracting(RowChange::getOp).containsExactly(RowOp.ROW_OP_UPDATE);
    assertThat(deletes).isBetween(inserts, mixed);
  }

  @Test
  void syncPointsSitJustBelowTheFirstTransactionPastEachBoundary() throws Exception {
    long a = stores.insert(100, 1);              // time T0 + 1 ms
    stores.advanceTimeMicros(1_500_000);         // cross a 1 s boundary
    long b = stores.insert(100, 2);
    long hb = stores.heartbeat();                // same second: no sync point
    stores.advanceTimeMicros(1_000_000);
    long c = stores.heartbeat();                 // crosses again with no row of this span

    ScanResult r = scanner.run(task(t.version(), stores.lastTs(), null, 0, 1 << 20, 1 << 20, Set.of(), 1, -1));

    assertThat(kinds(r)).containsExactly("DML@" + a, "SYNC@" + (b - 1), "DML@" + b, "SYNC@" + (c - 1));
    assertThat(hb).isBetween(b, c);
    assertThat(r.progressTs()).isEqualTo(c);
  }

  @Test
  void aNewEpochDoesNotMissTheFirstBoundaryAfterItsStart() throws Exception {
    long a = stores.insert(100, 1);
    stores.advanceTimeMicros(1_500_000);
    long b = stores.insert(100, 2);

    // the stream starts at a with no mark seen yet (a reset): the store tells where a stands in time
    ScanResult r = scanner.run(task(a, stores.lastTs(), null, 0, 1 << 20, 1 << 20, Set.of(), 1, -1));

    assertThat(kinds(r)).containsExactly("SYNC@" + (b - 1), "DML@" + b);
  }

  @Test
  void commitTimeTravelsWithEachTransaction() throws Exception {
    long a = stores.insert(100, 1);
    ScanResult r = scanner.run(whole(t.version(), a));
    assertThat(dml(r, 0).getCommitTimeMicros()).isGreaterThan(1_700_000_000_000_000L);
  }

  @Test
  void commitTimesStayWithTheirTransactionsAcrossMarkWindows() throws Exception {
    int txns = MarkWindow.WINDOW * 2 + 10;
    for (int i = 0; i < txns; i++) {
      stores.insert(100, i);
    }
    ScanResult r = scanner.run(whole(t.version(), stores.lastTs()));

    List<Long> times = new ArrayList<>();
    for (DataEvent e : events(r)) {
      times.add(e.getDml().getCommitTimeMicros());
    }
    assertThat(times).hasSize(txns).doesNotContain(0L).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void aCancelledScanReturnsNothing() {
    long[] ids = new long[3000];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i;
    }
    stores.insert(100, ids);
    ScanTask task = whole(t.version(), stores.lastTs());
    task.cancelled().set(true);
    assertThat(scanner.run(task)).isNull();
  }

  /** The data events of the result's messages, checking they are numbered from 2 without gaps. */
  private static List<DataEvent> events(ScanResult r) throws InvalidProtocolBufferException {
    List<DataEvent> out = new ArrayList<>();
    for (byte[] m : r.messages()) {
      out.addAll(BrokerMessage.parseFrom(m).getEventBatch().getEventsList());
    }
    for (int i = 0; i < out.size(); i++) {
      assertThat(out.get(i).getSeq()).isEqualTo(2 + i);
    }
    assertThat(out).hasSize(r.eventCount());
    return out;
  }

  private static List<String> kinds(ScanResult r) throws InvalidProtocolBufferException {
    List<String> out = new ArrayList<>();
    for (DataEvent e : events(r)) {
      switch (e.getPayloadCase()) {
        case DML -> out.add("DML@" + e.getDml().getCommitTs());
        case DDL -> out.add("DDL@" + e.getDdl().getCommitTs());
        default -> out.add("SYNC@" + e.getSyncPoint().getTs());
      }
    }
    return out;
  }

  private static DmlBatch dml(ScanResult r, int i) throws InvalidProtocolBufferException {
    DataEvent e = events(r).get(i);
    assertThat(e.hasDml()).isTrue();
    return e.getDml();
  }
}
