package dev.sluice.api;

import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The 128-bit id of a dispatcher, chosen by the client. Text form: 32 lowercase hex digits, high
 * half first; {@link #parse} also accepts the dashed UUID form.
 *
 * <pre>{@code
 * DispatcherId id = DispatcherId.random();
 * DispatcherId same = DispatcherId.parse(id.toString());
 * }</pre>
 */
public record DispatcherId(long high, long low) {

  private static final SecureRandom RANDOM = new SecureRandom();

  /** A fresh id from a secure random source. */
  public static DispatcherId random() {
    return new DispatcherId(RANDOM.nextLong(), RANDOM.nextLong());
  }

  /**
   * Parses 32 hex digits, optionally with UUID dashes.
   *
   * @throws IllegalArgumentException naming the input when it is not an id
   */
  public static DispatcherId parse(String text) {
    String hex = text.replace("-", "");
    if (hex.length() != 32) {
      throw new IllegalArgumentException(
          "dispatcher id must be 32 hex digits (dashes allowed), got \"" + text + "\"");
    }
    try {
      return new DispatcherId(
          HexFormat.fromHexDigitsToLong(hex, 0, 16), HexFormat.fromHexDigitsToLong(hex, 16, 32));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("dispatcher id is not hexadecimal: \"" + text + "\"", e);
    }
  }

  public static DispatcherId fromProto(dev.sluice.api.v1.DispatcherId proto) {
    return new DispatcherId(proto.getHigh(), proto.getLow());
  }

  public dev.sluice.api.v1.DispatcherId toProto() {
    return dev.sluice.api.v1.DispatcherId.newBuilder().setHigh(high).setLow(low).build();
  }

  /** A well-mixed 32-bit hash, for partitioning dispatchers over data-plane instances. */
  public int partitionHash() {
    long h = high * 0x9E3779B97F4A7C15L ^ low;
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    return (int) h;
  }

  @Override
  public String toString() {
    HexFormat hex = HexFormat.of();
    return hex.toHexDigits(high) + hex.toHexDigits(low);
  }
}
