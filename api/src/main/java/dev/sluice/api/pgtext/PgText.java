package dev.sluice.api.pgtext;

import com.google.protobuf.ByteString;
import dev.sluice.api.v1.ColumnCodec;
import dev.sluice.api.v1.NullValue;
import dev.sluice.api.v1.TextCodec;
import dev.sluice.api.v1.TimeSpecial;
import dev.sluice.api.v1.Timestamp;
import dev.sluice.api.v1.Unavailable;
import dev.sluice.api.v1.Value;
import java.time.LocalDate;

/**
 * Parses PostgreSQL's text output (what pgoutput sends and {@code COPY ... TO} writes, with {@code DateStyle=ISO})
 * into typed {@link Value}s, by a column's {@link TextCodec}. The broker reads captured and snapshot rows with
 * it; a client reads {@code CopyRows} with it, so both sides make the same Values of the same text.
 *
 * <p>Mappings: integers to int64; float4/float8 to double (a float4 widened exactly); numeric to
 * its canonical decimal text ({@code NaN} and {@code ±Infinity} included); date to days since
 * 1970-01-01; time to microseconds since midnight; timestamp/timestamptz to microseconds since
 * 1970-01-01 (timestamptz as a UTC instant); BC years proleptically (1 BC = year 0), exactly as
 * PostgreSQL counts them. PostgreSQL's {@code infinity}/{@code -infinity} are dates of
 * {@code Integer.MAX_VALUE} / {@code MIN_VALUE} days (no finite date is that far) and timestamps with
 * {@code Timestamp.special} set (their micros the extreme {@code long}s, for readers that predate the
 * field), so the finite 294247-01-10 04:00:54.775807 ({@code Long.MAX_VALUE} micros) stays itself; a
 * later finite timestamp (up to PostgreSQL's 294276-12-31) carries its excess in
 * {@code Timestamp.micros_past_max}. Anything without a typed mapping stays text.
 *
 * <pre>{@code
 * Value v = PgText.parse(TextCodec.TEXT_CODEC_TIMESTAMPTZ, TextCodec.TEXT_CODEC_UNSPECIFIED, ',',
 *     "2024-01-31 12:00:00.5+01");
 * long micros = v.getTimestampValue().getMicros();   // 2024-01-31T11:00:00.5Z
 * }</pre>
 */
public final class PgText {

  public static final Value NULL = Value.newBuilder().setNullValue(NullValue.NULL_VALUE).build();
  public static final Value UNAVAILABLE = Value.newBuilder().setUnavailable(Unavailable.getDefaultInstance()).build();
  private static final Value TRUE = Value.newBuilder().setBoolValue(true).build();
  private static final Value FALSE = Value.newBuilder().setBoolValue(false).build();

  private static final long MICROS_PER_SECOND = 1_000_000L;
  private static final long MICROS_PER_DAY = 86_400L * MICROS_PER_SECOND;

  private PgText() {}

  /**
   * Parses the text form of one non-null value straight from the message bytes (UTF-8, as the
   * replication connection's client encoding is): integers and booleans without building a String,
   * strings, JSON and decimals as their bytes without transcoding; the rest through
   * {@link #parse(TextCodec, TextCodec, char, String)}. Same result as that method.
   */
  public static Value parse(TextCodec codec, TextCodec element, char delimiter, byte[] buf, int off, int len) {
    switch (codec) {
      case TEXT_CODEC_INT -> {
        Long v = parseLong(buf, off, len);
        if (v != null) {
          return Value.newBuilder().setInt64Value(v).build();
        }
      }
      case TEXT_CODEC_BOOL -> {
        if (len == 1 && (buf[off] == 't' || buf[off] == 'f')) {
          return buf[off] == 't' ? TRUE : FALSE;
        }
      }
      case TEXT_CODEC_TEXT, TEXT_CODEC_ENUM, TEXT_CODEC_FALLBACK -> {
        return Value.newBuilder().setStringValueBytes(ByteString.copyFrom(buf, off, len)).build();
      }
      case TEXT_CODEC_JSON -> {
        return Value.newBuilder().setJsonValueBytes(ByteString.copyFrom(buf, off, len)).build();
      }
      case TEXT_CODEC_NUMERIC -> {
        return Value.newBuilder().setDecimalValueBytes(ByteString.copyFrom(buf, off, len)).build();
      }
      default -> {
        // parsed from text below
      }
    }
    return parse(codec, element, delimiter, new String(buf, off, len, java.nio.charset.StandardCharsets.UTF_8));
  }

