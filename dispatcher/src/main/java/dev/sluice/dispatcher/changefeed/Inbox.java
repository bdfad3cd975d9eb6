package dev.sluice.dispatcher.changefeed;

import dev.sluice.dispatcher.SnapshotOutcome;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The queues between the tables' listeners and the changefeed's applier: one bounded queue per table, so
 * a table the applier does not take from (it waits for the others, or behind its own schema change)
 * blocks only its own listener, which shrinks that dispatcher's credit (back-pressure to the broker),
 * never another table's. Watermarks at a queue's tail are coalesced; an error is always taken.
 */
final class Inbox {

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final int capacity;
  private long puts;
  private boolean closed;

  Inbox(int capacity) {
    this.capacity = capacity;
  }

  /**
   * Queues {@code e} for {@code t} from the listener of subscription {@code generation}; blocks while the
   * queue is full. Dropped when the table takes nothing (ended, held) or from another subscription.
   */
  void put(FollowedTable t, int generation, Entry e) throws InterruptedException {
    lock.lock();
    try {
      while (!closed && takes(t, generation) && e.kind() != Entry.Kind.ERROR && !coalesces(t, e)
          && t.queue.size() >= capacity) {
        changed.await();
      }
      if (closed || !takes(t, generation)) {
        return;
      }
      if (coalesces(t, e)) {
        t.queue.pollLast();
      }
      t.queue.addLast(e);
      t.receivedThrough = Math.max(t.receivedThrough, e.receivedThrough());
      puts++;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private static boolean takes(FollowedTable t, int generation) {
    return t.accepting && t.generation == generation;
  }

  int generation(FollowedTable t) {
    lock.lock();
    try {
      return t.generation;
    } finally {
      lock.unlock();
    }
  }

  /** The table takes entries again, of a new subscription from {@code fromTs} (a held table followed again). */
  void reopen(FollowedTable t, long fromTs) {
    lock.lock();
    try {
      t.generation++;
      t.accepting = true;
      t.queue.clear();
      t.receivedThrough = fromTs;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private static boolean coalesces(FollowedTable t, Entry e) {
    Entry tail = t.queue.peekLast();
    return e.kind() == Entry.Kind.RESOLVED && tail != null && tail.kind() == Entry.Kind.RESOLVED && tail.ts() <= e.ts();
  }

  Entry peek(FollowedTable t) {
    lock.lock();
    try {
      return t.queue.peekFirst();
    } finally {
      lock.unlock();
    }
  }

  Entry poll(FollowedTable t) {
    lock.lock();
    try {
      Entry e = t.queue.pollFirst();
      if (e != null) {
        changed.signalAll();
      }
      return e;
    } finally {
      lock.unlock();
    }
  }

  /**
   * {@code t}'s snapshot ended ({@code outcome}), in stream order: it counts once everything queued before
   * it is applied. Dropped from a subscription that is not the table's current one.
   */
  void snapshotEnded(FollowedTable t, int generation, SnapshotOutcome outcome) {
    lock.lock();
    try {
      if (!closed && takes(t, generation)) {
        t.outcome = outcome;
        t.outcomeAfterTs = t.receivedThrough;
        puts++;
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** The snapshot outcome of {@code t} once it is applied through {@code appliedTs} (taken), else null. */
  SnapshotOutcome takeOutcome(FollowedTable t, long appliedTs) {
    lock.lock();
    try {
      SnapshotOutcome o = t.outcome;
      if (o == null || appliedTs < t.outcomeAfterTs) {
        return null;
      }
      t.outcome = null;
      return o;
    } finally {
      lock.unlock();
    }
  }

  /** The ts of the outcome {@link #takeOutcome} would give, or -1 when none waits. */
  long outcomeAfterTs(FollowedTable t) {
    lock.lock();
    try {
      return t.outcome == null ? -1 : t.outcomeAfterTs;
    } finally {
      lock.unlock();
    }
  }

  /** Every event of {@code t}'s stream at or below this ts has been queued (or applied). */
  long receivedThrough(FollowedTable t) {
    lock.lock();
    try {
      return t.receivedThrough;
    } finally {
      lock.unlock();
    }
  }

  /**
   * How far {@code t} is applied once everything taken from its queue is: its received-through ts when
   * only watermarks are left in the queue, else -1.
   */
  long quietThrough(FollowedTable t) {
    lock.lock();
    try {
      for (Entry e : t.queue) {
        if (e.kind() == Entry.Kind.TXN || e.kind() == Entry.Kind.DDL) {
          return -1;
        }
      }
      return t.receivedThrough;
    } finally {
      lock.unlock();
    }
  }

  /** The table takes nothing more: its queue is emptied and a listener blocked on it returns. */
  void stopTaking(FollowedTable t) {
    lock.lock();
    try {
      t.accepting = false;
      t.queue.clear();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** How many entries were put so far. */
  long puts() {
    lock.lock();
    try {
      return puts;
    } finally {
      lock.unlock();
    }
  }

  /** Waits until an entry is put after the {@code seen}-th, for at most {@code timeoutMs}. */
  void awaitPut(long seen, long timeoutMs) throws InterruptedException {
    long left = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    lock.lock();
    try {
      while (!closed && puts == seen && left > 0) {
        left = changed.awaitNanos(left);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Releases every waiting listener; nothing is taken any more. */
  void close() {
    lock.lock();
    try {
      closed = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }
}
