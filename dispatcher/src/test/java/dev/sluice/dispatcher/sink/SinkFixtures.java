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

  /** Dates and timestamps, scalar and arrays, for infinity, BC and the extreme finite values. */
  static final TableInfo MOMENTS = TableInfo.newBuilder().setTableId(20002).setSchemaName("public")
      .setTableName("moments").setVersion(1)
      .addColumns(col("id", "bigint", ValueKind.VALUE_KIND_INT64, false))
      .addColumns(col("d", "date", ValueKind.VALUE_KIND_DATE, true))
      .addColumns(col("t", "timestamp without time zone", ValueKind.VALUE_KIND_TIMESTAMP, true))
      .addColumns(col("tz", "timestamp with time zone", ValueKind.VALUE_KIND_TIMESTAMP_TZ, true))
      .addColumns(col("ds", "date[]", ValueKind.VALUE_KIND_ARRAY, true).toBuilder()
          .setElementKind(ValueKind.VALUE_KIND_DATE).build())
      .addColumns(col("tzs", "timestamp with time zone[]", ValueKind.VALUE_KIND_ARRAY, true).toBuilder()
          .setElementKind(ValueKind.VALUE_KIND_TIMESTAMP_TZ).build())
      .addPrimaryKey("id").build();

  private SinkFixtures() {}

  /** An enum {@code <typeSchema>.mood} with these labels, type id 70001. */
  static dev.sluice.api.v1.UserType mood(String typeSchema, String... labels) {
    return dev.sluice.api.v1.UserType.newBuilder().setTypeId(70001).setSchemaName(typeSchema).setTypeName("mood")
        .setKind(dev.sluice.api.v1.UserTypeKind.USER_TYPE_KIND_ENUM).addAllLabels(List.of(labels)).build();
  }

  /**
   * A table using user-defined types as capture describes it: an enum and an array of it (in
   * {@code typeSchema}), a domain over numeric and a composite holding the enum (both in the table's own
   * schema "public", so a sink maps them with the table).
   */
  static TableInfo people(String typeSchema, long version, String... moodLabels) {
    dev.sluice.api.v1.UserType mood = mood(typeSchema, moodLabels);
    dev.sluice.api.v1.UserType price = dev.sluice.api.v1.UserType.newBuilder().setTypeId(70002).setSchemaName("public")
        .setTypeName("price").setKind(dev.sluice.api.v1.UserTypeKind.USER_TYPE_KIND_DOMAIN).setBaseType("numeric(10,2)")
        .setDefaultExpr("0").addConstraints("CONSTRAINT positive CHECK ((VALUE >= (0)::numeric))").build();
    dev.sluice.api.v1.UserType tagged = dev.sluice.api.v1.UserType.newBuilder().setTypeId(70003).setSchemaName("public")
        .setTypeName("tagged").setKind(dev.sluice.api.v1.UserTypeKind.USER_TYPE_KIND_COMPOSITE)
        .addFields(dev.sluice.api.v1.UserTypeField.newBuilder().setName("label").setType("text"))
        .addFields(dev.sluice.api.v1.UserTypeField.newBuilder().setName("mood").setType(typeSchema + ".mood")).build();
    return TableInfo.newBuilder().setTableId(20003).setSchemaName("public").setTableName("people").setVersion(version)
        .addColumns(col("id", "bigint", ValueKind.VALUE_KIND_INT64, false))
        .addColumns(col("m", typeSchema + ".mood", ValueKind.VALUE_KIND_STRING, true).toBuilder().addUserTypes(mood))
        .addColumns(col("ms", typeSchema + ".mood[]", ValueKind.VALUE_KIND_ARRAY, true).toBuilder()
            .setElementKind(ValueKind.VALUE_KIND_STRING).addUserTypes(mood))
        .addColumns(col("p", "price", ValueKind.VALUE_KIND_DECIMAL, true).toBuilder().addUserTypes(price))
        .addColumns(col("t", "tagged", ValueKind.VALUE_KIND_TEXT_FALLBACK, true).toBuilder().addUserTypes(mood)
            .addUserTypes(tagged))
        .addPrimaryKey("id").build();
  }

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

  static Value date(java.time.LocalDate d) {
    return Value.newBuilder().setDateValue(Math.toIntExact(d.toEpochDay())).build();
  }

  /** A date 'infinity' (+1) or '-infinity' (-1). */
  static Value dateInfinity(int sign) {
    return Value.newBuilder().setDateValue(sign > 0 ? Integer.MAX_VALUE : Integer.MIN_VALUE).build();
  }

  /** A timestamp 'infinity' (+1) or '-infinity' (-1). */
  static Value tsInfinity(int sign, boolean zone) {
    return Value.newBuilder().setTimestampValue(Timestamp.newBuilder().setWithZone(zone)
        .setMicros(sign > 0 ? Long.MAX_VALUE : Long.MIN_VALUE).setSpecial(sign > 0
            ? dev.sluice.api.v1.TimeSpecial.TIME_SPECIAL_INFINITY : dev.sluice.api.v1.TimeSpecial.TIME_SPECIAL_MINUS_INFINITY))
        .build();
  }

  /** The timestamp of {@code t} (UTC for zone = true), past Long.MAX_VALUE micros through micros_past_max. */
  static Value ts(java.time.LocalDateTime t, boolean zone) {
    java.time.Instant i = t.toInstant(java.time.ZoneOffset.UTC);
    java.math.BigInteger micros = java.math.BigInteger.valueOf(i.getEpochSecond())
        .multiply(java.math.BigInteger.valueOf(1_000_000)).add(java.math.BigInteger.valueOf(i.getNano() / 1000));
    java.math.BigInteger past = micros.subtract(java.math.BigInteger.valueOf(Long.MAX_VALUE));
    Timestamp.Builder b = Timestamp.newBuilder().setWithZone(zone);
    if (past.signum() > 0) {
      b.setMicros(Long.MAX_VALUE).setMicrosPastMax(past.longValueExact());
    } else {
      b.setMicros(micros.longValueExact());
    }
    return Value.newBuilder().setTimestampValue(b).build();
  }

  static Value arr(Value... elements) {
    return Value.newBuilder().setArrayValue(dev.sluice.api.v1.ArrayValue.newBuilder().addAllElements(List.of(elements)))
        .build();
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