  /** Decimal ASCII digits with an optional sign, or null when not a plain in-range integer. */
  private static Long parseLong(byte[] buf, int off, int len) {
    if (len == 0 || len > 18) {
      return null; // 19 digits may overflow: Long.parseLong decides
    }
    int i = off;
    int end = off + len;
    boolean negative = buf[i] == '-';
    if (negative || buf[i] == '+') {
      i++;
      if (i == end) {
        return null;
      }
    }
    long v = 0;
    for (; i < end; i++) {
      int d = buf[i] - '0';
      if (d < 0 || d > 9) {
        return null;
      }
      v = v * 10 + d;
    }
    return negative ? -v : v;
  }

  /**
   * Parses the text form of one non-null value of a column read with {@code column}.
   *
   * @throws IllegalArgumentException when the text is not a valid value of the codec
   */
  public static Value parse(ColumnCodec column, String text) {
    return parse(column.getCodec(), column.getElementCodec(), delimiter(column), text);
  }

  /** {@link #parse(ColumnCodec, String)} straight from UTF-8 bytes. */
  public static Value parse(ColumnCodec column, byte[] buf, int off, int len) {
    return parse(column.getCodec(), column.getElementCodec(), delimiter(column), buf, off, len);
  }

  /** The character between a column's array elements: {@code ','} unless the codec names another. */
  static char delimiter(ColumnCodec column) {
    String d = column.getElementDelimiter();
    return d.isEmpty() ? ',' : d.charAt(0);
  }

  /**
   * Parses the text form of one non-null value.
   *
   * @param codec     how the text reads
   * @param element   for {@code TEXT_CODEC_ARRAY}, how each element reads (ignored otherwise)
   * @param delimiter for {@code TEXT_CODEC_ARRAY}, the character between elements
   * @throws IllegalArgumentException when the text is not a valid value of the codec
   */
  public static Value parse(TextCodec codec, TextCodec element, char delimiter, String text) {
    try {
      return switch (codec) {
        case TEXT_CODEC_BOOL -> parseBool(text);
        case TEXT_CODEC_INT -> Value.newBuilder().setInt64Value(Long.parseLong(text)).build();
        case TEXT_CODEC_FLOAT4 -> Value.newBuilder().setDoubleValue(Float.parseFloat(text)).build();
        case TEXT_CODEC_FLOAT8 -> Value.newBuilder().setDoubleValue(Double.parseDouble(text)).build();
        case TEXT_CODEC_NUMERIC -> Value.newBuilder().setDecimalValue(text).build();
        case TEXT_CODEC_TEXT, TEXT_CODEC_ENUM, TEXT_CODEC_FALLBACK -> Value.newBuilder().setStringValue(text).build();
        case TEXT_CODEC_BYTEA -> Value.newBuilder().setBytesValue(ByteString.copyFrom(parseBytea(text))).build();
        case TEXT_CODEC_DATE -> Value.newBuilder().setDateValue(parseDate(text)).build();
        case TEXT_CODEC_TIME -> Value.newBuilder().setTimeMicrosValue(parseTime(text, 0)).build();
        case TEXT_CODEC_TIMESTAMP -> Value.newBuilder().setTimestampValue(parseTimestamp(text, false)).build();
        case TEXT_CODEC_TIMESTAMPTZ -> Value.newBuilder().setTimestampValue(parseTimestamp(text, true)).build();
        case TEXT_CODEC_UUID -> Value.newBuilder().setUuidValue(ByteString.copyFrom(parseUuid(text))).build();
        case TEXT_CODEC_JSON -> Value.newBuilder().setJsonValue(text).build();
        case TEXT_CODEC_ARRAY -> PgArrayText.parse(element, delimiter, text);
        case TEXT_CODEC_UNSPECIFIED, UNRECOGNIZED -> throw new IllegalArgumentException("no text codec given");
      };
    } catch (RuntimeException e) { // NumberFormat, DateTime, Arithmetic: one message naming the codec
      throw new IllegalArgumentException("not a valid " + name(codec) + " value: '" + abbreviate(text) + "'", e);
    }
  }

