package dev.sluice.broker.capture;

import java.nio.charset.StandardCharsets;

/**
 * One pgoutput TupleData, decoded in place: each column's kind and the bounds of its bytes in the
 * message buffer. Reused by {@link PgOutputDecoder} for every message, so values are valid only
 * until the handler callback returns. Not thread-safe.
 */
final class TupleData {

  /** The column is NULL. */
  static final byte NULL = 'n';
  /** An unchanged TOASTed value the server did not send. */
  static final byte UNCHANGED_TOAST = 'u';
  /** A value in text format. */
  static final byte TEXT = 't';
  /** A value in binary format (only with the {@code binary} option, which capture does not request). */
  static final byte BINARY = 'b';

  private byte[] buffer = new byte[0];
  private byte[] kinds = new byte[16];
  private int[] offsets = new int[16];
  private int[] lengths = new int[16];
  private int count;

  void reset(byte[] source, int columns) {
    buffer = source;
    count = columns;
    if (kinds.length < columns) {
      kinds = new byte[columns];
      offsets = new int[columns];
      lengths = new int[columns];
    }
  }

  void set(int column, byte kind, int offset, int length) {
    kinds[column] = kind;
    offsets[column] = offset;
    lengths[column] = length;
  }

  int size() {
    return count;
  }

  byte kind(int column) {
    return kinds[column];
  }

  /** The message buffer the value bytes live in. */
  byte[] buffer() {
    return buffer;
  }

  int offset(int column) {
    return offsets[column];
  }

  int length(int column) {
    return lengths[column];
  }

  /** The column's value as text; {@code null} for NULL and unchanged TOAST. */
  String text(int column) {
    byte k = kinds[column];
    if (k != TEXT && k != BINARY) {
      return null;
    }
    return new String(buffer, offsets[column], lengths[column], StandardCharsets.UTF_8);
  }
}
