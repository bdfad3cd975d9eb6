package dev.sluice.broker.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Byte layouts of the event store's keys and fixed-size values, all big-endian so that byte order is
 * numeric order for non-negative values.
 *
 * <ul>
 *   <li>rows CF: {@code table_id (8) | commit_ts (8) | row_seq (8) | key_hash (4)} = 28 bytes. The key
 *       hash sits after row_seq, where it never changes the order ({@code (commit_ts, row_seq)} is
 *       unique within a table), so span filtering reads only the key, never the protobuf value.
 *   <li>time marks CF: {@code commit_ts (8)}, value {@code commit_time_micros (8)}.
 *   <li>meta CF: ASCII names ({@code position}, {@code resolved_ts}, {@code gc_ts},
 *       {@code format_version}) and {@code table_max_ts/ + table_id (8)}.
 * </ul>
 *
 * <pre>{@code
 * byte[] key = EventKey.row(16384, 0x16B3_7A40L, 0, KeyHash.of(pk));
 * long ts = EventKey.commitTs(key);
 * }</pre>
 */
final class EventKey {

  static final int ROW_KEY_BYTES = 28;
  /** Key length without the trailing hash: a seek target that sorts before every row it prefixes. */
  static final int ROW_SEEK_BYTES = 24;
  static final int TS_BYTES = 8;

  static final byte[] POSITION = ascii("position");
  static final byte[] RESOLVED_TS = ascii("resolved_ts");
  static final byte[] GC_TS = ascii("gc_ts");
  static final byte[] FLOOR_TS = ascii("floor_ts");
  static final byte[] FORMAT_VERSION = ascii("format_version");
  static final byte[] TABLE_MAX_PREFIX = ascii("table_max_ts/");

  private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

  private EventKey() {}

  static byte[] row(long tableId, long commitTs, long rowSeq, int keyHash) {
    byte[] key = new byte[ROW_KEY_BYTES];
    writeRow(key, 0, tableId, commitTs, rowSeq, keyHash);
    return key;
  }

  static void writeRow(byte[] dst, int offset, long tableId, long commitTs, long rowSeq, int keyHash) {
    LONG.set(dst, offset, tableId);
    LONG.set(dst, offset + 8, commitTs);
    LONG.set(dst, offset + 16, rowSeq);
    INT.set(dst, offset + 24, keyHash);
  }

  /** The first possible key of {@code (tableId, commitTs, rowSeq)}, for seeks and range bounds. */
  static byte[] rowSeek(long tableId, long commitTs, long rowSeq) {
    byte[] key = new byte[ROW_SEEK_BYTES];
    LONG.set(key, 0, tableId);
    LONG.set(key, 8, commitTs);
    LONG.set(key, 16, rowSeq);
    return key;
  }

  /** The first possible key of {@code (tableId, commitTs)}: every row of the table below it sorts first. */
  static byte[] rowTs(long tableId, long commitTs) {
    byte[] key = new byte[16];
    LONG.set(key, 0, tableId);
    LONG.set(key, 8, commitTs);
    return key;
  }

  /** The table's 8-byte prefix: sorts before every row of the table. */
  static byte[] table(long tableId) {
    return ts(tableId);
  }

  static long tableId(byte[] rowKey) {
    return (long) LONG.get(rowKey, 0);
  }

  static long commitTs(byte[] rowKey) {
    return (long) LONG.get(rowKey, 8);
  }

  static long rowSeq(byte[] rowKey) {
    return (long) LONG.get(rowKey, 16);
  }

  static int keyHash(byte[] rowKey) {
    return (int) INT.get(rowKey, 24);
  }

  static byte[] ts(long value) {
    byte[] b = new byte[TS_BYTES];
    LONG.set(b, 0, value);
    return b;
  }

  static long readLong(byte[] src, int offset) {
    return (long) LONG.get(src, offset);
  }

  static byte[] tableMax(long tableId) {
    byte[] key = new byte[TABLE_MAX_PREFIX.length + 8];
    System.arraycopy(TABLE_MAX_PREFIX, 0, key, 0, TABLE_MAX_PREFIX.length);
    LONG.set(key, TABLE_MAX_PREFIX.length, tableId);
    return key;
  }

  static boolean isTableMax(byte[] metaKey) {
    if (metaKey.length != TABLE_MAX_PREFIX.length + 8) {
      return false;
    }
    for (int i = 0; i < TABLE_MAX_PREFIX.length; i++) {
      if (metaKey[i] != TABLE_MAX_PREFIX[i]) {
        return false;
      }
    }
    return true;
  }

  static long tableOfTableMax(byte[] metaKey) {
    return (long) LONG.get(metaKey, TABLE_MAX_PREFIX.length);
  }

  static byte[] position(SourcePosition p) {
    byte[] b = new byte[16];
    LONG.set(b, 0, p.lastCommitTs());
    LONG.set(b, 8, p.restartPosition());
    return b;
  }

  static SourcePosition position(byte[] value) {
    return new SourcePosition((long) LONG.get(value, 0), (long) LONG.get(value, 8));
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
