package dev.sluice.dispatcher.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.v1.ArrayValue;
import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.Value;
import dev.sluice.api.v1.ValueKind;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A PostgreSQL target gets the source's own built-in types (a real stays real, json json, inet inet) and a
 * type of the value's kind only for what is not one; arrays go as PostgreSQL writes them, their lower bounds
 * and box's ';' delimiter included.
 */
class PostgresColumnTypesTest {

  static Stream<Arguments> columns() {
    return Stream.of(
        // source type, kind, element kind, PostgreSQL target type
        Arguments.of("integer", ValueKind.VALUE_KIND_INT64, null, "integer"),
        Arguments.of("smallint", ValueKind.VALUE_KIND_INT64, null, "smallint"),
        Arguments.of("real", ValueKind.VALUE_KIND_DOUBLE, null, "real"),
        Arguments.of("json", ValueKind.VALUE_KIND_JSON, null, "json"),
        Arguments.of("character(5)", ValueKind.VALUE_KIND_STRING, null, "character(5)"),
        Arguments.of("numeric(20,5)", ValueKind.VALUE_KIND_DECIMAL, null, "numeric(20,5)"),
        Arguments.of("timestamp(3) with time zone", ValueKind.VALUE_KIND_TIMESTAMP_TZ, null,
            "timestamp(3) with time zone"),
        Arguments.of("time with time zone", ValueKind.VALUE_KIND_TEXT_FALLBACK, null, "time with time zone"),
        Arguments.of("interval day to second(3)", ValueKind.VALUE_KIND_TEXT_FALLBACK, null, "interval day to second(3)"),
        Arguments.of("inet", ValueKind.VALUE_KIND_TEXT_FALLBACK, null, "inet"),
        Arguments.of("bit varying(12)", ValueKind.VALUE_KIND_TEXT_FALLBACK, null, "bit varying(12)"),
        Arguments.of("tstzrange", ValueKind.VALUE_KIND_TEXT_FALLBACK, null, "tstzrange"),
        Arguments.of("datemultirange", ValueKind.VALUE_KIND_TEXT_FALLBACK, null, "datemultirange"),
        Arguments.of("\"char\"", ValueKind.VALUE_KIND_STRING, null, "\"char\""),
        Arguments.of("integer[]", ValueKind.VALUE_KIND_ARRAY, ValueKind.VALUE_KIND_INT64, "integer[]"),
        Arguments.of("box[]", ValueKind.VALUE_KIND_ARRAY, ValueKind.VALUE_KIND_TEXT_FALLBACK, "box[]"),
        // not built in, or another source's spelling: the kind's type
        Arguments.of("public.hstore", ValueKind.VALUE_KIND_TEXT_FALLBACK, null, "text"),
        Arguments.of("geometry(Point,4326)", ValueKind.VALUE_KIND_TEXT_FALLBACK, null, "text"),
        Arguments.of("regclass", ValueKind.VALUE_KIND_TEXT_FALLBACK, null, "text"),
        Arguments.of("int(11)", ValueKind.VALUE_KIND_INT64, null, "bigint"),
        Arguments.of("datetime(6)", ValueKind.VALUE_KIND_TIMESTAMP, null, "timestamp(6)"),
        Arguments.of("varchar(20)", ValueKind.VALUE_KIND_STRING, null, "varchar(20)"),
        Arguments.of("citext[]", ValueKind.VALUE_KIND_ARRAY, ValueKind.VALUE_KIND_TEXT_FALLBACK, "text[]"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("columns")
  void aColumnGetsTheSourcesBuiltInTypeOrItsKindsType(String source, ValueKind kind, ValueKind element,
      String expected) {
    ColumnInfo.Builder c = ColumnInfo.newBuilder().setName("c").setSourceType(source).setKind(kind);
    if (element != null) {
      c.setElementKind(element);
    }
    assertThat(Dialect.POSTGRESQL.columnType(c.build(), false)).isEqualTo(expected);
  }

  @Test
  void arraysKeepTheirLowerBoundsAndBoxArraysTheirDelimiter() {
    Value bounded = Value.newBuilder().setArrayValue(ArrayValue.newBuilder().addElements(i64(7)).addElements(i64(8))
        .addLowerBounds(0)).build();
    assertThat(ValueText.pgArray(bounded)).isEqualTo("[0:1]={\"7\",\"8\"}");
    Value square = Value.newBuilder().setArrayValue(ArrayValue.newBuilder().addElements(array(i64(1), i64(2)))
        .addElements(array(i64(3), i64(4))).addAllLowerBounds(List.of(1, -1))).build();
    assertThat(ValueText.pgArray(square)).isEqualTo("[1:2][-1:0]={{\"1\",\"2\"},{\"3\",\"4\"}}");
    assertThat(ValueText.pgArray(array(i64(1), i64(2)))).isEqualTo("{\"1\",\"2\"}");

    Value boxes = array(text("(1,1),(0,0)"), text("(2,2),(1,1)"));
    ColumnInfo box = ColumnInfo.newBuilder().setName("b").setSourceType("box[]").setKind(ValueKind.VALUE_KIND_ARRAY)
        .setElementKind(ValueKind.VALUE_KIND_TEXT_FALLBACK).build();
    assertThat(Dialect.POSTGRESQL.adapt(box, boxes).getStringValue()).isEqualTo("{\"(1,1),(0,0)\";\"(2,2),(1,1)\"}");
    ColumnInfo points = box.toBuilder().setSourceType("point[]").build();
    assertThat(Dialect.POSTGRESQL.adapt(points, boxes)).isSameAs(boxes);
    assertThat(Dialect.MYSQL.adapt(box, boxes)).isSameAs(boxes);
  }

  private static Value i64(long v) {
    return Value.newBuilder().setInt64Value(v).build();
  }

  private static Value text(String s) {
    return Value.newBuilder().setStringValue(s).build();
  }

  private static Value array(Value... elements) {
    return Value.newBuilder().setArrayValue(ArrayValue.newBuilder().addAllElements(List.of(elements))).build();
  }
}
