package dev.sluice.api.pgtext;

import dev.sluice.api.v1.ColumnCodec;
import dev.sluice.api.v1.CopyRows;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.Value;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL's COPY text format, one line at a time: fields separated by a tab, {@code \N} for NULL, and a
 * backslash escaping what would break the line ({@code \\ \t \n \r \b \f \v}; on input also {@code \}octal
 * digits, {@code \x}hex digits, and a backslash before any other character for that character). A line is
 * given as {@code buf[off, end)}, without its newline; bytes are UTF-8 (a backslash byte never occurs inside a
 * multi-byte character). Pure and thread-safe.
 *
 * <pre>{@code
 * byte[] line = "42\tAda\t\\N".getBytes(UTF_8);
 * List<Value> values = CopyText.values(line, 0, line.length, codecs);   // [42, "Ada", NULL]
 * String name = CopyText.field(line, 0, line.length, 1);                  // "Ada"
 * }</pre>
 */
public final class CopyText {

  /** A byte array read eight bytes at a time, little-endian: byte i of a word is its bits 8i..8i+7. */
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long NEWLINES = 0x0A0A0A0A0A0A0A0AL;
  private static final long LOW_SEVEN_BITS = 0x7F7F7F7F7F7F7F7FL;

  private CopyText() {}

  /**
   * Every field of the line read with its column's codec, in column order. A field its codec refuses is kept as
   * its text ({@code string_value}), as capture keeps a value it cannot parse: the upstream wrote it, so it is data,
   * not an error of the line.
   *
   * @throws IllegalArgumentException when the line has another number of fields than {@code columns}
   */
  public static List<Value> values(byte[] buf, int off, int end, List<ColumnCodec> columns) {
    List<Value> out = new ArrayList<>(columns.size());
    int start = off;
    for (int i = 0; i < columns.size(); i++) {
      if (start > end) {
        throw new IllegalArgumentException("a COPY line has " + i + " fields, its table " + columns.size());
      }
      int stop = fieldEnd(buf, start, end);
      out.add(value(buf, start, stop, columns.get(i)));
      start = stop + 1;
    }
    if (start <= end) {
      throw new IllegalArgumentException("a COPY line has more fields than its table's " + columns.size());
    }
    return out;
  }

  /** Field {@code index} (from 0) of the line read with {@code column}'s codec (kept as text when it refuses it). */
  public static Value value(byte[] buf, int off, int end, int index, ColumnCodec column) {
    int start = fieldStart(buf, off, end, index);
    return value(buf, start, fieldEnd(buf, start, end), column);
  }

  /**
   * Field {@code index} (from 0) of the line as a plain decimal integer (an optional sign and up to 18 digits, as
   * PostgreSQL prints an integer column), or {@code fallback} when it is anything else (NULL, escaped, wider).
   */
  public static long plainLong(byte[] buf, int off, int end, int index, long fallback) {
    int start = fieldStart(buf, off, end, index);
    int stop = fieldEnd(buf, start, end);
    int i = start;
    boolean negative = i < stop && buf[i] == '-';
    if (negative) {
      i++;
    }
    if (i == stop || stop - i > 18) {
      return fallback;
    }
    long v = 0;
    for (; i < stop; i++) {
      int d = buf[i] - '0';
      if (d < 0 || d > 9) {
        return fallback;
      }
      v = v * 10 + d;
    }
    return negative ? -v : v;
  }

  /** Field {@code index} (from 0) of the line as text, unescaped; null for {@code \N}. */
  public static String field(byte[] buf, int off, int end, int index) {
    int start = fieldStart(buf, off, end, index);
    int stop = fieldEnd(buf, start, end);
    if (isNull(buf, start, stop)) {
      return null;
    }
    return unescaped(buf, start, stop);
  }

  /**
   * The READ rows of {@code rows} as the RowChanges a stream without copy-text would carry (op READ, the after
   * image, row seq and key hash), for a reader that wants Values: a gRPC client of its own, a test.
   *
   * @throws IllegalArgumentException when row_count, key_hashes and the lines disagree, or a line has another
   *     number of fields than {@code columns}
   */
  public static List<RowChange> rowChanges(CopyRows rows) {
    byte[] buf = rows.getLines().toByteArray();
    int count = rows.getRowCount();
    if (rows.getKeyHashesCount() != count || lineCount(buf, 0, buf.length) != count) {
      throw new IllegalArgumentException("CopyRows holds " + lineCount(buf, 0, buf.length) + " lines and "
          + rows.getKeyHashesCount() + " key hashes for row_count " + count);
    }
    List<RowChange> out = new ArrayList<>(count);
    int off = 0;
    for (int i = 0; i < count; i++) {
      int end = lineEnd(buf, off, buf.length);
      out.add(RowChange.newBuilder().setOp(RowOp.ROW_OP_READ).addAllAfter(values(buf, off, end, rows.getColumnsList()))
          .setRowSeq(rows.getFirstRowSeq() + i).setKeyHash(rows.getKeyHashes(i)).build());
      off = end + 1;
    }
    return out;
  }

