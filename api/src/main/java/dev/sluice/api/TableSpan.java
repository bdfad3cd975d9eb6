package dev.sluice.api;

import java.util.ArrayList;
import java.util.List;

/**
 * The rows of one table whose 32-bit key hash lies in {@code [hashLo, hashHi)}.
 *
 * <p>A whole table is {@code [0, 2^32)}; a hot table is served as several spans made by
 * {@link #split(int)}. Hashes are unsigned 32-bit values carried in a {@code long}.
 *
 * <pre>{@code
 * TableSpan orders = TableSpan.wholeTable(16384);
 * List<TableSpan> quarters = orders.split(4);
 * boolean mine = quarters.get(0).contains(KeyHash.of(keyBytes));
 * }</pre>
 *
 * @param tableId the upstream table id (PostgreSQL relation oid), positive
 * @param hashLo  inclusive lower bound of the key hash, in {@code [0, 2^32)}
 * @param hashHi  exclusive upper bound of the key hash, in {@code (hashLo, 2^32]}
 */
public record TableSpan(long tableId, long hashLo, long hashHi) {

  /** One past the largest 32-bit hash: the exclusive end of a whole-table span. */
  public static final long HASH_END = 1L << 32;

  public TableSpan {
    if (tableId <= 0) {
      throw new IllegalArgumentException("table id must be positive, got " + tableId);
    }
    if (hashLo < 0 || hashLo >= HASH_END) {
      throw new IllegalArgumentException("hash_lo must be in [0, 2^32), got " + hashLo);
    }
    if (hashHi <= hashLo || hashHi > HASH_END) {
      throw new IllegalArgumentException(
          "hash_hi must be in (hash_lo, 2^32] = (" + hashLo + ", " + HASH_END + "], got " + hashHi);
    }
  }

  /** The span covering every row of {@code tableId}. */
  public static TableSpan wholeTable(long tableId) {
    return new TableSpan(tableId, 0, HASH_END);
  }

  /** Whether this span covers the whole table. */
  public boolean isWholeTable() {
    return hashLo == 0 && hashHi == HASH_END;
  }

  /** Whether a row with this 32-bit key hash (read as unsigned) belongs to the span. */
  public boolean contains(int keyHash) {
    long h = Integer.toUnsignedLong(keyHash);
    return h >= hashLo && h < hashHi;
  }

  /** Whether the two spans share at least one (table, hash) point. */
  public boolean overlaps(TableSpan other) {
    return tableId == other.tableId && hashLo < other.hashHi && other.hashLo < hashHi;
  }

  /**
   * Splits the span into {@code n} contiguous spans of near-equal width that together cover exactly
   * this span, in hash order.
   *
   * @throws IllegalArgumentException when {@code n < 1} or the span is narrower than {@code n}
   */
  public List<TableSpan> split(int n) {
    long width = hashHi - hashLo;
    if (n < 1 || n > width) {
      throw new IllegalArgumentException(
          "cannot split a span of width " + width + " into " + n + " parts");
    }
    List<TableSpan> parts = new ArrayList<>(n);
    long lo = hashLo;
    for (int i = 1; i <= n; i++) {
      long hi = hashLo + width * i / n; // width * n < 2^63 since width <= 2^32 and n <= width
      parts.add(new TableSpan(tableId, lo, hi));
      lo = hi;
    }
    return List.copyOf(parts);
  }

  /** Reads a wire span, validating it. */
  public static TableSpan fromProto(dev.sluice.api.v1.TableSpan proto) {
    return new TableSpan(proto.getTableId(), proto.getHashLo(), proto.getHashHi());
  }

  public dev.sluice.api.v1.TableSpan toProto() {
    return dev.sluice.api.v1.TableSpan.newBuilder()
        .setTableId(tableId).setHashLo(hashLo).setHashHi(hashHi).build();
  }

  @Override
  public String toString() {
    return isWholeTable() ? tableId + "[*]" : tableId + "[" + hashLo + "," + hashHi + ")";
  }
}
