package dev.sluice.broker.data;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import dev.sluice.api.v1.DmlBatch;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.broker.snapshot.SnapshotRow;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * A snapshot chunk's READ rows written straight into a DmlBatch's bytes: each row's values come encoded
 * from its reader ({@link SnapshotRow#afterFields()}), so a part is one array copy per row instead of a
 * RowChange message built, sized and serialized, and serialized again inside its DmlBatch. The bytes parse
 * as {@code DmlBatch{header fields, rows = [RowChange{op: READ, after, row_seq, key_hash}, ...]}}; a RowChange
 * is written in field order, as protobuf writes it (a default value left out).
 *
 * <pre>{@code
 * byte[] part = ReadRows.dmlBatch(DmlBatch.newBuilder().setCommitTs(highTs).build(), rows, 0, rows.size());
 * }</pre>
 */
final class ReadRows {

  private static final int OP_TAG = tag(RowChange.OP_FIELD_NUMBER, WireFormat.WIRETYPE_VARINT);
  private static final int SEQ_TAG = tag(RowChange.ROW_SEQ_FIELD_NUMBER, WireFormat.WIRETYPE_VARINT);
  private static final int HASH_TAG = tag(RowChange.KEY_HASH_FIELD_NUMBER, WireFormat.WIRETYPE_VARINT);
  private static final int ROWS_TAG = tag(DmlBatch.ROWS_FIELD_NUMBER,
      WireFormat.WIRETYPE_LENGTH_DELIMITED);
  private static final int READ = RowOp.ROW_OP_READ.getNumber();

  private ReadRows() {}

  /** A field's tag: its number and wire type (protobuf's own is not public). */
  private static int tag(int field, int wireType) {
    return field << 3 | wireType;
  }

  /** The encoded size of row {@code seq}'s READ RowChange. */
  static int size(SnapshotRow row, long seq) {
    int n = 1 + CodedOutputStream.computeUInt32SizeNoTag(READ) + row.afterFields().length;
    if (seq != 0) {
      n += 1 + CodedOutputStream.computeUInt64SizeNoTag(seq);
    }
    if (row.keyHash() != 0) {
      n += 1 + CodedOutputStream.computeUInt32SizeNoTag(row.keyHash());
    }
    return n;
  }

  /** {@code header} (a DmlBatch without rows) with {@code rows[from, to)} as READ rows numbered by position. */
  static byte[] dmlBatch(DmlBatch header, List<SnapshotRow> rows, int from, int to) {
    int size = header.getSerializedSize();
    for (int i = from; i < to; i++) {
      int n = size(rows.get(i), i);
      size += 1 + CodedOutputStream.computeUInt32SizeNoTag(n) + n;
    }
    byte[] out = new byte[size];
    CodedOutputStream o = CodedOutputStream.newInstance(out);
    try {
      header.writeTo(o);
      for (int i = from; i < to; i++) {
        SnapshotRow row = rows.get(i);
        o.writeUInt32NoTag(ROWS_TAG);
        o.writeUInt32NoTag(size(row, i));
        o.writeUInt32NoTag(OP_TAG);
        o.writeUInt32NoTag(READ);
        o.writeRawBytes(row.afterFields());
        if (i != 0) {
          o.writeUInt32NoTag(SEQ_TAG);
          o.writeUInt64NoTag(i);
        }
        if (row.keyHash() != 0) {
          o.writeUInt32NoTag(HASH_TAG);
          o.writeUInt32NoTag(row.keyHash());
        }
      }
      o.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new UncheckedIOException("encoding READ rows into an array of their size", e);
    }
    return out;
  }
}
