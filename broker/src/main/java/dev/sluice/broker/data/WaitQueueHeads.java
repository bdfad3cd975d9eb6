package dev.sluice.broker.data;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Which data-plane instance holds the dispatcher that has waited longest for a scan. Each instance
 * publishes when the head of its wait queue was parked; a freed scan slot then goes to that
 * dispatcher whichever instance it lives on, so no instance's dispatchers starve while another has a
 * backlog. Thread-safe.
 *
 * <pre>{@code
 * heads.publish(index, waiting.isEmpty() ? WaitQueueHeads.NONE : waiting.peek().parkedAtNanos);
 * int next = heads.longest();   // -1 when nobody waits
 * }</pre>
 */
final class WaitQueueHeads {

  /** Published by an instance whose queue is empty. */
  static final long NONE = Long.MAX_VALUE;

  private final AtomicLongArray parkedAt;
  private final Runnable[] wakers;

  WaitQueueHeads(int instances) {
    parkedAt = new AtomicLongArray(instances);
    wakers = new Runnable[instances];
    for (int i = 0; i < instances; i++) {
      parkedAt.set(i, NONE);
    }
  }

  /** How to make {@code instance} retry its queue soon (on its own context); set once, before use. */
  void attach(int instance, Runnable waker) {
    wakers[instance] = waker;
  }

  /** Asks {@code instance} to retry its queue: a slot is free and its head has waited longest. */
  void wake(int instance) {
    wakers[instance].run();
  }

  /** The park time of {@code instance}'s queue head, or {@link #NONE}. */
  void publish(int instance, long headParkedAtNanos) {
    parkedAt.set(instance, headParkedAtNanos);
  }

  /** The instance whose queue head was parked first, or -1 when no instance has a dispatcher waiting. */
  int longest() {
    int best = -1;
    long bestAt = NONE;
    for (int i = 0; i < parkedAt.length(); i++) {
      long at = parkedAt.get(i);
      if (at != NONE && (best < 0 || at - bestAt < 0)) {   // nanoTime order: compare by difference
        best = i;
        bestAt = at;
      }
    }
    return best;
  }
}
