package dev.sluice.dispatcher.sink;

import com.google.protobuf.ByteString;
import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.DdlType;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Timestamp;
import dev.sluice.api.v1.Unavailable;
import dev.sluice.api.v1.Value;
import dev.sluice.api.v1.ValueKind;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.RowImage;
import dev.sluice.dispatcher.Transaction;
import java.util.List;

/** Table infos, values and transactions for the sink tests. */
final class SinkFixtures {

  static final TableInfo ORDERS = TableInfo.newBuilder().setTableId(16384).setSchemaName("public")
      .setTableName("orders").setVersion(1)
      .addColumns(col("id", "bigint", ValueKind.VALUE_KIND_INT64, false))
      .addColumns(col("note", "character varying(100)", ValueKind.VALUE_KIND_STRING, true))
      .addColumns(col("big", "text", ValueKind.VALUE_KIND_STRING, true))
      .addPrimaryKey("id").build();

  static final TableInfo ORDERS_WITH_QTY = ORDERS.toBuilder().setVersion(500)
      .addColumns(col("qty", "bigint", ValueKind.VALUE_KIND_INT64, true)).build();

  /** Keyed by text: PostgreSQL keeps 'abc', 'ABC', 'a' and 'a ' apart. */
  static final TableInfo CODES = TableInfo.newBuilder().setTableId(20000).setSchemaName("public")
      .setTableName("codes").setVersion(1)
      .addColumns(col("code", "text", ValueKind.VALUE_KIND_STRING, false))
      .addColumns(col("n", "bigint", ValueKind.VALUE_KIND_INT64, true))
      .addPrimaryKey("code").build();

  /** An unconstrained numeric: any precision and scale upstream. */
  static final TableInfo AMOUNTS = TableInfo.newBuilder().setTableId(20001).setSchemaName("public")
      .setTableName("amounts").setVersion(1)
      .addColumns(col("id", "bigint", ValueKind.VALUE_KIND_INT64, false))
      .addColumns(col("v", "numeric", ValueKind.VALUE_KIND_DECIMAL, true))
      .addPrimaryKey("id").build();

  private SinkFixtures() {}

  static ColumnInfo col(String name, String sourceType, ValueKind kind, boolean nullable) {
    return ColumnInfo.newBuilder().setName(name).setSourceType(sourceType).setKind(kind).setNullable(nullable).build();
  }

  static Value i(long v) {
    return Value.newBuilder().setInt64Value(v).build();
  }

  static Value s(String v) {
    return Value.newBuilder().setStringValue(v).build();
  }

  static Value dec(String v) {
    return Value.newBuilder().setDecimalValue(v).build();
  }

  static Value nul() {
    return Value.newBuilder().setNullValue(dev.sluice.api.v1.NullValue.NULL_VALUE).build();
  }

  static Value unavailable() {
    return Value.newBuilder().setUnavailable(Unavailable.getDefaultInstance()).build();
  }

  static Value ts(long micros, boolean zone) {
    return Value.newBuilder().setTimestampValue(Timestamp.newBuilder().setMicros(micros).setWithZone(zone)).build();
  }

  static Value bytes(byte... b) {
    return Value.newBuilder().setBytesValue(ByteString.copyFrom(b)).build();
  }

  static RowChangeView insert(TableInfo t, long rowSeq, Value... after) {
    return new RowChangeView(RowOp.ROW_OP_INSERT, rowSeq, 0, RowImage.of(t, List.of()), RowImage.of(t, List.of(after)));
  }

  static RowChangeView update(TableInfo t, long rowSeq, List<Value> before, Value... after) {
    return new RowChangeView(RowOp.ROW_OP_UPDATE, rowSeq, 0, RowImage.of(t, before), RowImage.of(t, List.of(after)));
  }

  static RowChangeView delete(TableInfo t, long rowSeq, Value... before) {
    return new RowChangeView(RowOp.ROW_OP_DELETE, rowSeq, 0, RowImage.of(t, List.of(before)), RowImage.of(t, List.of()));
  }

  static Transaction txn(long commitTs, TableInfo t, RowChangeView... rows) {
    return new Transaction(commitTs, 0, t, List.of(rows), true, true);
  }

  /** Single-row insert of (id, note, null). */
  static Transaction ins(long commitTs, long id, String note) {
    return txn(commitTs, ORDERS, insert(ORDERS, 0, i(id), s(note), nul()));
  }

  static DdlChange ddl(long commitTs, DdlType type, String query, String dialect, TableInfo before, TableInfo after) {
    return new DdlChange(commitTs, type, query, dialect, before, after);
  }
}
