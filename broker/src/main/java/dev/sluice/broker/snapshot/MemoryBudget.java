package dev.sluice.broker.snapshot;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The bytes of snapshot chunks the broker holds at once: a reader reserves a chunk's worth before it
 * reads and the reservation is returned when the chunk was handed to the stream (or dropped). At most
 * {@code capacity} bytes are reserved, except that one reservation may always be made when none is out,
 * so a single row larger than the budget still gets through (the same exception capture makes). Waiting
 * readers are woken in no particular order. Thread-safe.
 *
 * <pre>{@code
 * if (budget.tryAcquire(chunkBytes, 100, TimeUnit.MILLISECONDS)) { try { read(); } finally { ... } }
 * }</pre>
 */
final class MemoryBudget {

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition freed = lock.newCondition();
  private final long capacity;
  private long used;

  MemoryBudget(long capacity) {
    if (capacity <= 0) {
      throw new IllegalArgumentException("memory budget must be positive, got " + capacity);
    }
    this.capacity = capacity;
  }

  /** Reserves {@code bytes}, waiting up to {@code timeout} for room; false when there was none. */
  boolean tryAcquire(long bytes, long timeout, TimeUnit unit) throws InterruptedException {
    long nanos = unit.toNanos(timeout);
    lock.lock();
    try {
      while (used > 0 && used + bytes > capacity) {
        if (nanos <= 0) {
          return false;
        }
        nanos = freed.awaitNanos(nanos);
      }
      used += bytes;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Changes a reservation by {@code delta} bytes (the chunk turned out bigger or smaller); never waits. */
  void adjust(long delta) {
    lock.lock();
    try {
      used = Math.max(0, used + delta);
      if (delta < 0) {
        freed.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  void release(long bytes) {
    adjust(-bytes);
  }

  long used() {
    lock.lock();
    try {
      return used;
    } finally {
      lock.unlock();
    }
  }

  long capacity() {
    return capacity;
  }
}
