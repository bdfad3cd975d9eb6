package dev.sluice.dispatcher;

import com.google.protobuf.ByteString;
import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
import dev.sluice.api.v1.ValueKind;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.UUID;

/**
 * Reads one column's {@link Value} as the Java type a getter promises, or throws naming the table, the column,
 * its kind and source type, what the value is and which getter fits: a getter never makes a value up (no 0
 * for NULL, no "" for a decimal). Special date/time values ('infinity') and unsent values (unchanged TOAST)
 * throw too; {@link RowImage#isNull}, {@link RowImage#isUnavailable} and {@link RowImage#isInfinite} tell them
 * apart first.
 */
final class ColumnReader {

  // PostgreSQL's date 'infinity' / '-infinity' on the wire (value.proto: int32 max and min)
  static final int DATE_INFINITY = Integer.MAX_VALUE;
  static final int DATE_MINUS_INFINITY = Integer.MIN_VALUE;
  static final long MICROS_PER_DAY = 86_400_000_000L;

  private final TableInfo table;
  private final ColumnInfo column;
  private final Value value;

  ColumnReader(TableInfo table, ColumnInfo column, Value value) {
    this.table = table;
    this.column = column;
    this.value = value;
  }

  /** The value, checked to be of {@code expected}; null for SQL NULL when {@code nullable}. */
  private Value expect(Value.KindCase expected, String getter, boolean nullable) {
    Value.KindCase actual = value.getKindCase();
    if (actual == Value.KindCase.UNAVAILABLE) {
      throw fail("was not sent by the source (PostgreSQL unchanged TOAST: the value is unchanged); check"
          + " isUnavailable(\"" + column.getName() + "\") first");
    }
    if (actual == Value.KindCase.NULL_VALUE) {
      if (nullable) {
        return null;
      }
      throw fail("is NULL, which " + getter + " cannot return; check isNull(\"" + column.getName() + "\") first or use"
          + " a getter that returns an object");
    }
    if (actual != expected) {
      throw fail("holds a " + describe(actual) + " value, not what " + getter + " reads; use " + getterFor(value));
    }
    return value;
  }

  long getLong() {
    return expect(Value.KindCase.INT64_VALUE, "getLong", false).getInt64Value();
  }

  double getDouble() {
    return expect(Value.KindCase.DOUBLE_VALUE, "getDouble", false).getDoubleValue();
  }

  boolean getBoolean() {
    return expect(Value.KindCase.BOOL_VALUE, "getBoolean", false).getBoolValue();
  }

  String getString() {
    Value v = expect(Value.KindCase.STRING_VALUE, "getString", true);
    return v == null ? null : v.getStringValue();
  }

  BigDecimal getDecimal() {
    Value v = expect(Value.KindCase.DECIMAL_VALUE, "getDecimal", true);
    if (v == null) {
      return null;
    }
    String text = v.getDecimalValue();
    try {
      return new BigDecimal(text);
    } catch (NumberFormatException e) {
      throw fail("is the special numeric '" + text + "', which a BigDecimal cannot hold; read its text with"
          + " value(\"" + column.getName() + "\").getDecimalValue()");
    }
  }

  byte[] getBytes() {
    Value v = expect(Value.KindCase.BYTES_VALUE, "getBytes", true);
    return v == null ? null : v.getBytesValue().toByteArray();
  }

  UUID getUuid() {
    Value v = expect(Value.KindCase.UUID_VALUE, "getUuid", true);
    if (v == null) {
      return null;
    }
    ByteString b = v.getUuidValue();
    if (b.size() != 16) {
      throw fail("holds a uuid of " + b.size() + " bytes, not 16");
    }
    ByteBuffer buf = b.asReadOnlyByteBuffer();
    return new UUID(buf.getLong(), buf.getLong());
  }

  String getJson() {
    Value v = expect(Value.KindCase.JSON_VALUE, "getJson", true);
    return v == null ? null : v.getJsonValue();
  }

  java.util.List<Value> getArray() {
    Value v = expect(Value.KindCase.ARRAY_VALUE, "getArray", true);
    return v == null ? null : v.getArrayValue().getElementsList();
  }

  LocalTime getTime() {
    Value v = expect(Value.KindCase.TIME_MICROS_VALUE, "getTime", true);
    if (v == null) {
      return null;
    }
    long micros = v.getTimeMicrosValue();
    if (micros < 0 || micros >= MICROS_PER_DAY) {   // PostgreSQL's '24:00:00' is one past LocalTime.MAX
      throw fail("is " + micros + " microseconds after midnight" + (micros == MICROS_PER_DAY ? " ('24:00:00')" : "")
          + ", which a LocalTime cannot hold; read value(\"" + column.getName() + "\").getTimeMicrosValue()");
    }
    return LocalTime.ofNanoOfDay(micros * 1000L);
  }

