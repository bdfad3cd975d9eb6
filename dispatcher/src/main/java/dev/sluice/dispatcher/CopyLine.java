package dev.sluice.dispatcher;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One row as the upstream PostgreSQL wrote it with {@code COPY ... TO} (text format): the table info's columns in
 * order, separated by a tab, each value its type's output text with COPY's escapes, {@code \N} for NULL, in UTF-8.
 * A snapshot's READ rows arrive so when the broker offers the copy-text feature, and
 * {@link RowImage#copyLine()} hands the line to a sink that loads PostgreSQL by COPY: it writes the bytes as they
 * are, without reading the values. Anyone else reads the row through {@link RowImage}'s getters, which decode the
 * line into the same {@code Value}s a typed image holds.
 *
 * <p>The buffer holds the other lines of the same batch too, one after another, each ending with its newline: two
 * lines of one buffer where one's {@code offset} is the other's {@code end + 1} can go in one write. The buffer is
 * shared by every image of the batch: read it, never write it. Two lines are equal when they are the same bytes
 * of the same buffer.
 *
 * <pre>{@code
 * CopyLine line = row.after().copyLine();   // null for a row that came as values
 * if (line != null) {
 *   copyIn.writeToCopy(line.buffer(), line.offset(), line.lengthWithNewline());   // PgJDBC's CopyIn
 * }
 * }</pre>
 *
 * @param buffer the bytes holding the line (and the other lines of its batch)
 * @param offset index of the line's first byte in {@code buffer}
 * @param end    index of the newline ending the line: its text is {@code buffer[offset, end)}
 */
public record CopyLine(byte[] buffer, int offset, int end) {

  /** Checks that the line lies inside the buffer and ends with a newline at {@code end}. */
  public CopyLine {
    Objects.requireNonNull(buffer, "buffer");
    Objects.checkFromToIndex(offset, end, buffer.length);
    if (end == buffer.length || buffer[end] != '\n') {
      throw new IllegalArgumentException("a COPY line ends with a newline at its end " + end + " (buffer of "
          + buffer.length + " bytes)");
    }
  }

  /** Bytes of the line with its newline: what a COPY is given for it. */
  public int lengthWithNewline() {
    return end + 1 - offset;
  }

  /** The line's text as it is (escapes not undone), without its newline. */
  @Override
  public String toString() {
    return new String(buffer, offset, end - offset, StandardCharsets.UTF_8);
  }
}
