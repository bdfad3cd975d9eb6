package dev.sluice.api;

/**
 * The 64-bit number that orders transactions, derived from the source position so that every
 * broker capturing the same upstream assigns the same value to the same transaction.
 *
 * <p>PostgreSQL: the commit LSN. MySQL/MariaDB: {@code binlog_file_index << 32 | end_position}.
 * Values are non-negative; {@link #ZERO} is "before everything".
 *
 * <pre>{@code
 * CommitTs ts = CommitTs.of(0x16B3748L);
 * String lsn = ts.toLsnString();   // "0/16B3748"
 * }</pre>
 *
 * @param value the ts, {@code >= 0}
 */
public record CommitTs(long value) implements Comparable<CommitTs> {

  public static final CommitTs ZERO = new CommitTs(0);

  public CommitTs {
    if (value < 0) {
      throw new IllegalArgumentException("commit ts must be >= 0, got " + value);
    }
  }

  public static CommitTs of(long value) {
    return new CommitTs(value);
  }

  /** Parses a PostgreSQL LSN such as {@code 0/16B3748}. */
  public static CommitTs parseLsn(String lsn) {
    int slash = lsn.indexOf('/');
    if (slash <= 0 || slash == lsn.length() - 1) {
      throw new IllegalArgumentException("not an LSN (expected hex/hex): " + lsn);
    }
    try {
      long hi = Long.parseLong(lsn.substring(0, slash), 16);
      long lo = Long.parseLong(lsn.substring(slash + 1), 16);
      if (hi > 0xFFFFFFFFL || lo > 0xFFFFFFFFL) {
        throw new IllegalArgumentException("LSN halves must be 32-bit: " + lsn);
      }
      return new CommitTs(hi << 32 | lo);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not an LSN (expected hex/hex): " + lsn, e);
    }
  }

  /** The PostgreSQL LSN text of this ts. */
  public String toLsnString() {
    return Long.toHexString(value >>> 32).toUpperCase() + "/" + Long.toHexString(value & 0xFFFFFFFFL).toUpperCase();
  }

  public boolean isAfter(CommitTs other) {
    return value > other.value;
  }

  @Override
  public int compareTo(CommitTs other) {
    return Long.compare(value, other.value);
  }

  @Override
  public String toString() {
    return Long.toString(value);
  }
}
