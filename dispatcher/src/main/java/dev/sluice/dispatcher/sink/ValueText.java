package dev.sluice.dispatcher.sink;

import com.google.protobuf.ByteString;
import dev.sluice.api.v1.Value;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;

/** Canonical text forms of {@link Value}s that SQL targets and JSON lines share. */
final class ValueText {

  private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");

  private ValueText() {}

  /** "2024-05-01 12:00:00.000123" (UTC for an instant). */
  static String timestamp(long micros) {
    LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
        (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
    return TS.format(t);
  }

  /** ISO date from days since 1970-01-01. */
  static String date(int days) {
    return LocalDate.ofEpochDay(days).toString();
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
    StringBuilder sb = new StringBuilder("{");
    boolean first = true;
    for (Value e : array.getArrayValue().getElementsList()) {
      if (!first) {
        sb.append(',');
      }
      first = false;
      if (e.hasNullValue()) {
        sb.append("NULL");
      } else if (e.hasArrayValue()) {
        sb.append(pgArray(e));
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
      case TIMESTAMP_VALUE -> timestamp(v.getTimestampValue().getMicros())
          + (v.getTimestampValue().getWithZone() ? "+00" : "");
      case DATE_VALUE -> date(v.getDateValue());
      case TIME_MICROS_VALUE -> time(v.getTimeMicrosValue());
      case JSON_VALUE -> v.getJsonValue();
      case UUID_VALUE -> uuid(v.getUuidValue());
      case ARRAY_VALUE -> pgArray(v);
      case NULL_VALUE, UNAVAILABLE, KIND_NOT_SET -> throw new IllegalArgumentException("no text for " + v.getKindCase());
    };
  }
}
