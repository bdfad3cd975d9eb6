package dev.sluice.dispatcher.collector;

import static dev.sluice.dispatcher.collector.TestEvents.fragment;
import static dev.sluice.dispatcher.collector.TestEvents.insert;
import static dev.sluice.dispatcher.collector.TestEvents.txn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.v1.DataEvent;
import dev.sluice.api.v1.DdlEvent;
import dev.sluice.api.v1.EventBatch;
import dev.sluice.api.v1.SyncPoint;
import org.junit.jupiter.api.Test;

/** The pure receiver rules: every violation they name, and the sequences they let through. */
class ReceiverRulesTest {

  private static final DispatcherId ID = new DispatcherId(1, 2);

  private static EventBatch events(DataEvent... e) {
    return TestEvents.batch(ID, 1, e).getEventBatch();
  }

  /** Checks after a handshake at start ts 100, no transaction open. */
  private static String check(DataEvent... e) {
    return ReceiverRules.firstViolation(events(e), 1, -1, 0, 100, 100, 0, true);
  }

  /** As {@link #check}, on a stream without the ddl-in-txn feature. */
  private static String checkWithoutDdlInTxn(DataEvent... e) {
    return ReceiverRules.firstViolation(events(e), 1, -1, 0, 100, 100, 0, false);
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
    assertThat(ReceiverRules.firstViolation(b, 1, -1, 0, 100, 100, 101, true)).isNull();
    assertThat(ReceiverRules.firstViolation(b, 1, -1, 0, 100, 100, 0, true)).isEqualTo("fragment_gap");
  }

  @Test
  void aBatchContinuesAnOpenTransaction() {
    EventBatch b = events(fragment(5, 101, 2, true, insert(2, 1, "a")));
    assertThat(ReceiverRules.firstViolation(b, 4, 101, 2, 101, 100, 0, true)).isNull();
    assertThat(ReceiverRules.firstViolation(b, 4, 101, 1, 101, 100, 0, true)).isEqualTo("fragment_gap");
  }
}
