package dev.sluice.broker.data;

import java.util.function.LongSupplier;

/**
 * The global scan-rate limit in bytes per second, shared by every data-plane instance. A debt-style
 * token bucket: a scan may start while the balance is positive and is charged what it really read,
 * so the average rate holds without knowing a scan's size in advance; the burst is one second's worth.
 * Thread-safe.
 */
final class ScanRateLimiter {

  private final LongSupplier nanoClock;
  private long bytesPerSecond;
  private double balance;
  private long lastRefillNanos;

  ScanRateLimiter(long bytesPerSecond, LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
    this.bytesPerSecond = bytesPerSecond;
    this.balance = bytesPerSecond;
    this.lastRefillNanos = nanoClock.getAsLong();
  }

  /** Whether a scan may start now. */
  synchronized boolean hasTokens() {
    refill();
    return balance > 0;
  }

  /** Charges bytes actually read (may drive the balance negative). */
  synchronized void charge(long bytes) {
    refill();
    balance -= bytes;
  }

  synchronized void setRate(long newBytesPerSecond) {
    refill();
    bytesPerSecond = newBytesPerSecond;
    balance = Math.min(balance, newBytesPerSecond);
  }

  synchronized long rate() {
    return bytesPerSecond;
  }

  private void refill() {
    long now = nanoClock.getAsLong();
    long elapsed = now - lastRefillNanos;
    if (elapsed > 0) {
      balance = Math.min(bytesPerSecond, balance + bytesPerSecond * (elapsed / 1e9));
      lastRefillNanos = now;
    }
  }
}
