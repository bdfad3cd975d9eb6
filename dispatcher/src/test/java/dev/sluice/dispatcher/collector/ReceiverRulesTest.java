package dev.sluice.dispatcher.collector;

import static dev.sluice.dispatcher.collector.TestEvents.fragment;
import static dev.sluice.dispatcher.collector.TestEvents.insert;
import static dev.sluice.dispatcher.collector.TestEvents.txn;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.api.DispatcherId;
import dev.sluice.api.v1.ColumnCodec;
import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.CopyRows;
import dev.sluice.api.v1.DataEvent;
import dev.sluice.api.v1.DdlEvent;
import dev.sluice.api.v1.DmlBatch;
import dev.sluice.api.v1.EventBatch;
import dev.sluice.api.v1.SyncPoint;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.TextCodec;
import org.junit.jupiter.api.Test;

/** The pure receiver rules: every violation they name, and the sequences they let through. */
class ReceiverRulesTest {

  private static final DispatcherId ID = new DispatcherId(1, 2);
  /** Columns of the table info in force (TestEvents.ORDERS: id, note). */
  private static final int COLUMNS = 2;
  private static final ColumnCodec INT = ColumnCodec.newBuilder().setCodec(TextCodec.TEXT_CODEC_INT).build();
  private static final ColumnCodec TEXT = ColumnCodec.newBuilder().setCodec(TextCodec.TEXT_CODEC_TEXT).build();

  private static EventBatch events(DataEvent... e) {
    return TestEvents.batch(ID, 1, e).getEventBatch();
  }

  /** Checks after a handshake at start ts 100, no transaction open. */
  private static String check(DataEvent... e) {
    return ReceiverRules.firstViolation(events(e), 1, -1, 0, 100, 100, 0, true, COLUMNS);
  }

  /** As {@link #check}, on a stream without the ddl-in-txn feature. */
  private static String checkWithoutDdlInTxn(DataEvent... e) {
    return ReceiverRules.firstViolation(events(e), 1, -1, 0, 100, 100, 0, false, COLUMNS);
  }

  private static DataEvent ddl(long seq, long ts) {
    return DataEvent.newBuilder().setSeq(seq).setDdl(DdlEvent.newBuilder().setCommitTs(ts)).build();
  }

  private static DataEvent sync(long seq, long ts) {
    return DataEvent.newBuilder().setSeq(seq).setSyncPoint(SyncPoint.newBuilder().setTs(ts)).build();
  }

  @Test
  void inOrderEventsPass() {
    assertThat(check(txn(2, 101), ddl(3, 102), txn(4, 102), sync(5, 102), txn(6, 103))).isNull();
    assertThat(check(fragment(2, 101, 0, false, insert(0, 1, "a")), fragment(3, 101, 1, true, insert(1, 2, "b"))))
        .isNull();
  }

  @Test
  void everyViolationIsNamed() {
    assertThat(check(txn(3, 101))).isEqualTo("seq_gap");
    assertThat(check(txn(2, 101), txn(2, 102))).isEqualTo("seq_gap");
    assertThat(check(txn(2, 101), txn(3, 101))).isEqualTo("commit_ts_order");
    assertThat(check(txn(2, 100))).isEqualTo("commit_ts_order");        // at or before the start ts
    assertThat(check(ddl(2, 99))).isEqualTo("commit_ts_order");
    assertThat(check(fragment(2, 101, 0, false, insert(0, 1, "a")), txn(3, 102))).isEqualTo("fragment_interleaved");
    assertThat(check(fragment(2, 101, 0, false, insert(0, 1, "a")), fragment(3, 101, 2, true, insert(1, 2, "b"))))
        .isEqualTo("fragment_gap");
    assertThat(check(fragment(2, 101, 1, true, insert(1, 2, "b")))).isEqualTo("fragment_gap");
    assertThat(check(fragment(2, 101, 0, false, insert(0, 1, "a")), ddl(3, 102))).isEqualTo("event_inside_transaction");
    assertThat(check(fragment(2, 101, 0, false, insert(0, 1, "a")), sync(3, 101))).isEqualTo("event_inside_transaction");
    assertThat(checkWithoutDdlInTxn(fragment(2, 101, 0, false, insert(0, 1, "a")), ddl(3, 101)))
        .isEqualTo("event_inside_transaction");
    assertThat(check(DataEvent.newBuilder().setSeq(2).build())).isEqualTo("empty_event");
  }

  /** Issue #16 (7): with ddl-in-txn, a transaction's own DDL comes between its parts. */
  @Test
  void aDdlOfTheOpenTransactionMayComeBetweenItsParts() {
    assertThat(check(ddl(2, 101), fragment(3, 101, 0, false, insert(1, 1, "a")), ddl(4, 101),
        fragment(5, 101, 1, false, insert(5, 2, "b")), ddl(6, 101), fragment(7, 101, 2, true), txn(8, 102))).isNull();
    assertThat(check(fragment(2, 101, 0, false, insert(1, 1, "a")), ddl(3, 101), fragment(4, 101, 2, true)))
        .isEqualTo("fragment_gap");
  }

