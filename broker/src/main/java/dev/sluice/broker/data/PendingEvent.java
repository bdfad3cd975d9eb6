package dev.sluice.broker.data;

import com.google.protobuf.CodedOutputStream;
import java.io.IOException;
import java.util.List;

/**
 * One data event of a scan before it is written into an event batch: the {@code DataEvent} payload,
 * either already encoded (DDL, sync point) or a DML batch kept as its stored row bytes, so the row
 * bytes are copied exactly once, into the outgoing message.
 */
abstract sealed class PendingEvent permits PendingEvent.Encoded, PendingEvent.Dml, PendingEvent.Lines {

  static final int DML = 2;
  static final int DDL = 3;
  static final int SYNC_POINT = 4;
  static final int SNAPSHOT_DONE = 5;

  private final int field;
  private final long commitTs;

  PendingEvent(int field, long commitTs) {
    this.field = field;
    this.commitTs = commitTs;
  }

  /** The DataEvent field of the payload: {@link #DML}, {@link #DDL}, {@link #SYNC_POINT} or {@link #SNAPSHOT_DONE}. */
  final int field() {
    return field;
  }

  final long commitTs() {
    return commitTs;
  }

  /** Serialized size of the payload message. */
  abstract int payloadSize();

  /** Writes the payload message (without tag or length). */
  abstract void writePayload(CodedOutputStream out) throws IOException;

  /** The payload as its own bytes (tests, diagnostics). */
  final byte[] payload() {
    byte[] b = new byte[payloadSize()];
    CodedOutputStream c = CodedOutputStream.newInstance(b);
    try {
      writePayload(c);
      c.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return b;
  }

  static PendingEvent encoded(int field, byte[] payload, long commitTs) {
    return new Encoded(field, payload, commitTs);
  }

  /** A snapshot chunk's COPY text rows as a DML payload, their lines copied once: into the event batch. */
  static PendingEvent lines(CopyLines.Part part, long commitTs) {
    return new Lines(part, commitTs);
  }

  /** A DmlBatch of COPY text rows ({@link CopyLines}), written into the event batch when it is encoded. */
  static final class Lines extends PendingEvent {
    private final CopyLines.Part part;

    Lines(CopyLines.Part part, long commitTs) {
      super(DML, commitTs);
      this.part = part;
    }

    @Override
    int payloadSize() {
      return part.size();
    }

    @Override
    void writePayload(CodedOutputStream out) throws IOException {
      part.writeTo(out);
    }
  }

  /** A payload already in wire form. */
  static final class Encoded extends PendingEvent {
    private final byte[] bytes;

    Encoded(int field, byte[] bytes, long commitTs) {
      super(field, commitTs);
      this.bytes = bytes;
    }

    @Override
    int payloadSize() {
      return bytes.length;
    }

    @Override
    void writePayload(CodedOutputStream out) throws IOException {
      out.writeRawBytes(bytes);
    }
  }

  /** A {@code DmlBatch} of stored {@code RowChange} bytes; fields written in number order. */
  static final class Dml extends PendingEvent {
    private final int fragmentIndex;
    private final boolean lastFragment;
    private final List<byte[]> rows;
    private final long tableInfoVersion;
    private final long tableInfoVersionRowSeq;
    private final long commitTimeMicros;
    private final int size;

    Dml(long commitTs, int fragmentIndex, boolean lastFragment, List<byte[]> rows, long tableInfoVersion,
        long commitTimeMicros) {
      this(commitTs, fragmentIndex, lastFragment, rows, tableInfoVersion, 0, commitTimeMicros);
    }

    Dml(long commitTs, int fragmentIndex, boolean lastFragment, List<byte[]> rows, long tableInfoVersion,
        long tableInfoVersionRowSeq, long commitTimeMicros) {
      super(DML, commitTs);
      this.fragmentIndex = fragmentIndex;
      this.lastFragment = lastFragment;
      this.rows = rows;
      this.tableInfoVersion = tableInfoVersion;
      this.tableInfoVersionRowSeq = tableInfoVersionRowSeq;
      this.commitTimeMicros = commitTimeMicros;
      int s = 0;
      if (commitTs != 0) {
        s += CodedOutputStream.computeUInt64Size(1, commitTs);
      }
      if (fragmentIndex != 0) {
        s += CodedOutputStream.computeUInt32Size(2, fragmentIndex);
      }
      if (lastFragment) {
        s += CodedOutputStream.computeBoolSize(3, true);
      }
      for (byte[] r : rows) {
        s += CodedOutputStream.computeByteArraySize(4, r);
      }
      if (tableInfoVersion != 0) {
        s += CodedOutputStream.computeUInt64Size(5, tableInfoVersion);
      }
      if (commitTimeMicros != 0) {
        s += CodedOutputStream.computeInt64Size(6, commitTimeMicros);
      }
      if (tableInfoVersionRowSeq != 0) {
        s += CodedOutputStream.computeUInt64Size(7, tableInfoVersionRowSeq);
      }
      this.size = s;
    }

    int rowCount() {
      return rows.size();
    }

    @Override
    int payloadSize() {
      return size;
    }

    @Override
    void writePayload(CodedOutputStream out) throws IOException {
      if (commitTs() != 0) {
        out.writeUInt64(1, commitTs());
      }
      if (fragmentIndex != 0) {
        out.writeUInt32(2, fragmentIndex);
      }
      if (lastFragment) {
        out.writeBool(3, true);
      }
      for (byte[] r : rows) {
        out.writeByteArray(4, r);
      }
      if (tableInfoVersion != 0) {
        out.writeUInt64(5, tableInfoVersion);
      }
      if (commitTimeMicros != 0) {
        out.writeInt64(6, commitTimeMicros);
      }
      if (tableInfoVersionRowSeq != 0) {
        out.writeUInt64(7, tableInfoVersionRowSeq);
      }
    }
  }
}
