package dev.sluice.broker.data;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import dev.sluice.api.v1.ColumnCodec;
import dev.sluice.api.v1.CopyRows;
import dev.sluice.api.v1.DmlBatch;
import dev.sluice.broker.snapshot.SnapshotRow;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * A snapshot chunk's COPY text rows ({@link SnapshotRow#isLine()}) written straight into a DmlBatch's bytes as its
 * {@code copy_rows}: the lines as the upstream's COPY wrote them (each with its newline), their key hashes and
 * the columns' codecs, and no Value built or encoded per row (feature copy-text). The bytes parse as
 * {@code DmlBatch{header fields, copy_rows = CopyRows{lines, row_count, first_row_seq, key_hashes, columns}}},
 * fields in number order as protobuf writes them (a default value left out).
 *
 * <pre>{@code
 * byte[] part = CopyLines.dmlBatch(DmlBatch.newBuilder().setCommitTs(highTs).build(), rows, 0, rows.size());
 * }</pre>
 */
final class CopyLines {

  private static final int COPY_ROWS_TAG = tag(DmlBatch.COPY_ROWS_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
  private static final int LINES_TAG = tag(CopyRows.LINES_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
  private static final int COUNT_TAG = tag(CopyRows.ROW_COUNT_FIELD_NUMBER, WireFormat.WIRETYPE_VARINT);
  private static final int FIRST_SEQ_TAG = tag(CopyRows.FIRST_ROW_SEQ_FIELD_NUMBER, WireFormat.WIRETYPE_VARINT);
  private static final int HASHES_TAG = tag(CopyRows.KEY_HASHES_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
  private static final int COLUMNS_TAG = tag(CopyRows.COLUMNS_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);

  private CopyLines() {}

  /** A field's tag: its number and wire type (protobuf's own is not public). */
  private static int tag(int field, int wireType) {
    return field << 3 | wireType;
  }

  /** What a line row adds to its part: the line with its newline, and its key hash. */
  static int size(SnapshotRow row) {
    return row.lineBytes().length + CodedOutputStream.computeUInt32SizeNoTag(row.keyHash());
  }

  /**
   * {@code header} (a DmlBatch without rows) with {@code rows[from, to)}, all COPY text rows of one table info, as
   * its copy_rows, row seqs from {@code from}.
   */
  static byte[] dmlBatch(DmlBatch header, List<SnapshotRow> rows, int from, int to) {
    Part part = part(header, rows, from, to);
    byte[] out = new byte[part.size()];
    CodedOutputStream o = CodedOutputStream.newInstance(out);
    try {
      part.writeTo(o);
      o.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new UncheckedIOException("encoding COPY text rows into an array of their size", e);
    }
    return out;
  }

  /**
   * The same DmlBatch sized but not written yet: an event batch writes it straight into its own bytes
   * ({@link PendingEvent#lines}), so the lines are copied once on their way out.
   */
  static Part part(DmlBatch header, List<SnapshotRow> rows, int from, int to) {
    if (to <= from) {
      throw new IllegalArgumentException("a CopyRows part needs a row: [" + from + ", " + to + ")");
    }
    int lines = 0;
    int hashes = 0;
    for (int i = from; i < to; i++) {
      SnapshotRow row = rows.get(i);
      lines += row.lineBytes().length;
      hashes += CodedOutputStream.computeUInt32SizeNoTag(row.keyHash());
    }
    List<ColumnCodec> columns = rows.get(from).codecs();
    int copyRows = 1 + CodedOutputStream.computeUInt32SizeNoTag(lines) + lines
        + 1 + CodedOutputStream.computeUInt32SizeNoTag(to - from)
        + (from == 0 ? 0 : 1 + CodedOutputStream.computeUInt64SizeNoTag(from))
        + 1 + CodedOutputStream.computeUInt32SizeNoTag(hashes) + hashes;
    for (ColumnCodec c : columns) {
      copyRows += 1 + CodedOutputStream.computeMessageSizeNoTag(c);
    }
    int size = header.getSerializedSize() + 1 + CodedOutputStream.computeUInt32SizeNoTag(copyRows) + copyRows;
    return new Part(header, rows, from, to, columns, lines, hashes, copyRows, size);
  }

  /** One DmlBatch of COPY text rows, its sizes computed: {@link #writeTo} writes {@link #size()} bytes. */
  record Part(DmlBatch header, List<SnapshotRow> rows, int from, int to, List<ColumnCodec> columns, int lines,
      int hashes, int copyRows, int size) {

    void writeTo(CodedOutputStream o) throws IOException {
      header.writeTo(o);
      o.writeUInt32NoTag(COPY_ROWS_TAG);
      o.writeUInt32NoTag(copyRows);
      o.writeUInt32NoTag(LINES_TAG);
      o.writeUInt32NoTag(lines);
      for (int i = from; i < to; i++) {
        o.writeRawBytes(rows.get(i).lineBytes());   // with its newline
      }
      o.writeUInt32NoTag(COUNT_TAG);
      o.writeUInt32NoTag(to - from);
      if (from != 0) {
        o.writeUInt32NoTag(FIRST_SEQ_TAG);
        o.writeUInt64NoTag(from);
      }
      o.writeUInt32NoTag(HASHES_TAG);
      o.writeUInt32NoTag(hashes);
      for (int i = from; i < to; i++) {
        o.writeUInt32NoTag(rows.get(i).keyHash());
      }
      for (ColumnCodec c : columns) {
        o.writeUInt32NoTag(COLUMNS_TAG);
        o.writeUInt32NoTag(c.getSerializedSize());
        c.writeTo(o);
      }
    }
  }
}
