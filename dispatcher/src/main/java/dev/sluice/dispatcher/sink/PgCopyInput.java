package dev.sluice.dispatcher.sink;

import dev.sluice.api.pgtext.CopyText;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
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
 * encoding) is given: each row its values printed as COPY text. Built once, written once or twice (straight into
 * the target, and again into the staging table after a unique violation).
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

  private PgCopyInput(List<Range> ranges) {
    this.ranges = ranges;
  }

  /**
   * The COPY input of {@code images} over {@code info}'s columns, or null when an image lacks a value for some
   * column (unavailable, or fewer values than columns): such rows cannot be loaded whole.
   *
   * @param text scratch for the rows printed from values; cleared first, its capacity kept by the caller
   */
  static PgCopyInput of(TableInfo info, List<RowImage> images, StringBuilder text) {
    int columns = info.getColumnsCount();
    List<Range> ranges = new ArrayList<>();
    text.setLength(0);
    for (RowImage image : images) {
      if (!appendRow(text, info, image, columns)) {
        return null;
      }
    }
    flushText(text, ranges);
    return new PgCopyInput(ranges);
  }

  /** Writes every row to {@code in}, in order; the caller ends (or cancels) the COPY. */
  void writeTo(CopyIn in) throws SQLException {
    for (Range r : ranges) {
      in.writeToCopy(r.buffer(), r.from(), r.to() - r.from());
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
