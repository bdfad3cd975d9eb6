package dev.sluice.dispatcher.sink;

import com.google.protobuf.ByteString;
import dev.sluice.api.v1.Timestamp;
import dev.sluice.api.v1.Value;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

/**
 * Canonical text forms of {@link Value}s that SQL targets and JSON lines share.
 *
 * <p>Dates and timestamps come in two spellings. PostgreSQL's ({@link #pgDate}, {@link #pgTimestamp}, used
 * by {@link #scalar} and so by every SQL target): the era year with {@code BC} after it
 * ({@code 4713-01-01 BC}), years past 9999 without a sign ({@code 294276-12-31}), and {@code infinity} /
 * {@code -infinity}. ISO 8601 ({@link #isoDate}, {@link #isoTimestamp}, used by JSON lines): astronomical
 * years ({@code 0000} is 1 BC, {@code -4712-01-01} is 4713-01-01 BC, {@code +294276-12-31} past 9999), as
 * {@code java.time} parses them, and the strings {@code infinity} / {@code -infinity}.
 */
final class ValueText {

  private static final long MICROS_PER_SECOND = 1_000_000L;

  private ValueText() {}

  /**
   * "2024-05-01 12:00:00.000123" (UTC for an instant, no zone): for a finite value of years 1 to 9999
   * ({@link #inCommonEra}), as MySQL and MariaDB read a DATETIME.
   */
  static String commonEraTimestamp(Timestamp t) {
    return pgDateTime(wallClock(t), false);
  }

  /** PostgreSQL's text of a date: {@code 2024-05-01}, {@code 4713-01-01 BC}, {@code infinity}. */
  static String pgDate(int days) {
    String special = special(days);
    if (special != null) {
      return special;
    }
    LocalDate d = LocalDate.ofEpochDay(days);
    return eraYear(d.getYear()) + String.format("-%02d-%02d", d.getMonthValue(), d.getDayOfMonth())
        + (d.getYear() <= 0 ? " BC" : "");
  }

  /** ISO 8601 date with an astronomical year ({@code -4712-01-01}), or {@code infinity} / {@code -infinity}. */
  static String isoDate(int days) {
    String special = special(days);
    return special != null ? special : LocalDate.ofEpochDay(days).toString();
  }

  /** PostgreSQL's text of a timestamp: {@code 2024-05-01 12:00:00.000123[+00][ BC]}, or {@code [-]infinity}. */
  static String pgTimestamp(Timestamp t) {
    String special = special(t);
    if (special != null) {
      return special;
    }
    return pgDateTime(wallClock(t), t.getWithZone());
  }

  /** ISO 8601 timestamp ({@code 2024-05-01T12:00:00.000123[Z]}, astronomical years), or {@code [-]infinity}. */
  static String isoTimestamp(Timestamp t) {
    String special = special(t);
    if (special != null) {
      return special;
    }
    LocalDateTime time = wallClock(t);
    return time.toLocalDate() + "T" + clock(time) + (t.getWithZone() ? "Z" : "");
  }

  /** Whether the value is a date or timestamp a target with years 1 to 9999 can hold (MySQL, MariaDB). */
  static boolean inCommonEra(Value v) {
    int year;
    if (v.hasTimestampValue()) {
      if (special(v.getTimestampValue()) != null) {
        return false;
      }
      year = wallClock(v.getTimestampValue()).getYear();
    } else if (v.hasDateValue()) {
      if (special(v.getDateValue()) != null) {
        return false;
      }
      year = LocalDate.ofEpochDay(v.getDateValue()).getYear();
    } else {
      return true;
    }
    return year >= 1 && year <= 9999;
  }

  private static String special(int days) {
    return days == Integer.MAX_VALUE ? "infinity" : days == Integer.MIN_VALUE ? "-infinity" : null;
  }

  private static String special(Timestamp t) {
    return switch (t.getSpecial()) {
      case TIME_SPECIAL_INFINITY -> "infinity";
      case TIME_SPECIAL_MINUS_INFINITY -> "-infinity";
      case TIME_SPECIAL_NONE, UNRECOGNIZED -> null;
    };
  }

  /** The wall clock of a finite timestamp (UTC for an instant), micros_past_max included. */
  private static LocalDateTime wallClock(Timestamp t) {
    long seconds = Math.floorDiv(t.getMicros(), MICROS_PER_SECOND);
    long micros = Math.floorMod(t.getMicros(), MICROS_PER_SECOND);
    if (t.getMicrosPastMax() > 0) {   // at most ~30 years of micros: no overflow in the sum
      long m = micros + t.getMicrosPastMax();
      seconds += m / MICROS_PER_SECOND;
      micros = m % MICROS_PER_SECOND;
    }
    return LocalDateTime.ofEpochSecond(seconds, (int) micros * 1000, ZoneOffset.UTC);
  }