  LocalDate getDate() {
    Value v = expect(Value.KindCase.DATE_VALUE, "getDate", true);
    if (v == null) {
      return null;
    }
    int days = v.getDateValue();
    if (days == DATE_INFINITY || days == DATE_MINUS_INFINITY) {
      throw fail("is the date '" + (days == DATE_INFINITY ? "infinity" : "-infinity") + "', which a LocalDate cannot"
          + " hold; check isInfinite(\"" + column.getName() + "\") first");
    }
    return LocalDate.ofEpochDay(days);   // proleptic Gregorian, BC dates included (year 0 is 1 BC)
  }

  /** The instant of a timestamptz ({@code with_zone}); a timestamp without zone throws. */
  Instant getInstant() {
    Value v = expect(Value.KindCase.TIMESTAMP_VALUE, "getInstant", true);
    if (v == null) {
      return null;
    }
    if (!v.getTimestampValue().getWithZone()) {
      throw fail("is a timestamp without time zone (a wall-clock time, no instant); use getLocalDateTime");
    }
    return instantOf(v);
  }

  /** A timestamp without zone as its wall-clock time; a timestamptz throws. */
  LocalDateTime getLocalDateTime() {
    Value v = expect(Value.KindCase.TIMESTAMP_VALUE, "getLocalDateTime", true);
    if (v == null) {
      return null;
    }
    if (v.getTimestampValue().getWithZone()) {
      throw fail("is a timestamp with time zone (an instant); use getInstant or getOffsetDateTime");
    }
    return LocalDateTime.ofInstant(instantOf(v), ZoneOffset.UTC);
  }

  /** Whether the value is a special date/time ('infinity', '-infinity'); false for SQL NULL and other kinds. */
  boolean isInfinite() {
    return switch (value.getKindCase()) {
      case DATE_VALUE -> value.getDateValue() == DATE_INFINITY || value.getDateValue() == DATE_MINUS_INFINITY;
      case TIMESTAMP_VALUE -> TimestampSpecials.isSpecial(value.getTimestampValue());
      default -> false;
    };
  }

  private Instant instantOf(Value v) {
    var ts = v.getTimestampValue();
    if (TimestampSpecials.isSpecial(ts)) {
      throw fail("is the timestamp '" + TimestampSpecials.name(ts) + "', which no Java time type holds; check"
          + " isInfinite(\"" + column.getName() + "\") first");
    }
    return TimestampSpecials.instantOf(ts);
  }

  private IllegalStateException fail(String what) {
    return new IllegalStateException("column " + column.getName() + " of " + table.getSchemaName() + "."
        + table.getTableName() + " (" + kindText() + ") " + what);
  }

  private String kindText() {
    String source = column.getSourceType().isEmpty() ? "" : " " + column.getSourceType();
    return column.getKind() == ValueKind.VALUE_KIND_UNSPECIFIED ? source.strip()
        : column.getKind().name().substring("VALUE_KIND_".length()) + source;
  }

  private static String describe(Value.KindCase kind) {
    return switch (kind) {
      case BOOL_VALUE -> "boolean";
      case INT64_VALUE -> "integer";
      case DOUBLE_VALUE -> "floating-point";
      case DECIMAL_VALUE -> "decimal";
      case STRING_VALUE -> "text";
      case BYTES_VALUE -> "bytes";
      case TIMESTAMP_VALUE -> "timestamp";
      case DATE_VALUE -> "date";
      case TIME_MICROS_VALUE -> "time";
      case JSON_VALUE -> "JSON";
      case UUID_VALUE -> "uuid";
      case ARRAY_VALUE -> "array";
      default -> kind.name().toLowerCase();
    };
  }

  /** The getter that reads {@code v}. */
  static String getterFor(Value v) {
    return switch (v.getKindCase()) {
      case BOOL_VALUE -> "getBoolean";
      case INT64_VALUE -> "getLong";
      case DOUBLE_VALUE -> "getDouble";
      case DECIMAL_VALUE -> "getDecimal";
      case STRING_VALUE -> "getString";
      case BYTES_VALUE -> "getBytes";
      case TIMESTAMP_VALUE -> v.getTimestampValue().getWithZone() ? "getInstant or getOffsetDateTime"
          : "getLocalDateTime";
      case DATE_VALUE -> "getDate";
      case TIME_MICROS_VALUE -> "getTime";
      case JSON_VALUE -> "getJson";
      case UUID_VALUE -> "getUuid";
      case ARRAY_VALUE -> "getArray";
      default -> "value(name)";
    };
  }
}
