package dev.sluice.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.sluice.api.v1.ArrayValue;
import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.NullValue;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Timestamp;
import dev.sluice.api.v1.Unavailable;
import dev.sluice.api.v1.Value;
import dev.sluice.api.v1.ValueKind;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * RowImage's typed getters, table-driven: each getter against a column of every kind returns the exact value
 * for its own kind and throws naming the column and the right getter for every other, for NULL in a primitive
 * getter and for an unavailable value. Regression (issue #18): getString on a numeric returned "", getLong on
 * an enum and on an unavailable value returned 0.
 */
class RowImageTest {

  private static final UUID ID = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");

  /** column name, its kind, the value, the getter that reads it and what it returns. */
  private record Column(String name, ValueKind kind, String sourceType, Value value, String getter, Object expected) {}

  private static final List<Column> COLUMNS = List.of(
      new Column("id", ValueKind.VALUE_KIND_INT64, "bigint", Value.newBuilder().setInt64Value(42).build(), "getLong", 42L),
      new Column("ratio", ValueKind.VALUE_KIND_DOUBLE, "double precision", Value.newBuilder().setDoubleValue(0.5).build(),
          "getDouble", 0.5),
      new Column("paid", ValueKind.VALUE_KIND_BOOL, "boolean", Value.newBuilder().setBoolValue(true).build(), "getBoolean",
          true),
      new Column("amount", ValueKind.VALUE_KIND_DECIMAL, "numeric(10,2)",
          Value.newBuilder().setDecimalValue("-12.30").build(), "getDecimal", new BigDecimal("-12.30")),
      new Column("status", ValueKind.VALUE_KIND_STRING, "order_status", Value.newBuilder().setStringValue("shipped").build(),
          "getString", "shipped"),
      new Column("blob", ValueKind.VALUE_KIND_BYTES, "bytea", Value.newBuilder().setBytesValue(ByteString.copyFrom(
          new byte[] {1, 2, 3})).build(), "getBytes", new byte[] {1, 2, 3}),
      new Column("created_at", ValueKind.VALUE_KIND_TIMESTAMP_TZ, "timestamp with time zone", Value.newBuilder()
          .setTimestampValue(Timestamp.newBuilder().setMicros(1_700_000_000_123_456L).setWithZone(true)).build(),
          "getInstant", Instant.parse("2023-11-14T22:13:20.123456Z")),
      new Column("local_at", ValueKind.VALUE_KIND_TIMESTAMP, "timestamp without time zone", Value.newBuilder()
          .setTimestampValue(Timestamp.newBuilder().setMicros(-62_167_219_200_000_000L - 86_400_000_000L)).build(),
          "getLocalDateTime", LocalDateTime.parse("-0001-12-31T00:00:00")),
      new Column("born", ValueKind.VALUE_KIND_DATE, "date", Value.newBuilder().setDateValue(-2_440_550).build(), "getDate",
          LocalDate.of(-4712, 1, 1)),
      new Column("opens", ValueKind.VALUE_KIND_TIME, "time", Value.newBuilder().setTimeMicrosValue(30_600_000_001L).build(),
          "getTime", LocalTime.of(8, 30, 0, 1000)),
      new Column("doc", ValueKind.VALUE_KIND_JSON, "jsonb", Value.newBuilder().setJsonValue("{\"a\": 1}").build(), "getJson",
          "{\"a\": 1}"),
      new Column("uid", ValueKind.VALUE_KIND_UUID, "uuid", Value.newBuilder().setUuidValue(uuidBytes(ID)).build(),
          "getUuid", ID),
      new Column("tags", ValueKind.VALUE_KIND_ARRAY, "text[]", Value.newBuilder().setArrayValue(ArrayValue.newBuilder()
          .addElements(Value.newBuilder().setStringValue("a"))).build(), "getArray",
          List.of(Value.newBuilder().setStringValue("a").build())));

  private static final Map<String, BiFunction<RowImage, String, Object>> GETTERS = Map.ofEntries(
      Map.entry("getLong", RowImage::getLong),
      Map.entry("getDouble", RowImage::getDouble),
      Map.entry("getBoolean", RowImage::getBoolean),
      Map.entry("getDecimal", RowImage::getDecimal),
      Map.entry("getString", RowImage::getString),
      Map.entry("getBytes", RowImage::getBytes),
      Map.entry("getInstant", RowImage::getInstant),
      Map.entry("getLocalDateTime", RowImage::getLocalDateTime),
      Map.entry("getDate", RowImage::getDate),
      Map.entry("getTime", RowImage::getTime),
      Map.entry("getJson", RowImage::getJson),
      Map.entry("getUuid", RowImage::getUuid),
      Map.entry("getArray", RowImage::getArray));

  private static ByteString uuidBytes(UUID u) {
    return ByteString.copyFrom(java.nio.ByteBuffer.allocate(16).putLong(u.getMostSignificantBits())
        .putLong(u.getLeastSignificantBits()).array());
  }

  private static TableInfo table(List<Column> columns) {
    TableInfo.Builder t = TableInfo.newBuilder().setTableId(7).setSchemaName("shop").setTableName("orders");
    columns.forEach(c -> t.addColumns(ColumnInfo.newBuilder().setName(c.name()).setKind(c.kind())
        .setSourceType(c.sourceType()).setNullable(true)));
    return t.build();
  }

  private static RowImage image(java.util.function.Function<Column, Value> valueOf) {
    return RowImage.of(table(COLUMNS), COLUMNS.stream().map(valueOf).toList());
  }

  static Stream<Arguments> everyGetterOnEveryColumn() {
    List<Arguments> out = new ArrayList<>();
    for (Column c : COLUMNS) {
      for (String getter : GETTERS.keySet()) {
        out.add(Arguments.of(c.name(), getter));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{1} on {0}")
  @MethodSource("everyGetterOnEveryColumn")
  void aGetterReadsItsOwnKindAndNamesTheRightGetterForAnyOther(String columnName, String getter) {
    Column c = COLUMNS.stream().filter(x -> x.name().equals(columnName)).findFirst().orElseThrow();
    RowImage row = image(Column::value);
    if (getter.equals(c.getter())) {
      assertThat(GETTERS.get(getter).apply(row, columnName)).isEqualTo(c.expected());
    } else if (c.getter().equals("getInstant") && getter.equals("getLocalDateTime")
        || c.getter().equals("getLocalDateTime") && getter.equals("getInstant")) {
      assertThatThrownBy(() -> GETTERS.get(getter).apply(row, columnName)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("column " + columnName + " of shop.orders").hasMessageContaining("time zone");
    } else {
      assertThatThrownBy(() -> GETTERS.get(getter).apply(row, columnName)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("column " + columnName + " of shop.orders").hasMessageContaining(c.sourceType())
          .hasMessageContaining("use " + c.getter());
    }
  }

  static Stream<String> everyGetter() {
    return GETTERS.keySet().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyGetter")
  void anUnavailableValueIsNeverReadAsSomething(String getter) {
    RowImage row = image(c -> Value.newBuilder().setUnavailable(Unavailable.getDefaultInstance()).build());
    for (Column c : COLUMNS) {
      assertThat(row.isUnavailable(c.name())).isTrue();
      assertThatThrownBy(() -> GETTERS.get(getter).apply(row, c.name())).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("column " + c.name()).hasMessageContaining("isUnavailable");
    }
  }

  @Test
  void nullIsNullForObjectGettersAndAnErrorForPrimitiveOnes() {
    RowImage row = image(c -> Value.newBuilder().setNullValue(NullValue.NULL_VALUE).build());
    for (Column c : COLUMNS) {
      assertThat(row.isNull(c.name())).isTrue();
      BiFunction<RowImage, String, Object> get = GETTERS.get(c.getter());
      if (c.expected() instanceof Long || c.expected() instanceof Double || c.expected() instanceof Boolean) {
        assertThatThrownBy(() -> get.apply(row, c.name())).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("is NULL").hasMessageContaining("isNull(\"" + c.name() + "\")");
      } else {
        assertThat(get.apply(row, c.name())).as(c.name()).isNull();
      }
    }
  }

  @Test
  void theIssuesThreeMadeUpValuesAreErrorsNow() {
    RowImage row = image(Column::value);
    assertThatThrownBy(() -> row.getString("amount")).hasMessageContaining("DECIMAL numeric(10,2)")
        .hasMessageContaining("use getDecimal");
    assertThatThrownBy(() -> row.getLong("status")).hasMessageContaining("order_status").hasMessageContaining("use getString");
    RowImage toasted = image(c -> c.name().equals("id")
        ? Value.newBuilder().setUnavailable(Unavailable.getDefaultInstance()).build() : c.value());
    assertThatThrownBy(() -> toasted.getLong("id")).hasMessageContaining("was not sent by the source");
  }

  @Test
  void timestampsAndDatesByTheirZoneFlagAndSpecials() {
    RowImage row = image(Column::value);
    assertThat(row.getOffsetDateTime("created_at")).isEqualTo(OffsetDateTime.of(2023, 11, 14, 22, 13, 20, 123_456_000,
        ZoneOffset.UTC));
    assertThat(row.kind("created_at")).isEqualTo(ValueKind.VALUE_KIND_TIMESTAMP_TZ);
    assertThat(row.isInfinite("born")).isFalse();
    RowImage special = image(c -> c.name().equals("born") ? Value.newBuilder().setDateValue(Integer.MAX_VALUE).build()
        : c.value());
    assertThat(special.isInfinite("born")).isTrue();
    assertThatThrownBy(() -> special.getDate("born")).hasMessageContaining("'infinity'")
        .hasMessageContaining("isInfinite(\"born\")");
    RowImage nan = image(c -> c.name().equals("amount") ? Value.newBuilder().setDecimalValue("NaN").build() : c.value());
    assertThatThrownBy(() -> nan.getDecimal("amount")).hasMessageContaining("'NaN'").hasMessageContaining("getDecimalValue");
    assertThatThrownBy(() -> row.getLong("nope")).hasMessageContaining("no column nope in shop.orders");
  }

  /** A timestamp or time column's wire value (value.proto) and what the getters make of it. */
  private record Temporal(String what, String column, Value value, String getter, Object expected, String special) {}

  private static Value ts(long micros, boolean zone, dev.sluice.api.v1.TimeSpecial special, long pastMax) {
    return Value.newBuilder().setTimestampValue(Timestamp.newBuilder().setMicros(micros).setWithZone(zone)
        .setSpecial(special).setMicrosPastMax(pastMax)).build();
  }

  static Stream<Temporal> valueProtosTemporalEncodings() {
    var none = dev.sluice.api.v1.TimeSpecial.TIME_SPECIAL_NONE;
    var inf = dev.sluice.api.v1.TimeSpecial.TIME_SPECIAL_INFINITY;
    var minusInf = dev.sluice.api.v1.TimeSpecial.TIME_SPECIAL_MINUS_INFINITY;
    Instant maxMicros = Instant.EPOCH.plus(Long.MAX_VALUE, java.time.temporal.ChronoUnit.MICROS);
    return Stream.of(
        new Temporal("timestamptz 'infinity'", "created_at", ts(Long.MAX_VALUE, true, inf, 0), "getInstant", null,
            "'infinity'"),
        new Temporal("timestamptz '-infinity'", "created_at", ts(Long.MIN_VALUE, true, minusInf, 0), "getInstant", null,
            "'-infinity'"),
        new Temporal("timestamp 'infinity'", "local_at", ts(Long.MAX_VALUE, false, inf, 0), "getLocalDateTime", null,
            "'infinity'"),
        new Temporal("timestamp '-infinity'", "local_at", ts(Long.MIN_VALUE, false, minusInf, 0), "getLocalDateTime",
            null, "'-infinity'"),
        // int64 max micros with no special set is a real timestamp (294247-01-10T04:00:54.775807)
        new Temporal("timestamptz at int64 max micros", "created_at", ts(Long.MAX_VALUE, true, none, 0), "getInstant",
            maxMicros, null),
        // past int64 max micros: the rest is in micros_past_max (PostgreSQL's last timestamp, 294276-12-31)
        new Temporal("timestamptz past int64 max micros", "created_at", ts(Long.MAX_VALUE, true, none, 1_000_000L),
            "getInstant", maxMicros.plusSeconds(1), null),
        new Temporal("timestamp 294276-12-31 23:59:59.999999", "local_at", ts(Long.MAX_VALUE, false, none,
            java.time.temporal.ChronoUnit.MICROS.between(maxMicros, LocalDateTime.parse("+294276-12-31T23:59:59.999999")
                .toInstant(ZoneOffset.UTC))), "getLocalDateTime", LocalDateTime.parse("+294276-12-31T23:59:59.999999"), null),
        // BC: 4713-01-01 BC 00:00 is ISO year -4712
        new Temporal("timestamptz 4713-01-01 00:00 BC", "created_at",
            ts(LocalDateTime.of(-4712, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC) * 1_000_000L, true, none, 0),
            "getInstant", LocalDateTime.of(-4712, 1, 1, 0, 0).toInstant(ZoneOffset.UTC), null),
        new Temporal("date 1 BC (ISO year 0)", "born", Value.newBuilder().setDateValue((int) LocalDate.of(0, 12, 31)
            .toEpochDay()).build(), "getDate", LocalDate.of(0, 12, 31), null),
        new Temporal("date '-infinity'", "born", Value.newBuilder().setDateValue(Integer.MIN_VALUE).build(), "getDate",
            null, "'-infinity'"),
        new Temporal("time '24:00:00'", "opens", Value.newBuilder().setTimeMicrosValue(86_400_000_000L).build(), "getTime",
            null, "'24:00:00'"),
        new Temporal("time 23:59:59.999999", "opens", Value.newBuilder().setTimeMicrosValue(86_399_999_999L).build(),
            "getTime", LocalTime.of(23, 59, 59, 999_999_000), null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valueProtosTemporalEncodings")
  void specialAndExtremeTemporalValuesAreReadExactlyOrRefusedByName(Temporal t) {
    RowImage row = image(c -> c.name().equals(t.column()) ? t.value() : c.value());
    if (t.special() == null) {
      assertThat(GETTERS.get(t.getter()).apply(row, t.column())).as(t.what()).isEqualTo(t.expected());
      assertThat(row.isInfinite(t.column())).as(t.what()).isFalse();
      assertThat(row.toString()).contains(t.column() + "=");
    } else {
      assertThatThrownBy(() -> GETTERS.get(t.getter()).apply(row, t.column())).as(t.what())
          .isInstanceOf(IllegalStateException.class).hasMessageContaining(t.special())
          .hasMessageContaining("column " + t.column() + " of shop.orders");
      if (!t.column().equals("opens")) {
        assertThat(row.isInfinite(t.column())).as(t.what()).isTrue();
        assertThat(row.toString()).contains(t.column() + "=" + t.special().replace("'", ""));
      }
    }
    if (t.value().hasTimestampValue() && t.value().getTimestampValue().getWithZone()) {
      if (t.special() == null) {
        assertThat(row.getOffsetDateTime(t.column())).isEqualTo(((Instant) t.expected()).atOffset(ZoneOffset.UTC));
      } else {
        assertThatThrownBy(() -> row.getOffsetDateTime(t.column())).hasMessageContaining(t.special());
      }
    }
  }
}
