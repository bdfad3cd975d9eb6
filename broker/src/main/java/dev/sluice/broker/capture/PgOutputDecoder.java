package dev.sluice.broker.capture;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes pgoutput's binary messages (logical replication protocol version 1, as documented in the
 * PostgreSQL manual, "Logical Replication Message Formats") and hands them to a
 * {@link PgOutputHandler}. Row values are not copied: the handler gets {@link TupleData} views into
 * the message buffer. Not thread-safe; one decoder per stream.
 *
 * <pre>{@code
 * PgOutputDecoder decoder = new PgOutputDecoder();
 * ByteBuffer msg = stream.readPending();
 * if (msg != null) decoder.decode(msg, handler);
 * }</pre>
 */
final class PgOutputDecoder {

  /** Microseconds between 1970-01-01 and PostgreSQL's epoch 2000-01-01. */
  static final long PG_EPOCH_OFFSET_MICROS = 946_684_800_000_000L;

  private final TupleData oldTuple = new TupleData();
  private final TupleData newTuple = new TupleData();

  private byte[] buf;
  private int pos;
  private int end;

  /**
   * Decodes one message.
   *
   * @throws PgOutputFormatException when the message is malformed or of an unknown type
   */
  void decode(ByteBuffer message, PgOutputHandler handler) {
    if (!message.hasArray()) {
      byte[] copy = new byte[message.remaining()];
      message.duplicate().get(copy);
      message = ByteBuffer.wrap(copy);
    }
    buf = message.array();
    pos = message.arrayOffset() + message.position();
    end = message.arrayOffset() + message.limit();
    try {
      byte type = readByte();
      switch (type) {
        case 'B' -> handler.onBegin(readLong(), readLong() + PG_EPOCH_OFFSET_MICROS, readInt());
        case 'C' -> {
          readByte(); // flags, unused
          handler.onCommit(readLong(), readLong(), readLong() + PG_EPOCH_OFFSET_MICROS);
        }
        case 'R' -> handler.onRelation(readRelation());
        case 'Y' -> handler.onType(readInt(), readString(), readString());
        case 'I' -> decodeInsert(handler);
        case 'U' -> decodeUpdate(handler);
        case 'D' -> decodeDelete(handler);
        case 'T' -> decodeTruncate(handler);
        case 'M' -> decodeMessage(handler);
        case 'O' -> handler.onOrigin(readLong(), readString());
        default -> throw new PgOutputFormatException("unknown pgoutput message type '" + (char) type + "'");
      }
    } catch (ArrayIndexOutOfBoundsException e) {
      throw new PgOutputFormatException("truncated pgoutput message", e);
    }
  }

  private PgRelation readRelation() {
    long oid = readUnsignedInt();
    String namespace = readString();
    String name = readString();
    char replicaIdentity = (char) readByte();
    int n = readShort();
    List<PgRelation.Column> columns = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      boolean key = (readByte() & 1) != 0;
      String column = readString();
      int typeOid = readInt();
      int typeModifier = readInt();
      columns.add(new PgRelation.Column(column, typeOid, typeModifier, key));
    }
    return new PgRelation(oid, namespace, name, replicaIdentity, columns);
  }

  private void decodeInsert(PgOutputHandler handler) {
    long oid = readUnsignedInt();
    expect('N');
    readTuple(newTuple);
    handler.onInsert(oid, newTuple);
  }

  private void decodeUpdate(PgOutputHandler handler) {
    long oid = readUnsignedInt();
    byte marker = readByte();
    byte oldKind = 0;
    TupleData old = null;
    if (marker == 'K' || marker == 'O') {
      oldKind = marker;
      readTuple(oldTuple);
      old = oldTuple;
      marker = readByte();
    }
    if (marker != 'N') {
      throw new PgOutputFormatException("update: expected 'N' before the new tuple, got '" + (char) marker + "'");
    }
    readTuple(newTuple);
    handler.onUpdate(oid, oldKind, old, newTuple);
  }

  private void decodeDelete(PgOutputHandler handler) {
    long oid = readUnsignedInt();
    byte oldKind = readByte();
    if (oldKind != 'K' && oldKind != 'O') {
      throw new PgOutputFormatException("delete: expected 'K' or 'O', got '" + (char) oldKind + "'");
    }
    readTuple(oldTuple);
    handler.onDelete(oid, oldKind, oldTuple);
  }

  private void decodeTruncate(PgOutputHandler handler) {
    int n = readInt();
    int options = readByte();
    long[] oids = new long[n];
    for (int i = 0; i < n; i++) {
      oids[i] = readUnsignedInt();
    }
    handler.onTruncate(oids, (options & 1) != 0, (options & 2) != 0);
  }

  private void decodeMessage(PgOutputHandler handler) {
    boolean transactional = (readByte() & 1) != 0;
    long lsn = readLong();
    String prefix = readString();
    int length = readInt();
    if (length < 0 || pos + length > end) {
      throw new PgOutputFormatException("message content length " + length + " exceeds the message");
    }
    byte[] content = new byte[length];
    System.arraycopy(buf, pos, content, 0, length);
    pos += length;
    handler.onMessage(transactional, lsn, prefix, content);
  }

  private void readTuple(TupleData tuple) {
    int n = readShort();
    tuple.reset(buf, n);
    for (int i = 0; i < n; i++) {
      byte kind = readByte();
      switch (kind) {
        case TupleData.NULL, TupleData.UNCHANGED_TOAST -> tuple.set(i, kind, pos, 0);
        case TupleData.TEXT, TupleData.BINARY -> {
          int length = readInt();
          if (length < 0 || pos + length > end) {
            throw new PgOutputFormatException("column " + i + " length " + length + " exceeds the message");
          }
          tuple.set(i, kind, pos, length);
          pos += length;
        }
        default -> throw new PgOutputFormatException("unknown tuple column kind '" + (char) kind + "'");
      }
    }
  }

  private void expect(char marker) {
    byte b = readByte();
    if (b != marker) {
      throw new PgOutputFormatException("expected '" + marker + "', got '" + (char) b + "'");
    }
  }

  private byte readByte() {
    if (pos >= end) {
      throw new PgOutputFormatException("truncated pgoutput message");
    }
    return buf[pos++];
  }

  private int readShort() {
    if (pos + 2 > end) {
      throw new PgOutputFormatException("truncated pgoutput message");
    }
    int v = (buf[pos] & 0xff) << 8 | (buf[pos + 1] & 0xff);
    pos += 2;
    return v;
  }

  private int readInt() {
    if (pos + 4 > end) {
      throw new PgOutputFormatException("truncated pgoutput message");
    }
    int v = (buf[pos] & 0xff) << 24 | (buf[pos + 1] & 0xff) << 16 | (buf[pos + 2] & 0xff) << 8 | (buf[pos + 3] & 0xff);
    pos += 4;
    return v;
  }

  private long readUnsignedInt() {
    return readInt() & 0xFFFF_FFFFL;
  }

  private long readLong() {
    return ((long) readInt() << 32) | readUnsignedInt();
  }

  private String readString() {
    int start = pos;
    while (pos < end && buf[pos] != 0) {
      pos++;
    }
    if (pos >= end) {
      throw new PgOutputFormatException("unterminated string in pgoutput message");
    }
    String s = new String(buf, start, pos - start, StandardCharsets.UTF_8);
    pos++;
    return s;
  }
}
