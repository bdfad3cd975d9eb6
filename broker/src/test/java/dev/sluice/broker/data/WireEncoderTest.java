package dev.sluice.broker.data;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.DataEvent;
import dev.sluice.api.v1.DmlBatch;
import dev.sluice.api.v1.EventBatch;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.SyncPoint;
import dev.sluice.broker.testing.StoreFixture;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** The hand-written encoder produces exactly the bytes protobuf-java does for the same messages. */
class WireEncoderTest {

  @Property(tries = 200)
  void dmlBatchEqualsTheGeneratedSerialization(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long commitTs,
      @ForAll @IntRange(min = 0, max = 1000) int fragment, @ForAll boolean last,
      @ForAll @IntRange(min = 0, max = 20) int rows, @ForAll long version, @ForAll long time) {
    List<RowChange> changes = new java.util.ArrayList<>();
    for (int i = 0; i < rows; i++) {
      changes.add(StoreFixture.row(RowOp.ROW_OP_INSERT, i, "x".repeat(i)).toBuilder().setRowSeq(i).build());
    }
    byte[] ours = new PendingEvent.Dml(commitTs, fragment, last, changes.stream().map(RowChange::toByteArray).toList(),
        Math.abs(version), time).payload();
    DmlBatch expected = DmlBatch.newBuilder().setCommitTs(commitTs).setFragmentIndex(fragment).setLastFragment(last)
        .addAllRows(changes).setTableInfoVersion(Math.abs(version)).setCommitTimeMicros(time).build();
    assertThat(ours).isEqualTo(expected.toByteArray());
  }

  @Property(tries = 200)
  void eventBatchEqualsTheGeneratedSerialization(@ForAll long high, @ForAll long low,
      @ForAll @LongRange(min = 0, max = 1L << 40) long epoch, @ForAll @LongRange(min = 2, max = 1L << 40) long firstSeq,
      @ForAll @IntRange(min = 1, max = 10) int n) {
    DispatcherId id = new DispatcherId(high, low);
    List<PendingEvent> events = new java.util.ArrayList<>();
    EventBatch.Builder expected = EventBatch.newBuilder().setDispatcherId(id.toProto()).setEpoch(epoch);
    for (int i = 0; i < n; i++) {
      if (i % 2 == 0) {
        events.add(new PendingEvent.Dml(100 + i, 0, true, List.of(), 1, 0));
        expected.addEvents(DataEvent.newBuilder().setSeq(firstSeq + i)
            .setDml(DmlBatch.newBuilder().setCommitTs(100 + i).setLastFragment(true).setTableInfoVersion(1)));
      } else {
        SyncPoint sp = SyncPoint.newBuilder().setTs(100 + i).build();
        events.add(PendingEvent.encoded(PendingEvent.SYNC_POINT, sp.toByteArray(), 100 + i));
        expected.addEvents(DataEvent.newBuilder().setSeq(firstSeq + i).setSyncPoint(sp));
      }
    }
    byte[] ours = WireEncoder.eventBatch(id, epoch, events, 0, n, firstSeq);
    assertThat(ours).isEqualTo(BrokerMessage.newBuilder().setEventBatch(expected).build().toByteArray());
  }

  @Test
  void dataEventSizeIsTheSerializedSize() {
    byte[] row = StoreFixture.row(RowOp.ROW_OP_UPDATE, 5, "y".repeat(300)).toByteArray();
    PendingEvent e = new PendingEvent.Dml(7, 1, false, List.of(row), 3, 9);
    byte[] dml = e.payload();
    int size = WireEncoder.dataEventSize(12345, e);
    assertThat(size).isEqualTo(DataEvent.newBuilder().setSeq(12345).setDml(parse(dml)).build().getSerializedSize());
  }

  private static DmlBatch parse(byte[] b) {
    try {
      return DmlBatch.parseFrom(b);
    } catch (Exception ex) {
      throw new AssertionError(ex);
    }
  }
}
