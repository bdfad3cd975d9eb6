package dev.sluice.schema;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Byte layout of the schema store's RocksDB keys. Numbers are big-endian so that RocksDB's bytewise
 * order is numeric order (ids and ts are never negative).
 *
 * <pre>
 * schema_versions  table_id(8) version(8)      -> sluice.v1.TableInfo
 * schema_ddl       commit_ts(8) table_id(8)    -> sluice.v1.DdlEvent   (format 1: commit_ts(8) alone)
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

  static byte[] version(long tableId, long version) {
    return ByteBuffer.allocate(16).putLong(tableId).putLong(version).array();
  }

  static long versionTableId(byte[] key) {
    return ByteBuffer.wrap(key).getLong(0);
  }

  static long versionTs(byte[] key) {
    return ByteBuffer.wrap(key).getLong(8);
  }

  /** The key of one table's DDL: one transaction may change several tables at the same commit ts. */
  static byte[] ddl(long commitTs, long tableId) {
    return ByteBuffer.allocate(16).putLong(commitTs).putLong(tableId).array();
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