  @Test
  void aResumeCursorAllowsTheTransactionToRestartMidWay() {
    EventBatch b = events(fragment(2, 101, 3, true, insert(5, 1, "a")));
    assertThat(ReceiverRules.firstViolation(b, 1, -1, 0, 100, 100, 101, true, COLUMNS)).isNull();
    assertThat(ReceiverRules.firstViolation(b, 1, -1, 0, 100, 100, 0, true, COLUMNS)).isEqualTo("fragment_gap");
  }

  @Test
  void aBatchContinuesAnOpenTransaction() {
    EventBatch b = events(fragment(5, 101, 2, true, insert(2, 1, "a")));
    assertThat(ReceiverRules.firstViolation(b, 4, 101, 2, 101, 100, 0, true, COLUMNS)).isNull();
    assertThat(ReceiverRules.firstViolation(b, 4, 101, 1, 101, 100, 0, true, COLUMNS)).isEqualTo("fragment_gap");
  }

  /** Two READ rows (1, "a"), (2, "b") from row seq 0 as CopyRows, for the tests to break. */
  private static CopyRows.Builder twoLines() {
    return CopyRows.newBuilder().setLines(ByteString.copyFromUtf8("1\ta\n2\tb\n")).setRowCount(2)
        .addKeyHashes(11).addKeyHashes(12).addColumns(INT).addColumns(TEXT);
  }

  private static DataEvent copyPart(long seq, long ts, CopyRows.Builder copy) {
    return DataEvent.newBuilder().setSeq(seq).setDml(DmlBatch.newBuilder().setCommitTs(ts).setLastFragment(true)
        .setCopyRows(copy)).build();
  }

  @Test
  void wellFormedCopyRowsPassAndEveryMalformedOneIsNamed() {
    assertThat(check(copyPart(2, 101, twoLines()))).isNull();
    assertThat(check(copyPart(2, 101, CopyRows.newBuilder()))).as("empty: nothing to read").isNull();

    assertThat(check(copyPart(2, 101, twoLines().setRowCount(3)))).as("row_count above the lines")
        .isEqualTo("copy_rows_malformed");
    assertThat(check(copyPart(2, 101, twoLines().setRowCount(1)))).as("row_count below the lines")
        .isEqualTo("copy_rows_malformed");
    assertThat(check(copyPart(2, 101, twoLines().clearKeyHashes().addKeyHashes(11)))).as("a key hash missing")
        .isEqualTo("copy_rows_malformed");
    assertThat(check(copyPart(2, 101, twoLines().clearColumns().addColumns(INT)))).as("a codec missing")
        .isEqualTo("copy_rows_malformed");
    assertThat(check(copyPart(2, 101, twoLines().addColumns(TEXT)))).as("a codec too many")
        .isEqualTo("copy_rows_malformed");
    assertThat(check(copyPart(2, 101, twoLines().setLines(ByteString.copyFromUtf8("1\ta\n2\tb")))))
        .as("the last line without its newline").isEqualTo("copy_rows_malformed");
    assertThat(check(copyPart(2, 101, CopyRows.newBuilder().setLines(ByteString.copyFromUtf8("1\ta\n")))))
        .as("lines but no row count").isEqualTo("copy_rows_malformed");
    DataEvent both = DataEvent.newBuilder().setSeq(2).setDml(copyPart(2, 101, twoLines()).getDml().toBuilder()
        .addRows(insert(2, 3, "c"))).build();
    assertThat(check(both)).as("RowChanges beside CopyRows").isEqualTo("copy_rows_malformed");
    assertThat(check(txn(2, 101), copyPart(3, 102, twoLines().setRowCount(3)))).as("found in a later event")
        .isEqualTo("copy_rows_malformed");
  }

  @Test
  void copyRowsFollowTheColumnsOfTheTableInfoADdlInTheBatchBrings() {
    TableInfo withQty = TestEvents.ORDERS.toBuilder().addColumns(ColumnInfo.newBuilder().setName("qty")).build();
    CopyRows.Builder threeColumns = CopyRows.newBuilder().setLines(ByteString.copyFromUtf8("1\ta\t5\n"))
        .setRowCount(1).addKeyHashes(11).addColumns(INT).addColumns(TEXT).addColumns(INT);

    assertThat(check(TestEvents.ddl(2, 101, 0, withQty), copyPart(3, 102, threeColumns))).isNull();
    assertThat(check(copyPart(2, 102, threeColumns))).isEqualTo("copy_rows_malformed");
    assertThat(check(TestEvents.ddl(2, 101, 0, withQty), copyPart(3, 102, twoLines())))
        .isEqualTo("copy_rows_malformed");
  }
}
