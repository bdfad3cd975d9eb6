package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.sluice.api.v1.ArrayValue;
import dev.sluice.api.v1.TimeSpecial;
import dev.sluice.api.v1.Timestamp;
import dev.sluice.api.v1.Value;
import dev.sluice.api.v1.ValueKind;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Text output of every mapped type, as PostgreSQL prints it with DateStyle=ISO, to the typed value. */
class PgTextValuesTest {

  private static final PgTypes TYPES = new PgTypes(oid -> Optional.empty());

  static Stream<Arguments> cases() {
    return Stream.of(
        row("bool true", 16, "t", Value.newBuilder().setBoolValue(true).build()),
        row("bool false", 16, "f", Value.newBuilder().setBoolValue(false).build()),
        row("int2 negative", 21, "-32768", i64(-32768)),
        row("int4", 23, "2147483647", i64(2147483647)),
        row("int8 min", 20, "-9223372036854775808", i64(Long.MIN_VALUE)),
        row("float8 shortest", 701, "0.1", dbl(0.1)),
        row("float8 exponent", 701, "1.5e+300", dbl(1.5e300)),
        row("float8 NaN", 701, "NaN", dbl(Double.NaN)),
        row("float8 -Infinity", 701, "-Infinity", dbl(Double.NEGATIVE_INFINITY)),
        row("float4 widened exactly", 700, "0.1", dbl((double) 0.1f)),
        row("numeric keeps scale", 1700, "-12.3400", Value.newBuilder().setDecimalValue("-12.3400").build()),
        row("numeric NaN", 1700, "NaN", Value.newBuilder().setDecimalValue("NaN").build()),
        row("text unicode", 25, "grüße 🙂", str("grüße 🙂")),
        row("bpchar keeps padding", 1042, "ab  ", str("ab  ")),
        row("varchar", 1043, "x", str("x")),
        row("bytea hex", 17, "\\x00ff10", bytes(0x00, 0xff, 0x10)),
        row("bytea escape", 17, "a\\\\b\\001", bytes('a', '\\', 'b', 1)),
        row("date", 1082, "2024-02-29", date(LocalDate.of(2024, 2, 29))),
        row("date before 1970", 1082, "1900-01-01", date(LocalDate.of(1900, 1, 1))),
        row("date BC", 1082, "0044-03-15 BC", date(LocalDate.of(-43, 3, 15))),
        row("date five-digit year", 1082, "12345-06-07", date(LocalDate.of(12345, 6, 7))),
        row("date infinity", 1082, "infinity", Value.newBuilder().setDateValue(Integer.MAX_VALUE).build()),
        row("date -infinity", 1082, "-infinity", Value.newBuilder().setDateValue(Integer.MIN_VALUE).build()),
        row("time", 1083, "13:45:12.123456", time(((13 * 60 + 45) * 60 + 12) * 1_000_000L + 123_456)),
        row("time short fraction", 1083, "00:00:00.5", time(500_000)),
        row("time 24:00", 1083, "24:00:00", time(86_400_000_000L)),
        row("timestamp", 1114, "2024-01-31 13:45:12.000001",
            ts(micros(LocalDateTime.of(2024, 1, 31, 13, 45, 12, 1000)), false)),
        row("timestamp BC", 1114, "0001-01-01 00:00:00 BC",
            ts(micros(LocalDateTime.of(0, 1, 1, 0, 0)), false)),
        row("timestamp infinity", 1114, "infinity", special(TimeSpecial.TIME_SPECIAL_INFINITY, false)),
        row("timestamp at Long.MAX_VALUE micros is finite, not infinity", 1114, "294247-01-10 04:00:54.775807",
            ts(Long.MAX_VALUE, false)),
        row("timestamp past Long.MAX_VALUE micros", 1114, "294247-01-10 04:00:54.775808", pastMax(1, false)),
        row("timestamp maximum", 1114, "294276-12-31 23:59:59.999999",
            pastMax(microsPastMax(LocalDateTime.of(294276, 12, 31, 23, 59, 59, 999_999_000)), false)),
        row("timestamp minimum", 1114, "4714-11-24 00:00:00 BC", ts(micros(LocalDateTime.of(-4713, 11, 24, 0, 0)), false)),
        row("timestamp BC with fraction", 1114, "4713-01-01 12:30:00.000001 BC",
            ts(micros(LocalDateTime.of(-4712, 1, 1, 12, 30, 0, 1000)), false)),
        row("date minimum", 1082, "4714-11-24 BC", date(LocalDate.of(-4713, 11, 24))),
        row("date maximum", 1082, "5874897-12-31", date(LocalDate.of(5874897, 12, 31))),
        row("timestamptz infinity", 1184, "infinity", special(TimeSpecial.TIME_SPECIAL_INFINITY, true)),
        row("timestamptz maximum east of UTC", 1184, "294277-01-01 00:59:59.999999+01",
            pastMax(microsPastMax(LocalDateTime.of(294276, 12, 31, 23, 59, 59, 999_999_000)), true)),
        row("timestamptz minimum", 1184, "4714-11-24 00:00:00+00 BC",
            ts(micros(LocalDateTime.of(-4713, 11, 24, 0, 0)), true)),
        row("timestamp array with infinities", 1115, "{infinity,\"2024-01-31 13:45:12\",-infinity,NULL}",
            arr(special(TimeSpecial.TIME_SPECIAL_INFINITY, false), ts(micros(LocalDateTime.of(2024, 1, 31, 13, 45, 12)),
                false), special(TimeSpecial.TIME_SPECIAL_MINUS_INFINITY, false), PgTextValues.NULL)),
        row("date array with infinity and BC", 1182, "{infinity,\"4713-01-01 BC\",-infinity}",
            arr(Value.newBuilder().setDateValue(Integer.MAX_VALUE).build(), date(LocalDate.of(-4712, 1, 1)),
                Value.newBuilder().setDateValue(Integer.MIN_VALUE).build())),
        row("timestamptz hour offset", 1184, "2024-01-31 12:00:00.5+01",
            ts(micros(LocalDateTime.of(2024, 1, 31, 11, 0, 0, 500_000_000)), true)),
        row("timestamptz half-hour offset", 1184, "2024-01-31 12:00:00-05:30",
            ts(micros(LocalDateTime.of(2024, 1, 31, 17, 30)), true)),
        row("timestamptz seconds offset", 1184, "1850-01-01 00:00:00+00:53:28",
            ts(micros(LocalDateTime.of(1849, 12, 31, 23, 6, 32)), true)),
        row("timestamptz -infinity", 1184, "-infinity", special(TimeSpecial.TIME_SPECIAL_MINUS_INFINITY, true)),
        row("uuid", 2950, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", Value.newBuilder().setUuidValue(ByteString.copyFrom(
            new byte[] {(byte) 0xa0, (byte) 0xee, (byte) 0xbc, (byte) 0x99, (byte) 0x9c, 0x0b, 0x4e, (byte) 0xf8,
                (byte) 0xbb, 0x6d, 0x6b, (byte) 0xb9, (byte) 0xbd, 0x38, 0x0a, 0x11})).build()),
        row("json", 114, "{\"a\": [1, 2]}", Value.newBuilder().setJsonValue("{\"a\": [1, 2]}").build()),
        row("jsonb", 3802, "{\"a\": 1}", Value.newBuilder().setJsonValue("{\"a\": 1}").build()),
        row("int4 array with null", 1007, "{1,NULL,3}", arr(i64(1), PgTextValues.NULL, i64(3))),
        row("empty array", 1009, "{}", arr()),
        row("two-dimensional array", 1007, "{{1,2},{3,4}}", arr(arr(i64(1), i64(2)), arr(i64(3), i64(4)))),
        row("array with a lower bound other than 1", 1007, "[0:1]={7,8}", bounded(arr(i64(7), i64(8)), 0)),
        row("array with explicit default bounds", 1007, "[1:2]={7,8}", arr(i64(7), i64(8))),
        row("two-dimensional array with bounds", 1007, "[1:2][-1:0]={{1,2},{3,4}}",
            bounded(arr(arr(i64(1), i64(2)), arr(i64(3), i64(4))), 1, -1)),
        row("text array quoting", 1009, "{\"a b\",\"c\\\"d\",\"NULL\",NULL,plain}",
            arr(str("a b"), str("c\"d"), str("NULL"), PgTextValues.NULL, str("plain"))),
        row("jsonb array", 3807, "{\"{\\\"a\\\": 1}\"}", arr(Value.newBuilder().setJsonValue("{\"a\": 1}").build())),
        row("unmapped type is text", 1186, "1 day 02:00:00", str("1 day 02:00:00")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void textParsesToTheTypedValue(String name, int oid, String text, Value expected) {
    assertThat(PgTextValues.parse(TYPES.resolve(oid), text)).isEqualTo(expected);
    byte[] utf8 = ("xx" + text).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(PgTextValues.parse(TYPES.resolve(oid), utf8, 2, utf8.length - 2)).as("from bytes").isEqualTo(expected);
  }

  @Test
  void integerFastPathLeavesOverflowAndJunkToTheTextParser() {
    byte[] big = "9223372036854775808".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    assertThatThrownBy(() -> PgTextValues.parse(TYPES.resolve(20), big, 0, big.length))
        .isInstanceOf(IllegalArgumentException.class);
    byte[] minus = "-".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    assertThatThrownBy(() -> PgTextValues.parse(TYPES.resolve(20), minus, 0, 1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void unmappedTypesAreFallbackAndMappedOnesAreNot() {
    assertThat(TYPES.resolve(1186).kind()).isEqualTo(ValueKind.VALUE_KIND_TEXT_FALLBACK);
    assertThat(TYPES.resolve(1186).isFallback()).isTrue();
    assertThat(TYPES.resolve(1007).kind()).isEqualTo(ValueKind.VALUE_KIND_ARRAY);
    assertThat(TYPES.resolve(1007).elementKind()).isEqualTo(ValueKind.VALUE_KIND_INT64);
    assertThat(TYPES.resolve(1007).isFallback()).isFalse();
  }

  @Test
  void catalogTypesResolveEnumsDomainsAndTheirArrays() {
    PgTypes types = new PgTypes(oid -> switch (oid) {
      case 90001 -> Optional.of(new PgTypes.CatalogType(90001, "mood", 'e', 'E', 0, 0));
      case 90002 -> Optional.of(new PgTypes.CatalogType(90002, "_mood", 'b', 'A', 90001, 0));
      case 90003 -> Optional.of(new PgTypes.CatalogType(90003, "positive", 'd', 'N', 0, 23));
      case 90004 -> Optional.of(new PgTypes.CatalogType(90004, "ltree", 'b', 'U', 0, 0));
      default -> Optional.empty();
    });
    assertThat(types.resolve(90001).kind()).isEqualTo(ValueKind.VALUE_KIND_STRING);
    assertThat(types.resolve(90002).elementKind()).isEqualTo(ValueKind.VALUE_KIND_STRING);
    assertThat(PgTextValues.parse(types.resolve(90003), "5")).isEqualTo(i64(5));
    assertThat(types.resolve(90004).kind()).isEqualTo(ValueKind.VALUE_KIND_TEXT_FALLBACK);
    assertThat(types.resolve(99999).kind()).isEqualTo(ValueKind.VALUE_KIND_TEXT_FALLBACK);
  }

  @Test
  void arrayElementsAreSplitAtTheDelimiterTheCatalogGives() {
    PgTypes types = new PgTypes(oid -> switch (oid) {
      case 603 -> Optional.of(new PgTypes.CatalogType(603, "box", 'b', 'G', 0, 0, ';'));
      case 1020 -> Optional.of(new PgTypes.CatalogType(1020, "_box", 'b', 'A', 603, 0));
      default -> Optional.empty();
    });
    assertThat(PgTextValues.parse(types.resolve(1020), "{(1,1),(0,0);\"(2,2),(1,1)\";NULL}"))
        .isEqualTo(arr(str("(1,1),(0,0)"), str("(2,2),(1,1)"), PgTextValues.NULL));
  }

  @Test
  void malformedTextNamesTheType() {
    assertThatThrownBy(() -> PgTextValues.parse(TYPES.resolve(23), "12x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("int4").hasMessageContaining("12x");
    assertThatThrownBy(() -> PgTextValues.parse(TYPES.resolve(1184), "2024-01-31 12:00:00"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timestamptz");
    assertThatThrownBy(() -> PgTextValues.parse(TYPES.resolve(1007), "{1,2"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("_int4");
  }

  private static Arguments row(String name, int oid, String text, Value expected) {
    return Arguments.of(name, oid, text, expected);
  }

  private static Value i64(long v) {
    return Value.newBuilder().setInt64Value(v).build();
  }

  private static Value dbl(double v) {
    return Value.newBuilder().setDoubleValue(v).build();
  }

  private static Value str(String v) {
    return Value.newBuilder().setStringValue(v).build();
  }

  private static Value bytes(int... b) {
    byte[] out = new byte[b.length];
    for (int i = 0; i < b.length; i++) {
      out[i] = (byte) b[i];
    }
    return Value.newBuilder().setBytesValue(ByteString.copyFrom(out)).build();
  }

  private static Value date(LocalDate d) {
    return Value.newBuilder().setDateValue(Math.toIntExact(d.toEpochDay())).build();
  }

  private static Value time(long micros) {
    return Value.newBuilder().setTimeMicrosValue(micros).build();
  }

  private static long micros(LocalDateTime t) {
    Instant i = t.toInstant(ZoneOffset.UTC);
    return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
  }

  private static Value ts(long micros, boolean zone) {
    return Value.newBuilder().setTimestampValue(Timestamp.newBuilder().setMicros(micros).setWithZone(zone)).build();
  }

  private static Value special(TimeSpecial special, boolean zone) {
    return Value.newBuilder().setTimestampValue(Timestamp.newBuilder().setSpecial(special).setWithZone(zone)
        .setMicros(special == TimeSpecial.TIME_SPECIAL_INFINITY ? Long.MAX_VALUE : Long.MIN_VALUE)).build();
  }

  private static Value pastMax(long past, boolean zone) {
    return Value.newBuilder().setTimestampValue(Timestamp.newBuilder().setMicros(Long.MAX_VALUE)
        .setMicrosPastMax(past).setWithZone(zone)).build();
  }

  /** Microseconds from Long.MAX_VALUE micros since 1970 to {@code t} (UTC), computed without the parser. */
  private static long microsPastMax(LocalDateTime t) {
    Instant i = t.toInstant(ZoneOffset.UTC);
    return java.math.BigInteger.valueOf(i.getEpochSecond()).multiply(java.math.BigInteger.valueOf(1_000_000))
        .add(java.math.BigInteger.valueOf(i.getNano() / 1000)).subtract(java.math.BigInteger.valueOf(Long.MAX_VALUE))
        .longValueExact();
  }

  private static Value bounded(Value array, Integer... lowerBounds) {
    return Value.newBuilder().setArrayValue(array.getArrayValue().toBuilder().addAllLowerBounds(List.of(lowerBounds)))
        .build();
  }

  private static Value arr(Value... elements) {
    ArrayValue.Builder b = ArrayValue.newBuilder();
    for (Value e : elements) {
      b.addElements(e);
    }
    return Value.newBuilder().setArrayValue(b).build();
  }
}
