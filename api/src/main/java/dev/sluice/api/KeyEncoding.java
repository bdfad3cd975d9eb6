package dev.sluice.api;

import dev.sluice.api.v1.Value;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The canonical byte encoding of a row's key columns, whose {@link KeyHash} routes the row to a
 * {@link TableSpan}. Part of the protocol: a client that splits a table into spans computes the same
 * bytes. Each value is a one-byte kind tag followed by a fixed-width big-endian body, or a 4-byte
 * length and the body for variable-width kinds. A timestamp is its micros and zone flag only:
 * {@code Timestamp.special} and {@code micros_past_max} are left out, so hashes stay those of earlier
 * versions ('infinity' hashes as the int64 max micros it carries; a hash collision only shares a span).
 *
 * <pre>{@code
 * int hash = KeyEncoding.hash(List.of(Value.newBuilder().setInt64Value(42).build()));
 * }</pre>
 */
public final class KeyEncoding {

  private KeyEncoding() {}

  /** The key hash of a row whose key columns hold {@code values}, in key order. */
  public static int hash(List<Value> values) {
    byte[] bytes = encode(values);
    return KeyHash.of(bytes);
  }

  /** The canonical bytes of {@code values}. */
  public static byte[] encode(List<Value> values) {
    if (values.size() == 1 && values.get(0).getKindCase() == Value.KindCase.INT64_VALUE) {
      return encodeInt64(values.get(0).getInt64Value());   // the usual key: no buffer to grow
    }
    Out out = new Out(16 * values.size() + 8);
    for (Value v : values) {
      write(out, v);
    }
    return out.toByteArray();
  }

  /** The canonical bytes of a key of one integer column holding {@code v}: what {@link #encode} gives for it. */
  public static byte[] encodeInt64(long v) {
    byte[] one = new byte[9];
    one[0] = 0x02;
    for (int i = 0; i < 8; i++) {
      one[1 + i] = (byte) (v >>> (56 - 8 * i));
    }
    return one;
  }

  /** A growable byte array without ByteArrayOutputStream's locking (a key is encoded on one thread). */
  private static final class Out {
    private byte[] buf;
    private int n;

    Out(int capacity) {
      buf = new byte[capacity];
    }

    void write(int b) {
      if (n == buf.length) {
        buf = Arrays.copyOf(buf, buf.length * 2);
      }
      buf[n++] = (byte) b;
    }

    void write(byte[] b, int off, int len) {
      if (n + len > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, n + len));
      }
      System.arraycopy(b, off, buf, n, len);
      n += len;
    }

    byte[] toByteArray() {
      return Arrays.copyOf(buf, n);
    }
  }

  private static void write(Out out, Value v) {
    switch (v.getKindCase()) {
      case NULL_VALUE, KIND_NOT_SET -> out.write(0x00);
      case BOOL_VALUE -> {
        out.write(0x01);
        out.write(v.getBoolValue() ? 1 : 0);
      }
      case INT64_VALUE -> {
        out.write(0x02);
        writeLong(out, v.getInt64Value());
      }
      case DOUBLE_VALUE -> {
        out.write(0x03);
        double d = v.getDoubleValue();
        writeLong(out, Double.doubleToLongBits(d == 0.0 ? 0.0 : d)); // -0.0 and 0.0 are one key
      }
      case DECIMAL_VALUE -> writeText(out, 0x04, v.getDecimalValue());
      case STRING_VALUE -> writeText(out, 0x05, v.getStringValue());
      case BYTES_VALUE -> writeBytes(out, 0x06, v.getBytesValue().toByteArray());
      case TIMESTAMP_VALUE -> {
        out.write(0x07);
        writeLong(out, v.getTimestampValue().getMicros());
        out.write(v.getTimestampValue().getWithZone() ? 1 : 0);
      }
      case DATE_VALUE -> {
        out.write(0x08);
        writeInt(out, v.getDateValue());
      }
      case TIME_MICROS_VALUE -> {
        out.write(0x09);
        writeLong(out, v.getTimeMicrosValue());
      }
      case JSON_VALUE -> writeText(out, 0x0A, v.getJsonValue());
      case UUID_VALUE -> writeBytes(out, 0x0B, v.getUuidValue().toByteArray());
      case ARRAY_VALUE -> {
        out.write(0x0C);
        writeInt(out, v.getArrayValue().getElementsCount());
        for (Value e : v.getArrayValue().getElementsList()) {
          write(out, e);
        }
      }
      case UNAVAILABLE -> out.write(0x0D);
    }
  }

  private static void writeText(Out out, int tag, String s) {
    writeBytes(out, tag, s.getBytes(StandardCharsets.UTF_8));
  }

  private static void writeBytes(Out out, int tag, byte[] b) {
    out.write(tag);
    writeInt(out, b.length);
    out.write(b, 0, b.length);
  }

  private static void writeInt(Out out, int v) {
    out.write(v >>> 24);
    out.write(v >>> 16);
    out.write(v >>> 8);
    out.write(v);
  }

  private static void writeLong(Out out, long v) {
    writeInt(out, (int) (v >>> 32));
    writeInt(out, (int) v);
  }
}