  /** The number of lines in {@code buf[off, end)}: its newlines (every line ends with one). */
  public static int lineCount(byte[] buf, int off, int end) {
    int n = 0;
    int i = off;
    for (; i + 8 <= end; i += 8) {   // eight bytes at a time: lines are scanned on every hop, row by row
      n += Long.bitCount(newlineBytes((long) LONGS.get(buf, i)));
    }
    for (; i < end; i++) {
      if (buf[i] == '\n') {
        n++;
      }
    }
    return n;
  }

  /** {@link #lineCount} of a buffer's remaining bytes (a ByteString's, without copying it out). */
  public static int lineCount(ByteBuffer bytes) {
    ByteBuffer b = bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int n = 0;
    int i = b.position();
    int end = b.limit();
    for (; i + 8 <= end; i += 8) {
      n += Long.bitCount(newlineBytes(b.getLong(i)));
    }
    for (; i < end; i++) {
      if (b.get(i) == '\n') {
        n++;
      }
    }
    return n;
  }

  /** Where the line starting at {@code off} ends: the index of its newline, or {@code end} when it has none. */
  public static int lineEnd(byte[] buf, int off, int end) {
    int i = off;
    for (; i + 8 <= end; i += 8) {
      long flags = newlineBytes((long) LONGS.get(buf, i));
      if (flags != 0) {
        return i + (Long.numberOfTrailingZeros(flags) >>> 3);
      }
    }
    for (; i < end; i++) {
      if (buf[i] == '\n') {
        return i;
      }
    }
    return end;
  }

  /**
   * The high bit of each byte of {@code word} that is a newline, exactly (no borrow carries a flag into the byte
   * above a newline, as the shorter zero-byte test lets it).
   */
  private static long newlineBytes(long word) {
    long x = word ^ NEWLINES;
    long y = (x & LOW_SEVEN_BITS) + LOW_SEVEN_BITS;
    return ~(y | x | LOW_SEVEN_BITS);
  }

  /** Appends {@code text} escaped as a COPY text field; a null appends {@code \N}. */
  public static void appendEscaped(StringBuilder out, String text) {
    if (text == null) {
      out.append("\\N");
      return;
    }
    int n = text.length();
    int i = 0;
    while (i < n && !needsEscape(text.charAt(i))) {
      i++;
    }
    out.append(text, 0, i);   // usually all of it
    for (; i < n; i++) {
      char c = text.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '\t' -> out.append("\\t");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        default -> out.append(c);
      }
    }
  }

  private static boolean needsEscape(char c) {
    return c == '\\' || c == '\t' || c == '\n' || c == '\r';
  }

  private static Value value(byte[] buf, int start, int stop, ColumnCodec column) {
    if (isNull(buf, start, stop)) {
      return PgText.NULL;
    }
    boolean escaped = false;
    for (int i = start; i < stop && !escaped; i++) {
      escaped = buf[i] == '\\';
    }
    try {
      return escaped ? PgText.parse(column, unescaped(buf, start, stop))
          : PgText.parse(column, buf, start, stop - start);   // nothing escaped: the bytes are the text
    } catch (IllegalArgumentException refused) {
      return Value.newBuilder().setStringValue(unescaped(buf, start, stop)).build();
    }
  }

  private static boolean isNull(byte[] buf, int start, int stop) {
    return stop - start == 2 && buf[start] == '\\' && buf[start + 1] == 'N';
  }

  private static int fieldStart(byte[] buf, int off, int end, int index) {
    int start = off;
    for (int i = 0; i < index; i++) {
      start = fieldEnd(buf, start, end) + 1;
      if (start > end) {
        throw new IllegalArgumentException("a COPY line has " + (i + 1) + " fields, field " + index + " was asked for");
      }
    }
    return start;
  }

  /** The tab ending the field that starts at {@code start}, or {@code end}. An escaped tab is "\t", never a tab. */
  private static int fieldEnd(byte[] buf, int start, int end) {
    for (int i = start; i < end; i++) {
      if (buf[i] == '\t') {
        return i;
      }
    }
    return end;
  }

  private static String unescaped(byte[] buf, int start, int stop) {
    byte[] out = new byte[stop - start];
    int n = 0;
    for (int i = start; i < stop; i++) {
      byte b = buf[i];
      if (b != '\\' || i + 1 >= stop) {
        out[n++] = b;
        continue;
      }
      byte c = buf[++i];
      switch (c) {
        case 'b' -> out[n++] = '\b';
        case 'f' -> out[n++] = '\f';
        case 'n' -> out[n++] = '\n';
        case 'r' -> out[n++] = '\r';
        case 't' -> out[n++] = '\t';
        case 'v' -> out[n++] = 0x0B;
        case 'x' -> {
          int v = 0;
          int digits = 0;
          while (digits < 2 && i + 1 < stop && Character.digit(buf[i + 1], 16) >= 0) {
            v = v * 16 + Character.digit(buf[++i], 16);
            digits++;
          }
          out[n++] = digits == 0 ? (byte) 'x' : (byte) v;
        }
        default -> {
          if (c >= '0' && c <= '7') {
            int v = c - '0';
            for (int d = 1; d < 3 && i + 1 < stop && buf[i + 1] >= '0' && buf[i + 1] <= '7'; d++) {
              v = v * 8 + (buf[++i] - '0');
            }
            out[n++] = (byte) v;
          } else {
            out[n++] = c;
          }
        }
      }
    }
    return new String(out, 0, n, StandardCharsets.UTF_8);
  }
}
