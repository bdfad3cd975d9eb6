package dev.sluice.broker.snapshot;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import dev.sluice.api.pgtext.CopyText;
import dev.sluice.api.v1.ColumnCodec;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.Value;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One row a snapshot chunk read: its values in the table info's column order, its identity for the
 * watermark merge, and the key hash that routes it to a span (the same as capture computes). Values
 * are whole (read from the table), unless the merge replaced some with {@code unavailable}.
 *
 * <p>A row read by a chunk reader ({@link #encoded}) holds its values already encoded as they go on the wire,
 * the {@code after} fields of a {@code RowChange}: the reader thread pays for the encoding, the data plane
 * copies the bytes into the READ row, and a chunk in memory costs its encoded size rather than a protobuf
 * object per value. {@link #values()} decodes them when asked (the merge does, for a row an update touched).
 *
 * <p>A row read by COPY ({@link #line}) holds the upstream's COPY text line as it came, and goes out in a
 * {@code CopyRows} as it is (feature copy-text); {@link #values()} parses the line with its columns' codecs,
 * the same Values a client makes of it.
 *
 * <pre>{@code
 * SnapshotRow row = SnapshotRow.encoded(RowIdentity.of(key), RowIdentity.of(key).keyHash(), values);
 * byte[] wire = row.afterFields();   // RowChange field 3, once per value
 * }</pre>
 */
public final class SnapshotRow {

  /** Per row, what a READ row costs beyond its values (tag, length, op, seq, key hash). */
  static final int ROW_OVERHEAD_BYTES = 24;
  private static final int AFTER_TAG = tag(RowChange.AFTER_FIELD_NUMBER,
      WireFormat.WIRETYPE_LENGTH_DELIMITED);

  /** A field's tag: its number and wire type (protobuf's own is not public). */
  private static int tag(int field, int wireType) {
    return field << 3 | wireType;
  }

  private final RowIdentity identity;
  private final int keyHash;
  private List<Value> values;
  private byte[] afterFields;
  /** The COPY text line with its newline, for a row read by COPY; null otherwise. */
  private final byte[] line;
  private final List<ColumnCodec> codecs;
  private final int bytes;

  /**
   * @param identity the row's identity (key columns, or every column for a keyless table)
   * @param keyHash  murmur3 of the encoded key columns, 0 for a keyless table (as capture does)
   * @param values   one value per column of the table info the chunk was read with
   * @param bytes    what the row costs in memory and on the wire, roughly (its encoded size)
   */
  public SnapshotRow(RowIdentity identity, int keyHash, List<Value> values, int bytes) {
    this.identity = identity;
    this.keyHash = keyHash;
    this.values = List.copyOf(values);
    this.bytes = bytes;
    this.line = null;
    this.codecs = null;
  }

  private SnapshotRow(RowIdentity identity, int keyHash, byte[] afterFields) {
    this.identity = identity;
    this.keyHash = keyHash;
    this.afterFields = afterFields;
    this.bytes = afterFields.length + ROW_OVERHEAD_BYTES;
    this.line = null;
    this.codecs = null;
  }

  private SnapshotRow(RowIdentity identity, int keyHash, byte[] line, List<ColumnCodec> codecs) {
    this.identity = identity;
    this.keyHash = keyHash;
    this.line = line;
    this.codecs = codecs;
    this.bytes = line.length + ROW_OVERHEAD_BYTES;
  }

  /**
   * A row read by COPY: {@code line} is its text line as COPY wrote it, ending with its newline (kept, not copied,
   * so it goes out as it came), {@code codecs} (shared by the chunk's rows, not copied) read its columns.
   */
  public static SnapshotRow line(RowIdentity identity, int keyHash, byte[] line, List<ColumnCodec> codecs) {
    if (line.length == 0 || line[line.length - 1] != '\n') {
      throw new IllegalArgumentException("a COPY text line ends with its newline");
    }
    return new SnapshotRow(identity, keyHash, line, codecs);
  }

  /** Whether the row is a COPY text line ({@link #line}), which goes out as it came. */
  public boolean isLine() {
    return line != null;
  }

  /** The COPY text line with its newline; do not modify. Only for {@link #isLine()} rows. */
  public byte[] lineBytes() {
    if (line == null) {
      throw new IllegalStateException("not a COPY text row");
    }
    return line;
  }

  /** How the line's columns read, in column order. Only for {@link #isLine()} rows. */
  public List<ColumnCodec> codecs() {
    if (codecs == null) {
      throw new IllegalStateException("not a COPY text row");
    }
    return codecs;
  }

  /** A row whose values are kept encoded only; its {@link #bytes()} is their encoded size plus the row's overhead. */
  public static SnapshotRow encoded(RowIdentity identity, int keyHash, List<Value> values) {
    return new SnapshotRow(identity, keyHash, encode(values));
  }

  public RowIdentity identity() {
    return identity;
  }

  public int keyHash() {
    return keyHash;
  }

  /** One value per column; decoded from the encoded form at each call for an {@link #encoded} row. */
  public List<Value> values() {
    List<Value> v = values;
    if (v != null) {
      return v;
    }
    return line != null ? List.copyOf(CopyText.values(line, 0, line.length - 1, codecs)) : decode(afterFields);
  }

  public int bytes() {
    return bytes;
  }

  /** The values as a {@code RowChange}'s {@code after} fields (tag, length, Value), in column order. */
  public byte[] afterFields() {
    byte[] a = afterFields;
    if (a == null) {
      a = afterFields = encode(values());
    }
    return a;
  }

  /** The same row with other values (the merge keeps only columns the log did not carry). */
  SnapshotRow withValues(List<Value> newValues) {
    return new SnapshotRow(identity, keyHash, newValues, bytes);
  }

  private static byte[] encode(List<Value> values) {
    int size = 0;
    for (Value v : values) {
      int n = v.getSerializedSize();
      size += 1 + CodedOutputStream.computeUInt32SizeNoTag(n) + n;
    }
    byte[] out = new byte[size];
    CodedOutputStream o = CodedOutputStream.newInstance(out);
    try {
      for (Value v : values) {
        o.writeMessage(RowChange.AFTER_FIELD_NUMBER, v);
      }
      o.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new UncheckedIOException("encoding a snapshot row into an array of its size", e);
    }
    return out;
  }

  private static List<Value> decode(byte[] fields) {
    List<Value> out = new ArrayList<>();
    CodedInputStream in = CodedInputStream.newInstance(fields);
    try {
      while (!in.isAtEnd()) {
        int tag = in.readTag();
        if (tag != AFTER_TAG) {
          throw new IllegalStateException("a snapshot row's encoded values hold tag " + tag);
        }
        out.add(in.readMessage(Value.parser(), com.google.protobuf.ExtensionRegistryLite.getEmptyRegistry()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("decoding a snapshot row's values", e);
    }
    return List.copyOf(out);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SnapshotRow r && keyHash == r.keyHash && bytes == r.bytes && identity.equals(r.identity)
        && values().equals(r.values());
  }

  @Override
  public int hashCode() {
    return identity.hashCode();
  }

  @Override
  public String toString() {
    return "SnapshotRow[identity=" + identity + ", keyHash=" + keyHash + ", values=" + values() + ", bytes=" + bytes
        + "]";
  }
}