  private static String pgDateTime(LocalDateTime time, boolean withZone) {
    int year = time.getYear();
    return eraYear(year) + String.format("-%02d-%02d ", time.getMonthValue(), time.getDayOfMonth()) + clock(time)
        + (withZone ? "+00" : "") + (year <= 0 ? " BC" : "");
  }

  private static String clock(LocalDateTime time) {
    return String.format("%02d:%02d:%02d.%06d", time.getHour(), time.getMinute(), time.getSecond(),
        time.getNano() / 1000);
  }

  /** The year of the era, at least four digits: 1 BC (astronomical year 0) is 0001. */
  private static String eraYear(int astronomical) {
    return String.format("%04d", astronomical <= 0 ? 1 - (long) astronomical : astronomical);
  }

  /** "HH:MM:SS.ffffff" from microseconds since midnight (24:00:00 allowed, as PostgreSQL does). */
  static String time(long micros) {
    long h = micros / 3_600_000_000L;
    long m = micros / 60_000_000L % 60;
    long s = micros / 1_000_000L % 60;
    long f = micros % 1_000_000L;
    return String.format("%02d:%02d:%02d.%06d", h, m, s, f);
  }

  static String uuid(ByteString bytes) {
    if (bytes.size() != 16) {
      throw new IllegalArgumentException("a uuid value has 16 bytes, got " + bytes.size());
    }
    ByteBuffer b = bytes.asReadOnlyByteBuffer();
    return new UUID(b.getLong(), b.getLong()).toString();
  }

  /** A PostgreSQL array literal such as {@code {"a","b\"c",NULL}}. */
  static String pgArray(Value array) {
    return pgArray(array, ',');
  }

  /**
   * As {@link #pgArray(Value)} with the element type's {@code delimiter}: {@code ';'} for {@code box}, whose
   * values hold commas ({@code {(1,1),(0,0);(2,2),(1,1)}}), {@code ','} for every other built-in type.
   */
  static String pgArray(Value array, char delimiter) {
    java.util.List<Integer> lower = array.getArrayValue().getLowerBoundsList();
    if (lower.isEmpty()) {
      return pgArrayBody(array, delimiter);
    }
    StringBuilder sb = new StringBuilder();   // [lower:upper] per dimension, then =: PostgreSQL's own form
    Value level = array;
    for (int lowerBound : lower) {
      int n = level.hasArrayValue() ? level.getArrayValue().getElementsCount() : 0;
      sb.append('[').append(lowerBound).append(':').append(lowerBound + n - 1).append(']');
      level = n > 0 ? level.getArrayValue().getElements(0) : level;
    }
    return sb.append('=').append(pgArrayBody(array, delimiter)).toString();
  }

  private static String pgArrayBody(Value array, char delimiter) {
    StringBuilder sb = new StringBuilder("{");
    boolean first = true;
    for (Value e : array.getArrayValue().getElementsList()) {
      if (!first) {
        sb.append(delimiter);
      }
      first = false;
      if (e.hasNullValue()) {
        sb.append("NULL");
      } else if (e.hasArrayValue()) {
        sb.append(pgArrayBody(e, delimiter));
      } else {
        String text = scalar(e);
        sb.append('"');
        for (int i = 0; i < text.length(); i++) {
          char c = text.charAt(i);
          if (c == '"' || c == '\\') {
            sb.append('\\');
          }
          sb.append(c);
        }
        sb.append('"');
      }
    }
    return sb.append('}').toString();
  }

  /** The text of a scalar value, as a SQL target would parse it. */
  static String scalar(Value v) {
    return switch (v.getKindCase()) {
      case BOOL_VALUE -> v.getBoolValue() ? "true" : "false";
      case INT64_VALUE -> Long.toString(v.getInt64Value());
      case DOUBLE_VALUE -> Double.toString(v.getDoubleValue());
      case DECIMAL_VALUE -> v.getDecimalValue();
      case STRING_VALUE -> v.getStringValue();
      case BYTES_VALUE -> "\\x" + java.util.HexFormat.of().formatHex(v.getBytesValue().toByteArray());
      case TIMESTAMP_VALUE -> pgTimestamp(v.getTimestampValue());
      case DATE_VALUE -> pgDate(v.getDateValue());
      case TIME_MICROS_VALUE -> time(v.getTimeMicrosValue());
      case JSON_VALUE -> v.getJsonValue();
      case UUID_VALUE -> uuid(v.getUuidValue());
      case ARRAY_VALUE -> pgArray(v);
      case NULL_VALUE, UNAVAILABLE, KIND_NOT_SET -> throw new IllegalArgumentException("no text for " + v.getKindCase());
    };
  }
}
