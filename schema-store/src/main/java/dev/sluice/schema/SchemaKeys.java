package dev.sluice.schema;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Byte layout of the schema store's RocksDB keys. Numbers are big-endian so that RocksDB's bytewise
 * order is numeric order (ids and ts are never negative).
 *
 * <pre>
 * schema_versions  table_id(8) version(8) row_seq(8)    -> sluice.v1.TableInfo   (format 2: no row_seq)
 * schema_ddl       commit_ts(8) row_seq(8) table_id(8)  -> sluice.v1.DdlEvent    (format 2: no row_seq,
 *                                                                                  format 1: commit_ts alone)
 * schema_meta      "format_version"            -> int(4)
 *                  "last_ddl_ts" | "resolved_ts" | "gc_ts" -> long(8)
 *                  "drop/" table_id(8)         -> sluice.v1.TableInfo without columns, version = drop ts
 * </pre>
 */
final class SchemaKeys {

  static final byte[] FORMAT_VERSION = ascii("format_version");
  static final byte[] LAST_DDL_TS = ascii("last_ddl_ts");
  static final byte[] RESOLVED_TS = ascii("resolved_ts");
  static final byte[] GC_TS = ascii("gc_ts");
  static final byte[] DROP_PREFIX = ascii("drop/");

  private SchemaKeys() {
  }

  static byte[] version(long tableId, long version, long rowSeq) {
    return ByteBuffer.allocate(24).putLong(tableId).putLong(version).putLong(rowSeq).array();
  }

  /** Length of a version key; format 2's lacked the row seq (16 bytes). */
  static final int VERSION_KEY_BYTES = 24;

  static long versionTableId(byte[] key) {
    return ByteBuffer.wrap(key).getLong(0);
  }

  static long versionTs(byte[] key) {
    return ByteBuffer.wrap(key).getLong(8);
  }

  static long versionRowSeq(byte[] key) {
    return ByteBuffer.wrap(key).getLong(16);
  }

  /**
   * The key of one table's DDL: one transaction may change several tables, and one table several times, at
   * one commit ts; they sort in the order the upstream ran them (row seq), then by table.
   */
  static byte[] ddl(long commitTs, long rowSeq, long tableId) {
    return ByteBuffer.allocate(24).putLong(commitTs).putLong(rowSeq).putLong(tableId).array();
  }

  /** Length of a DDL key; format 2's lacked the row seq (16 bytes), format 1's the table id too (8). */
  static final int DDL_KEY_BYTES = 24;

  static long ddlRowSeq(byte[] key) {
    return ByteBuffer.wrap(key).getLong(8);
  }

  /** A bound for range operations: sorts before every DDL key at {@code commitTs}. */
  static byte[] ddlBound(long commitTs) {
    return longBytes(commitTs);
  }

  static long ddlTs(byte[] key) {
    return ByteBuffer.wrap(key).getLong();
  }

  static byte[] drop(long tableId) {
    return ByteBuffer.allocate(DROP_PREFIX.length + 8).put(DROP_PREFIX).putLong(tableId).array();
  }

  static boolean isDrop(byte[] key) {
    return key.length == DROP_PREFIX.length + 8
        && Arrays.equals(key, 0, DROP_PREFIX.length, DROP_PREFIX, 0, DROP_PREFIX.length);
  }

  static long dropTableId(byte[] key) {
    return ByteBuffer.wrap(key).getLong(DROP_PREFIX.length);
  }

  static byte[] longBytes(long value) {
    return ByteBuffer.allocate(8).putLong(value).array();
  }

  static long longValue(byte[] value) {
    return ByteBuffer.wrap(value).getLong();
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
