package dev.sluice.broker.store;

import java.util.Arrays;

/**
 * A RocksDB write batch assembled on the Java heap in RocksDB's own serialized layout (the WAL
 * record format: a 12-byte header of sequence and count, then one record per put), handed to RocksDB
 * with a single JNI call through {@code new WriteBatch(bytes)}. Building it natively would cost one
 * JNI call per row and a native object that leaks when a batch is dropped unwritten.
 *
 * <p>Layout of a put into column family {@code cf != 0}: {@code 0x05 | varint32 cf | varint32
 * keyLength | key | varint32 valueLength | value}; into the default family: {@code 0x01 | key | value}
 * with the same length prefixes. {@code WriteBatchImageTest} checks the bytes against RocksDB's own
 * {@code WriteBatch.data()}.
 *
 * <pre>{@code
 * WriteBatchImage image = new WriteBatchImage(4096);
 * image.put(rowsCfId, key, value);
 * try (WriteBatch wb = new WriteBatch(image.toByteArray())) { db.write(writeOptions, wb); }
 * }</pre>
 */
final class WriteBatchImage {

  private static final int HEADER_BYTES = 12;
  private static final byte TYPE_VALUE = 0x1;
  private static final byte TYPE_COLUMN_FAMILY_VALUE = 0x5;
  private static final int MAX_BYTES = Integer.MAX_VALUE - 16;

  private byte[] buf;
  private int size = HEADER_BYTES;
  private int count;

  WriteBatchImage(int initialCapacityBytes) {
    buf = new byte[Math.max(64, initialCapacityBytes)];
  }

  /** Appends a put of a 28-byte row key, encoded in place (no key array per row). */
  void putRow(int cfId, long tableId, long commitTs, long rowSeq, int keyHash, byte[] value) {
    ensure(1 + 5 + 1 + EventKey.ROW_KEY_BYTES + 5 + value.length);
    writeTag(cfId);
    buf[size++] = EventKey.ROW_KEY_BYTES;
    EventKey.writeRow(buf, size, tableId, commitTs, rowSeq, keyHash);
    size += EventKey.ROW_KEY_BYTES;
    writeVarint(value.length);
    System.arraycopy(value, 0, buf, size, value.length);
    size += value.length;
    count++;
  }

  void put(int cfId, byte[] key, byte[] value) {
    ensure(1 + 5 + 5 + key.length + 5 + value.length);
    writeTag(cfId);
    writeVarint(key.length);
    System.arraycopy(key, 0, buf, size, key.length);
    size += key.length;
    writeVarint(value.length);
    System.arraycopy(value, 0, buf, size, value.length);
    size += value.length;
    count++;
  }

  /** Records added so far. */
  int count() {
    return count;
  }

  /** Serialized bytes so far, header included. */
  int sizeBytes() {
    return size;
  }

  /** The current end, to {@link #rollback} records appended after it. */
  long mark() {
    return ((long) count << 32) | size;
  }

  void rollback(long mark) {
    count = (int) (mark >>> 32);
    size = (int) mark;
  }

  /** The serialized batch: a copy, because RocksDB's constructor takes the whole array as the batch. */
  byte[] toByteArray() {
    byte[] out = Arrays.copyOf(buf, size);
    // sequence (bytes 0..7) stays 0: RocksDB assigns it on write; count is fixed32 little-endian
    out[8] = (byte) count;
    out[9] = (byte) (count >>> 8);
    out[10] = (byte) (count >>> 16);
    out[11] = (byte) (count >>> 24);
    return out;
  }

  private void writeTag(int cfId) {
    if (cfId == 0) {
      buf[size++] = TYPE_VALUE;
    } else {
      buf[size++] = TYPE_COLUMN_FAMILY_VALUE;
      writeVarint(cfId);
    }
  }

  private void writeVarint(int value) {
    int v = value;
    while ((v & ~0x7F) != 0) {
      buf[size++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[size++] = (byte) v;
  }

  private void ensure(int extra) {
    long needed = (long) size + extra;
    if (needed <= buf.length) {
      return;
    }
    if (needed > MAX_BYTES) {
      throw new IllegalStateException("store batch would exceed " + MAX_BYTES + " bytes (" + count
          + " records so far): write large transactions in fragments");
    }
    buf = Arrays.copyOf(buf, (int) Math.min(MAX_BYTES, Math.max(needed, (long) buf.length * 2)));
  }
}