  /** {@code TEXT_CODEC_INT} as {@code int}: what error messages call a codec. */
  static String name(TextCodec codec) {
    return codec.name().startsWith("TEXT_CODEC_") ? codec.name().substring(11).toLowerCase(java.util.Locale.ROOT)
        : codec.name();
  }

  private static Value parseBool(String text) {
    if (text.equals("t")) {
      return TRUE;
    }
    if (text.equals("f")) {
      return FALSE;
    }
    throw new IllegalArgumentException("not a bool value: '" + abbreviate(text) + "'");
  }

  /** bytea in hex ({@code \x0a0b}) or escape format. */
  public static byte[] parseBytea(String text) {
    if (text.startsWith("\\x")) {
      int n = (text.length() - 2) / 2;
      if ((text.length() - 2) % 2 != 0) {
        throw new IllegalArgumentException("not a bytea value: odd number of hex digits");
      }
      byte[] out = new byte[n];
      for (int i = 0; i < n; i++) {
        out[i] = (byte) (hex(text.charAt(2 + 2 * i)) << 4 | hex(text.charAt(3 + 2 * i)));
      }
      return out;
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c != '\\') {
        out.write(c);
      } else if (i + 1 < text.length() && text.charAt(i + 1) == '\\') {
        out.write('\\');
        i++;
      } else if (i + 3 < text.length()) {
        out.write((text.charAt(i + 1) - '0') << 6 | (text.charAt(i + 2) - '0') << 3 | (text.charAt(i + 3) - '0'));
        i += 3;
      } else {
        throw new IllegalArgumentException("not a bytea value: bad escape at " + i);
      }
    }
    return out.toByteArray();
  }

  private static int hex(char c) {
    int d = Character.digit(c, 16);
    if (d < 0) {
      throw new IllegalArgumentException("not a hex digit: '" + c + "'");
    }
    return d;
  }

  public static byte[] parseUuid(String text) {
    byte[] out = new byte[16];
    int n = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '-') {
        continue;
      }
      if (n >= 32) {
        throw new IllegalArgumentException("not a uuid value: too many digits");
      }
      int d = hex(c);
      out[n / 2] |= (byte) (n % 2 == 0 ? d << 4 : d);
      n++;
    }
    if (n != 32) {
      throw new IllegalArgumentException("not a uuid value: " + n + " hex digits");
    }
    return out;
  }

  /** Days since 1970-01-01 of {@code YYYY-MM-DD[ BC]}. */
  public static int parseDate(String text) {
    if (text.equals("infinity")) {
      return Integer.MAX_VALUE;
    }
    if (text.equals("-infinity")) {
      return Integer.MIN_VALUE;
    }
    boolean bc = text.endsWith(" BC");
    String s = bc ? text.substring(0, text.length() - 3) : text;
    return Math.toIntExact(epochDay(s, 0, s.length(), bc));
  }

  /** Epoch day of {@code Y+-MM-DD} in {@code s[from, to)}. */
  private static long epochDay(String s, int from, int to, boolean bc) {
    int dash = s.indexOf('-', from + 1);
    if (dash < 0 || to - dash != 6 || s.charAt(dash + 3) != '-') {
      throw new IllegalArgumentException("not a date: '" + abbreviate(s) + "'");
    }
    int year = Integer.parseInt(s, from, dash, 10);
    int month = twoDigits(s, dash + 1);
    int day = twoDigits(s, dash + 4);
    return LocalDate.of(bc ? 1 - year : year, month, day).toEpochDay();
  }

  /** Micros since midnight of {@code HH:MM:SS[.ffffff]} starting at {@code from}. */
  public static long parseTime(String s, int from) {
    int end = timeEnd(s, from);
    if (end != s.length()) {
      throw new IllegalArgumentException("not a time: '" + abbreviate(s) + "'");
    }
    return timeMicros(s, from, end);
  }

  private static int timeEnd(String s, int from) {
    int i = from + 8;
    if (i > s.length() || s.charAt(from + 2) != ':' || s.charAt(from + 5) != ':') {
      throw new IllegalArgumentException("not a time: '" + abbreviate(s) + "'");
    }
    if (i < s.length() && s.charAt(i) == '.') {
      i++;
      while (i < s.length() && Character.isDigit(s.charAt(i))) {
        i++;
      }
    }
    return i;
  }

  private static long timeMicros(String s, int from, int end) {
    long h = twoDigits(s, from);
    long m = twoDigits(s, from + 3);
    long sec = twoDigits(s, from + 6);
    long fraction = 0;
    if (end > from + 8) {
      int digits = end - (from + 9);
      if (digits < 1 || digits > 6) {
        throw new IllegalArgumentException("not a time: fraction of " + digits + " digits");
      }
      fraction = Integer.parseInt(s, from + 9, end, 10);
      for (int d = digits; d < 6; d++) {
        fraction *= 10;
      }
    }
    return ((h * 60 + m) * 60 + sec) * MICROS_PER_SECOND + fraction;
  }

  /**
   * The timestamp of {@code Y+-MM-DD HH:MM:SS[.f][±HH[:MM[:SS]]][ BC]} (or {@code [-]infinity}): micros since
   * 1970-01-01, with a zone the UTC instant; past {@code Long.MAX_VALUE} micros the excess goes to
   * {@code micros_past_max}.
   */
  public static Timestamp parseTimestamp(String text, boolean withZone) {
    Timestamp.Builder t = Timestamp.newBuilder().setWithZone(withZone);
    if (text.equals("infinity")) {
      return t.setMicros(Long.MAX_VALUE).setSpecial(TimeSpecial.TIME_SPECIAL_INFINITY).build();
    }
    if (text.equals("-infinity")) {
      return t.setMicros(Long.MIN_VALUE).setSpecial(TimeSpecial.TIME_SPECIAL_MINUS_INFINITY).build();
    }
    boolean bc = text.endsWith(" BC");
    String s = bc ? text.substring(0, text.length() - 3) : text;
    int space = s.indexOf(' ');
    if (space < 0) {
      throw new IllegalArgumentException("not a timestamp: '" + abbreviate(text) + "'");
    }
    long day = epochDay(s, 0, space, bc);
    int timeEnd = timeEnd(s, space + 1);
    long timeOfDay = timeMicros(s, space + 1, timeEnd);
    long offset = 0;
    if (timeEnd == s.length()) {
      if (withZone) {
        throw new IllegalArgumentException("not a timestamptz: no offset in '" + abbreviate(text) + "'");
      }
    } else if (!withZone) {
      throw new IllegalArgumentException("not a timestamp: trailing text in '" + abbreviate(text) + "'");
    } else {
      offset = offsetSeconds(s, timeEnd) * MICROS_PER_SECOND;
    }
    try {
      return t.setMicros(Math.subtractExact(Math.addExact(Math.multiplyExact(day, MICROS_PER_DAY), timeOfDay), offset))
          .build();
    } catch (ArithmeticException overflow) {
      // the last ~30 years PostgreSQL allows: beyond a long of micros since 1970
      java.math.BigInteger exact = java.math.BigInteger.valueOf(day).multiply(java.math.BigInteger.valueOf(MICROS_PER_DAY))
          .add(java.math.BigInteger.valueOf(timeOfDay - offset));
      java.math.BigInteger past = exact.subtract(java.math.BigInteger.valueOf(Long.MAX_VALUE));
      if (past.signum() <= 0 || past.bitLength() > 63) {
        throw overflow;
      }
      return t.setMicros(Long.MAX_VALUE).setMicrosPastMax(past.longValueExact()).build();
    }
  }

  /** Seconds east of UTC of {@code ±HH[:MM[:SS]]} at {@code from} (to the end of s). */
  private static long offsetSeconds(String s, int from) {
    char sign = s.charAt(from);
    if (sign != '+' && sign != '-') {
      throw new IllegalArgumentException("not a zone offset: '" + s.substring(from) + "'");
    }
    int len = s.length() - from - 1;
    if (len != 2 && len != 5 && len != 8) {
      throw new IllegalArgumentException("not a zone offset: '" + s.substring(from) + "'");
    }
    long seconds = twoDigits(s, from + 1) * 3600L;
    if (len >= 5) {
      seconds += twoDigits(s, from + 4) * 60L;
    }
    if (len == 8) {
      seconds += twoDigits(s, from + 7);
    }
    return sign == '-' ? -seconds : seconds;
  }

  private static int twoDigits(String s, int at) {
    char a = s.charAt(at);
    char b = s.charAt(at + 1);
    if (a < '0' || a > '9' || b < '0' || b > '9') {
      throw new IllegalArgumentException("not two digits at " + at + " of '" + abbreviate(s) + "'");
    }
    return (a - '0') * 10 + (b - '0');
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
