package dev.sluice.dispatcher.collector;

import com.google.protobuf.ByteOutput;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * The bytes of a CopyRows' {@code lines} as an array range, without copying them out of the parsed message when
 * its ByteString is one array (as the parser makes it): {@code array[from, to)}. Every image of the batch points into
 * that array, which nothing writes (a ByteString is immutable, and a {@code CopyLine}'s buffer is read only).
 *
 * <pre>{@code
 * LineBytes b = LineBytes.of(copy.getLines());
 * int end = CopyText.lineEnd(b.array(), b.from(), b.to());
 * }</pre>
 *
 * @param array holds the lines
 * @param from  index of the first line's first byte
 * @param to    index after the last line's newline
 */
record LineBytes(byte[] array, int from, int to) {

  static LineBytes of(ByteString lines) {
    SingleArray one = new SingleArray();
    try {
      UnsafeByteOperations.unsafeWriteTo(lines, one);
    } catch (IOException e) {
      throw new UncheckedIOException("reading a ByteString in memory", e);
    }
    if (one.other || one.array == null || one.length != lines.size()) {   // a rope, a direct buffer: a copy
      byte[] copy = lines.toByteArray();
      return new LineBytes(copy, 0, copy.length);
    }
    return new LineBytes(one.array, one.offset, one.offset + one.length);
  }

  /** Keeps the array a ByteString hands out when it is one array; anything else sets {@code other}. */
  private static final class SingleArray extends ByteOutput {
    byte[] array;
    int offset;
    int length;
    boolean other;

    @Override
    public void writeLazy(byte[] value, int off, int len) {
      other |= array != null;   // a second array
      array = value;
      offset = off;
      length = len;
    }

    @Override
    public void write(byte[] value, int off, int len) {
      other = true;
    }

    @Override
    public void write(byte value) {
      other = true;
    }

    @Override
    public void write(ByteBuffer value) {
      other = true;
    }

    @Override
    public void writeLazy(ByteBuffer value) {
      other = true;
    }
  }
}
