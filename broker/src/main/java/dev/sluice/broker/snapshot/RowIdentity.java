package dev.sluice.broker.snapshot;

import dev.sluice.api.KeyEncoding;
import dev.sluice.api.KeyHash;
import dev.sluice.api.v1.Value;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * What makes two row images the same row for the watermark merge: the canonical bytes
 * ({@link KeyEncoding}) of the key columns, or of every column for a table without a key. Equal
 * bytes, equal identity; compared by content.
 *
 * <pre>{@code
 * RowIdentity id = RowIdentity.of(List.of(Value.newBuilder().setInt64Value(42).build()));
 * }</pre>
 */
public final class RowIdentity {

  private final byte[] bytes;
  private final int hash;

  private RowIdentity(byte[] bytes) {
    this.bytes = bytes;
    // murmur3, not Arrays.hashCode: a polynomial hash of consecutive integer keys' bytes folds 8,192 keys onto
    // ~1,300 values, and the merge's map of a chunk then degrades to trees
    this.hash = KeyHash.of(bytes);
  }

  /** The identity of a row whose identifying columns hold {@code values}, in order. */
  public static RowIdentity of(List<Value> values) {
    return new RowIdentity(KeyEncoding.encode(values));
  }

  /** The identity of a row whose one key column is an integer holding {@code v}: {@code of(List.of(int64 v))}. */
  public static RowIdentity ofInt64(long v) {
    return new RowIdentity(KeyEncoding.encodeInt64(v));
  }

  /**
   * {@link KeyHash#of} of the canonical bytes: for a keyed table's identity, the key hash capture gives the row
   * (murmur3 of the encoded key columns), computed once.
   */
  public int keyHash() {
    return hash;
  }

  /** The canonical bytes; do not modify. */
  byte[] bytes() {
    return bytes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RowIdentity other && hash == other.hash && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, 32)) + (bytes.length > 32 ? "..." : "");
  }
}
