package dev.sluice.broker.data;

import java.util.concurrent.atomic.AtomicInteger;

/** The global limit on scans running at once, shared by every data-plane instance. Thread-safe. */
final class ScanSlots {

  private final AtomicInteger running = new AtomicInteger();
  private volatile int limit;

  ScanSlots(int limit) {
    this.limit = limit;
  }

  boolean tryAcquire() {
    while (true) {
      int n = running.get();
      if (n >= limit) {
        return false;
      }
      if (running.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  /** Whether a slot is free now (a hint: another instance may take it first). */
  boolean hasFree() {
    return running.get() < limit;
  }

  void release() {
    running.decrementAndGet();
  }

  int running() {
    return running.get();
  }

  void setLimit(int newLimit) {
    limit = newLimit;
  }
}
