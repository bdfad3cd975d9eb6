package dev.sluice.dispatcher.collector;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.error.SluiceException;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.ListenerFailedException;
import dev.sluice.dispatcher.StateChange;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bounded queue between one dispatcher (filled on the collector's event loop) and its listener
 * (drained on the listener executor, one drain at a time, so calls for one subscription never
 * overlap). Its free bytes are the dispatcher's credit: the broker may not send more than the queue
 * can take, so {@link #offer} never blocks the loop.
 *
 * <p>Concurrency: {@link #offer}, {@link #fail} and {@link #stop} are called from the collector's
 * context; the drain runs on the executor; the counters and the acknowledged checkpoint are safe
 * from any thread. The monitor of {@code this} guards the deque.
 */
final class DeliveryQueue {

  private static final Logger LOG = LoggerFactory.getLogger(DeliveryQueue.class);

  private final DispatcherId dispatcherId;
  private volatile ChangeListener listener;   // set once by bind(), before or after the first offer
  private final Executor executor;
  private final long capacityBytes;
  private final Consumer<SluiceException> onListenerFailure;

  private final ArrayDeque<Delivery> items = new ArrayDeque<>();
  private long queuedBytes;
  private boolean draining;
  private boolean acceptsData = true;
  private boolean errorSent;
  private SluiceException finalError;
  private StateChange finalChange;

  private volatile Checkpoint delivered;
  private volatile long deliveredTs;
  private final AtomicReference<Checkpoint> acknowledged;

  DeliveryQueue(DispatcherId dispatcherId, Executor executor, long capacityBytes, Checkpoint start,
      Consumer<SluiceException> onListenerFailure) {
    this.dispatcherId = dispatcherId;
    this.executor = executor;
    this.capacityBytes = capacityBytes;
    this.onListenerFailure = onListenerFailure;
    this.delivered = start;
    this.deliveredTs = start.ts();
    this.acknowledged = new AtomicReference<>(start);
  }

  /** Sets the listener; what was queued before is delivered to it now. */
  void bind(ChangeListener target) {
    synchronized (this) {
      listener = target;
      if (draining || (items.isEmpty() && finalError == null)) {
        return;
      }
      draining = true;
    }
    executor.execute(this::drain);
  }

  /** Queues an item for the listener. */
  void offer(Delivery d) {
    synchronized (this) {
      if (!acceptsData) {
        return;
      }
      Delivery tail = items.peekLast();
      if (d instanceof Delivery.Resolved r && tail instanceof Delivery.Resolved t) {
        t.raiseTo(r.ts());   // coalesce watermarks: only the newest matters
        return;
      }
      items.addLast(d);
      queuedBytes += d.bytes();
      if (draining || listener == null) {
        return;
      }
      draining = true;
    }
    executor.execute(this::drain);
  }

  /**
   * Ends delivery with {@code error}: pending items are dropped, {@code onStateChange(change)} (FAILED) and then
   * {@code onError} are the last calls.
   */
  void fail(SluiceException error, StateChange change) {
    synchronized (this) {
      if (errorSent) {
        return;
      }
      errorSent = true;
      acceptsData = false;
      items.clear();
      queuedBytes = 0;
      finalError = error;
      finalChange = change;
      if (draining || listener == null) {
        return;
      }
      draining = true;
    }
    executor.execute(this::drain);
  }

  /** Ends delivery silently (the subscription was closed). */
  void stop() {
    synchronized (this) {
      acceptsData = false;
      errorSent = true;
      items.clear();
      queuedBytes = 0;
    }
  }

  synchronized long queuedBytes() {
    return queuedBytes;
  }

  /** Free space: the credit the broker may use for this dispatcher, never negative. */
  long freeBytes(long alsoHeldBytes) {
    return Math.max(0, capacityBytes - queuedBytes() - alsoHeldBytes);
  }

  long capacityBytes() {
    return capacityBytes;
  }

  Checkpoint delivered() {
    return delivered;
  }

  long deliveredTs() {
    return deliveredTs;
  }

  Checkpoint acknowledged() {
    return acknowledged.get();
  }

  /** Moves the start position before anything was delivered (a start "from now" resolved late). */
  void restartAt(Checkpoint start) {
    synchronized (this) {
      delivered = start;
      deliveredTs = start.ts();
    }
    acknowledged.set(start);
  }

  void acknowledge(Checkpoint checkpoint) {
    Checkpoint reached = delivered;
    if (checkpoint.compareTo(reached) > 0) {
      throw new IllegalArgumentException("cannot acknowledge " + checkpoint + " for dispatcher " + dispatcherId
          + ": only " + reached + " was delivered");
    }
    acknowledged.accumulateAndGet(checkpoint, Checkpoint::max);
  }

  private void drain() {
    while (true) {
      Delivery next;
      SluiceException error = null;
      synchronized (this) {
        next = items.pollFirst();
        if (next == null) {
          error = finalError;
          finalError = null;
          if (error == null) {
            draining = false;
            return;
          }
        }
      }
      if (next == null) {
        StateChange change;
        synchronized (this) {
          change = finalChange;
          finalChange = null;
        }
        try {
          if (change != null) {
            listener.onStateChange(change);
          }
        } catch (RuntimeException e) {
          LOG.atWarn().addKeyValue("dispatcherId", dispatcherId).setCause(e).log("listener.onStateChange threw");
        }
        try {
          listener.onError(error);
        } catch (RuntimeException e) {
          LOG.atWarn().addKeyValue("dispatcherId", dispatcherId).setCause(e).log("listener.onError threw");
        }
        synchronized (this) {
          draining = false;
        }
        return;
      }
      Checkpoint position = next.position();
      synchronized (this) {
        if (position.compareTo(delivered) > 0) {   // handed over: the listener may acknowledge it inside the call
          delivered = position;
          deliveredTs = Math.max(deliveredTs, next.ts());
        }
      }
      try {
        next.deliverTo(listener);
      } catch (RuntimeException | Error e) {
        SluiceException failure = e instanceof SluiceException s ? s
            : new ListenerFailedException(dispatcherId, next.ts(), e);
        synchronized (this) {
          items.clear();
          queuedBytes = 0;
          draining = false;
          acceptsData = false;
        }
        onListenerFailure.accept(failure);
        return;
      }
      synchronized (this) {
        queuedBytes -= next.bytes();
      }
    }
  }
}
