package dev.sluice.api;

/**
 * The 32-bit key hash that routes a row to a {@link TableSpan}: MurmurHash3 x86_32 (seed 0) of the
 * encoded primary-key columns. Every broker and client must compute the same value, so the
 * algorithm and seed are part of the protocol.
 *
 * <pre>{@code
 * int h = KeyHash.of("42".getBytes(StandardCharsets.UTF_8));
 * boolean routed = span.contains(h);
 * }</pre>
 */
public final class KeyHash {

  private static final int C1 = 0xcc9e2d51;
  private static final int C2 = 0x1b873593;

  private KeyHash() {}

  /** MurmurHash3 x86_32 of the whole array with seed 0. */
  public static int of(byte[] data) {
    return of(data, 0, data.length);
  }

  /** MurmurHash3 x86_32 of {@code data[offset, offset + length)} with seed 0. */
  public static int of(byte[] data, int offset, int length) {
    int h = 0;
    int end = offset + (length & ~3);
    for (int i = offset; i < end; i += 4) {
      int k = (data[i] & 0xff) | (data[i + 1] & 0xff) << 8 | (data[i + 2] & 0xff) << 16 | data[i + 3] << 24;
      h ^= mixK(k);
      h = Integer.rotateLeft(h, 13) * 5 + 0xe6546b64;
    }
    int k = 0;
    switch (length & 3) {
      case 3:
        k ^= (data[end + 2] & 0xff) << 16;
        // fall through
      case 2:
        k ^= (data[end + 1] & 0xff) << 8;
        // fall through
      case 1:
        k ^= data[end] & 0xff;
        h ^= mixK(k);
        break;
      default:
        break;
    }
    h ^= length;
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h;
  }

  private static int mixK(int k) {
    k *= C1;
    k = Integer.rotateLeft(k, 15);
    return k * C2;
  }
}
