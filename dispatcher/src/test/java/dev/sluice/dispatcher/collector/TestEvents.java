package dev.sluice.dispatcher.collector;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.DataEvent;
import dev.sluice.api.v1.DispatcherStatus;
import dev.sluice.api.v1.DispatcherStatusState;
import dev.sluice.api.v1.DmlBatch;
import dev.sluice.api.v1.EventBatch;
import dev.sluice.api.v1.HeartbeatResponse;
import dev.sluice.api.v1.Resolved;
import dev.sluice.api.v1.ResolvedBatch;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
import dev.sluice.api.v1.ValueKind;
import java.util.List;

/** Builders for the broker messages the collector tests push. */
public final class TestEvents {

  public static final TableInfo ORDERS = TableInfo.newBuilder().setTableId(16384).setSchemaName("public")
      .setTableName("orders").setVersion(1)
      .addColumns(ColumnInfo.newBuilder().setName("id").setSourceType("bigint").setKind(ValueKind.VALUE_KIND_INT64))
      .addColumns(ColumnInfo.newBuilder().setName("note").setSourceType("text").setKind(ValueKind.VALUE_KIND_STRING)
          .setNullable(true))
      .addPrimaryKey("id").build();
  public static final TableSpan SPAN = TableSpan.wholeTable(16384);

  private TestEvents() {}

  public static RowChange insert(long rowSeq, long id, String note) {
    return RowChange.newBuilder().setOp(RowOp.ROW_OP_INSERT).setRowSeq(rowSeq)
        .addAfter(Value.newBuilder().setInt64Value(id)).addAfter(Value.newBuilder().setStringValue(note)).build();
  }

  public static DataEvent dml(long seq, long commitTs, RowChange... rows) {
    return DataEvent.newBuilder().setSeq(seq).setDml(DmlBatch.newBuilder().setCommitTs(commitTs)
        .setLastFragment(true).addAllRows(List.of(rows))).build();
  }

  public static DataEvent fragment(long seq, long commitTs, int index, boolean last, RowChange... rows) {
    return DataEvent.newBuilder().setSeq(seq).setDml(DmlBatch.newBuilder().setCommitTs(commitTs)
        .setFragmentIndex(index).setLastFragment(last).addAllRows(List.of(rows))).build();
  }

  /** One single-row transaction at {@code commitTs} with seq {@code seq}. */
  public static DataEvent txn(long seq, long commitTs) {
    return dml(seq, commitTs, insert(0, commitTs, "n" + commitTs));
  }

  /** A DDL of ORDERS at {@code (commitTs, rowSeq)} leaving the table as {@code after}. */
  public static DataEvent ddl(long seq, long commitTs, long rowSeq, TableInfo after) {
    return DataEvent.newBuilder().setSeq(seq).setDdl(dev.sluice.api.v1.DdlEvent.newBuilder().setCommitTs(commitTs)
        .setRowSeq(rowSeq).setDdlType(dev.sluice.api.v1.DdlType.DDL_TYPE_ALTER_TABLE).setTableId(after.getTableId())
        .setTableInfoAfter(after.toBuilder().setVersion(commitTs).setVersionRowSeq(rowSeq))).build();
  }

  public static BrokerMessage batch(DispatcherId id, long epoch, DataEvent... events) {
    return BrokerMessage.newBuilder().setEventBatch(EventBatch.newBuilder().setDispatcherId(id.toProto())
        .setEpoch(epoch).addAllEvents(List.of(events))).build();
  }

  public static BrokerMessage resolved(DispatcherId id, long epoch, long ts, long lastSeq) {
    return BrokerMessage.newBuilder().setResolvedBatch(ResolvedBatch.newBuilder().addResolved(Resolved.newBuilder()
        .setDispatcherId(id.toProto()).setEpoch(epoch).setTs(ts).setLastSeq(lastSeq))).build();
  }

  public static BrokerMessage removedStatus(DispatcherId id, long epoch) {
    return BrokerMessage.newBuilder().setHeartbeatResponse(HeartbeatResponse.newBuilder().addStatuses(
        DispatcherStatus.newBuilder().setDispatcherId(id.toProto()).setEpoch(epoch)
            .setState(DispatcherStatusState.DISPATCHER_STATUS_STATE_REMOVED))).build();
  }
}
