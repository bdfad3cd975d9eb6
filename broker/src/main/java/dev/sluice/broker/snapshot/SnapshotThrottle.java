package dev.sluice.broker.snapshot;

/**
 * The snapshot readers' rate limits, rows per second and bytes per second across every reader,
 * changeable at runtime ({@code eventService.limits.snapshotRowsPerSecond}, {@code ...BytesPerSecond},
 * {@code PATCH /api/v1/config}); 0 means no limit. Two debt-style buckets: a chunk may be read while
 * both balances are positive and is charged what it really read, so the average holds without knowing a
 * chunk's size in advance; the burst is one second's worth. Time comes in as an argument, so every
 * branch depends only on its inputs. Thread-safe.
 *
 * <pre>{@code
 * long wait = throttle.waitNanos(System.nanoTime());   // 0: read now
 * throttle.charge(rows, bytes, System.nanoTime());
 * }</pre>
 */
public final class SnapshotThrottle {

  private long rowsPerSecond;
  private long bytesPerSecond;
  private double rowBalance;
  private double byteBalance;
  private long lastNanos;

  /** @param nowNanos the time the buckets start full at */
  public SnapshotThrottle(long rowsPerSecond, long bytesPerSecond, long nowNanos) {
    check(rowsPerSecond, bytesPerSecond);
    this.rowsPerSecond = rowsPerSecond;
    this.bytesPerSecond = bytesPerSecond;
    this.rowBalance = rowsPerSecond;
    this.byteBalance = bytesPerSecond;
    this.lastNanos = nowNanos;
  }

  /** How long until both balances are positive; 0 when a chunk may be read now. */
  public synchronized long waitNanos(long nowNanos) {
    refill(nowNanos);
    return Math.max(waitFor(rowBalance, rowsPerSecond), waitFor(byteBalance, bytesPerSecond));
  }

  /** Charges what a chunk read (may drive a balance negative: the next chunk waits for it). */
  public synchronized void charge(long rows, long bytes, long nowNanos) {
    refill(nowNanos);
    if (rowsPerSecond > 0) {
      rowBalance -= rows;
    }
    if (bytesPerSecond > 0) {
      byteBalance -= bytes;
    }
  }

  /** New limits, in force at once; a balance above the new burst is cut to it. */
  public synchronized void setRates(long newRowsPerSecond, long newBytesPerSecond, long nowNanos) {
    check(newRowsPerSecond, newBytesPerSecond);
    refill(nowNanos);
    rowsPerSecond = newRowsPerSecond;
    bytesPerSecond = newBytesPerSecond;
    rowBalance = newRowsPerSecond == 0 ? 0 : Math.min(rowBalance, newRowsPerSecond);
    byteBalance = newBytesPerSecond == 0 ? 0 : Math.min(byteBalance, newBytesPerSecond);
  }

  public synchronized long rowsPerSecond() {
    return rowsPerSecond;
  }

  public synchronized long bytesPerSecond() {
    return bytesPerSecond;
  }

  private static long waitFor(double balance, long perSecond) {
    if (perSecond == 0 || balance > 0) {
      return 0;
    }
    // until the balance is back above zero: one unit more than the debt
    return (long) Math.ceil((1 - balance) * 1e9 / perSecond);
  }

  private void refill(long nowNanos) {
    long elapsed = nowNanos - lastNanos;
    if (elapsed <= 0) {
      return;
    }
    lastNanos = nowNanos;
    if (rowsPerSecond > 0) {
      rowBalance = Math.min(rowsPerSecond, rowBalance + rowsPerSecond * (elapsed / 1e9));
    }
    if (bytesPerSecond > 0) {
      byteBalance = Math.min(bytesPerSecond, byteBalance + bytesPerSecond * (elapsed / 1e9));
    }
  }

  private static void check(long rows, long bytes) {
    if (rows < 0 || bytes < 0) {
      throw new IllegalArgumentException("snapshot rates must be >= 0 (0 = no limit), got " + rows + " rows/s and "
          + bytes + " bytes/s");
    }
  }
}
