package dev.sluice.broker.snapshot;

import com.google.protobuf.ByteString;
import dev.sluice.api.v1.Value;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.UUID;

/**
 * The PostgreSQL input text of a key value, so a snapshot can continue "after key K" from the typed key
 * a sink recorded ({@code SnapshotRequest.after_key}). Each form reads back as the value it came from
 * when cast to the column's type (tested for every kind in {@code KeyLiteralsRoundTripTest}): integers and
 * decimals as their digits, doubles as Java's round-trip text, bytes as {@code \x} hex, dates and times
 * in ISO form with years before 1 as {@code BC}, the special values as {@code infinity}, instants in UTC,
 * arrays as array literals. Pure.
 *
 * <pre>{@code
 * String t = KeyLiterals.text(Value.newBuilder().setInt64Value(42).build());   // "42"
 * }</pre>
 */
public final class KeyLiterals {

  private KeyLiterals() {}

  /**
   * The input text of {@code v}.
   *
   * @throws IllegalArgumentException for NULL and unavailable values, which no key holds
   */
  public static String text(Value v) {
    return switch (v.getKindCase()) {
      case BOOL_VALUE -> v.getBoolValue() ? "true" : "false";
      case INT64_VALUE -> Long.toString(v.getInt64Value());
      case DOUBLE_VALUE -> Double.toString(v.getDoubleValue());
      case DECIMAL_VALUE -> v.getDecimalValue();
      case STRING_VALUE -> v.getStringValue();
      case JSON_VALUE -> v.getJsonValue();
      case BYTES_VALUE -> "\\x" + HexFormat.of().formatHex(v.getBytesValue().toByteArray());
      case UUID_VALUE -> uuid(v.getUuidValue());
      case DATE_VALUE -> date(v.getDateValue());
      case TIME_MICROS_VALUE -> time(v.getTimeMicrosValue());
      case TIMESTAMP_VALUE -> timestamp(v.getTimestampValue());
      case ARRAY_VALUE -> array(v);
      case NULL_VALUE, UNAVAILABLE, KIND_NOT_SET ->
          throw new IllegalArgumentException("a key value cannot be " + v.getKindCase());
    };
  }

  private static String uuid(ByteString bytes) {
    if (bytes.size() != 16) {
      throw new IllegalArgumentException("a uuid value has 16 bytes, got " + bytes.size());
    }
    ByteBuffer b = bytes.asReadOnlyByteBuffer();
    return new UUID(b.getLong(), b.getLong()).toString();
  }

  static String date(int days) {
    if (days == Integer.MAX_VALUE) {
      return "infinity";
    }
    if (days == Integer.MIN_VALUE) {
      return "-infinity";
    }
    LocalDate d = LocalDate.ofEpochDay(days);
    return ymd(d.getYear(), d.getMonthValue(), d.getDayOfMonth()) + era(d.getYear());
  }

  static String time(long micros) {
    return String.format("%02d:%02d:%02d.%06d", micros / 3_600_000_000L, micros / 60_000_000L % 60,
        micros / 1_000_000L % 60, micros % 1_000_000L);
  }

  static String timestamp(dev.sluice.api.v1.Timestamp ts) {
    switch (ts.getSpecial()) {
      case TIME_SPECIAL_INFINITY -> {
        return "infinity";
      }
      case TIME_SPECIAL_MINUS_INFINITY -> {
        return "-infinity";
      }
      default -> { }
    }
    long micros = ts.getMicros();
    boolean withZone = ts.getWithZone();
    LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
        (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
    if (ts.getMicrosPastMax() > 0) {   // finite, beyond int64 micros: PostgreSQL's last 30 years
      t = t.plus(java.time.Duration.ofSeconds(ts.getMicrosPastMax() / 1_000_000L, ts.getMicrosPastMax() % 1_000_000L * 1000));
    }
    return ymd(t.getYear(), t.getMonthValue(), t.getDayOfMonth())
        + String.format(" %02d:%02d:%02d.%06d", t.getHour(), t.getMinute(), t.getSecond(), t.getNano() / 1000)
        + (withZone ? "+00" : "") + era(t.getYear());
  }

  /** PostgreSQL writes year 0 (proleptic) as 1 BC. */
  private static String ymd(int year, int month, int day) {
    int shown = year <= 0 ? 1 - year : year;
    return String.format("%04d-%02d-%02d", shown, month, day);
  }

  private static String era(int year) {
    return year <= 0 ? " BC" : "";
  }

  private static String array(Value array) {
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
        sb.append(array(e));
      } else {
        String text = text(e);
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
}
