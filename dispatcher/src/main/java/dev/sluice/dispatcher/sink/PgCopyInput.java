package dev.sluice.dispatcher.sink;

import dev.sluice.api.pgtext.CopyText;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
import dev.sluice.dispatcher.CopyLine;
import dev.sluice.dispatcher.RowImage;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.copy.CopyIn;

/**
 * The rows of one COPY load as the bytes {@code COPY ... FROM STDIN} (text format, UTF-8, PgJDBC's client
 * encoding) is given. A row backed by a COPY line (feature copy-text) is its line as the upstream wrote it, never
 * decoded, and consecutive lines of one buffer are one write; any other row is its values printed as COPY text.
 * Built once, written once or twice (straight into the target, and again into the staging table after a unique
 * violation).
 *
 * <p>A line is written without {@link Dialect#adapt}: all that adapts is a box[] printed with ';' between its
 * elements, which a line already is, being PostgreSQL's own output. Every field of a line is the upstream
 * PostgreSQL's output text of the column's type (DateStyle ISO, as the broker reads it), which the target's column
 * of that type reads back as the same value; the values path prints the same values in other words (a timestamptz
 * at UTC, a real's widened double) that read back the same.
 *
 * <pre>{@code
 * PgCopyInput input = PgCopyInput.of(info, images, scratch);   // null: an image lacks a value
 * CopyIn in = copyApi.copyIn("COPY t (a, b) FROM STDIN");
 * input.writeTo(in);
 * in.endCopy();
 * }</pre>
 */
final class PgCopyInput {

  /** {@code buffer[from, to)}: whole lines, each with its newline. */
  private record Range(byte[] buffer, int from, int to) {}

  private final List<Range> ranges;
  private final long lines;

  private PgCopyInput(List<Range> ranges, long lines) {
    this.ranges = ranges;
    this.lines = lines;
  }

  /**
   * The COPY input of {@code images} over {@code info}'s columns, or null when an image that is not a COPY line
   * lacks a value for some column (unavailable, or fewer values than columns): such rows cannot be loaded whole.
   *
   * @param text scratch for the rows printed from values; cleared first, its capacity kept by the caller
   */
  static PgCopyInput of(TableInfo info, List<RowImage> images, StringBuilder text) {
    int columns = info.getColumnsCount();
    List<Range> ranges = new ArrayList<>();
    long lines = 0;
    text.setLength(0);
    for (RowImage image : images) {
      CopyLine line = image.copyLine();
      if (line != null && image.size() == columns) {
        flushText(text, ranges);
        addLine(ranges, line);
        lines++;
      } else if (!appendRow(text, info, image, columns)) {
        return null;
      }
    }
    flushText(text, ranges);
    return new PgCopyInput(ranges, lines);
  }

  /** How many rows went as their COPY line. */
  long lines() {
    return lines;
  }

  /** How many writes {@link #writeTo} makes: a run of consecutive lines of one buffer is one. */
  int writes() {
    return ranges.size();
  }

  /** Writes every row to {@code in}, in order; the caller ends (or cancels) the COPY. */
  void writeTo(CopyIn in) throws SQLException {
    for (Range r : ranges) {
      in.writeToCopy(r.buffer(), r.from(), r.to() - r.from());
    }
  }

  /** Appends {@code line} with its newline, as part of the last range when it follows it in the same buffer. */
  private static void addLine(List<Range> ranges, CopyLine line) {
    int last = ranges.size() - 1;
    Range r = last < 0 ? null : ranges.get(last);
    if (r != null && r.buffer() == line.buffer() && r.to() == line.offset()) {
      ranges.set(last, new Range(r.buffer(), r.from(), line.end() + 1));
    } else {
      ranges.add(new Range(line.buffer(), line.offset(), line.end() + 1));
    }
  }

  /** The rows printed so far become one range of their UTF-8 bytes. */
  private static void flushText(StringBuilder text, List<Range> ranges) {
    if (text.length() == 0) {
      return;
    }
    ByteBuffer bytes = StandardCharsets.UTF_8.encode(CharBuffer.wrap(text));
    ranges.add(new Range(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.arrayOffset() + bytes.limit()));
    text.setLength(0);
  }

  /** One row printed from its values, with its newline; false when a column has no value to print. */
  private static boolean appendRow(StringBuilder out, TableInfo info, RowImage image, int columns) {
    if (image.size() < columns) {
      return false;
    }
    for (int i = 0; i < columns; i++) {
      Value v = image.value(i);
      if (v.hasUnavailable()) {
        return false;
      }
      if (i > 0) {
        out.append('\t');
      }
      appendCopyText(out, Dialect.POSTGRESQL.adapt(info.getColumns(i), v));
    }
    out.append('\n');
    return true;
  }

  /** One value in COPY's text format: {@code \N} for NULL, the value's text with \, tab, newline, CR escaped. */
  static void appendCopyText(StringBuilder out, Value v) {
    switch (v.getKindCase()) {
      case NULL_VALUE, KIND_NOT_SET -> out.append("\\N");
      case INT64_VALUE -> out.append(v.getInt64Value());   // digits and a sign: nothing to escape, no String made
      case STRING_VALUE -> CopyText.appendEscaped(out, v.getStringValue());
      default -> CopyText.appendEscaped(out, v.hasArrayValue() ? ValueText.pgArray(v) : ValueText.scalar(v));
    }
  }
}
