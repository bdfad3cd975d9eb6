package dev.sluice.it.workload;

import dev.sluice.it.PostgresServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A workload against the upstream: {@code writers} threads, each with its own connection, running
 * {@link #transaction} until {@link #stop()}; counts committed transactions and keeps the first error.
 * Subclasses write one transaction per call. Every loop is bounded by {@link #stop()}, which every
 * test calls in a finally block.
 *
 * <pre>{@code
 * try (CounterWorkload w = CounterWorkload.create(upstream, 50)) {
 *   w.start(2);
 *   ...
 *   w.stop();
 * }
 * }</pre>
 */
public abstract class Workload implements AutoCloseable {

  private final PostgresServer upstream;
  private final AtomicBoolean running = new AtomicBoolean();
  private final AtomicLong committed = new AtomicLong();
  private final AtomicReference<Throwable> error = new AtomicReference<>();
  private final List<Thread> threads = new ArrayList<>();
  private volatile long pauseNanosPerTxn;

  protected Workload(PostgresServer upstream) {
    this.upstream = upstream;
  }

  /** Starts {@code writers} threads. */
  public final Workload start(int writers) {
    running.set(true);
    for (int i = 0; i < writers; i++) {
      int writer = i;
      Thread t = new Thread(() -> run(writer), getClass().getSimpleName() + "-" + i);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    return this;
  }

  /** Caps each writer at {@code perSecond} transactions per second (0 = as fast as it can). */
  public final Workload paced(double perSecond) {
    pauseNanosPerTxn = perSecond <= 0 ? 0 : (long) (1e9 / perSecond);
    return this;
  }

  private void run(int writer) {
    try (Connection c = upstream.connect()) {
      c.setAutoCommit(false);
      long next = System.nanoTime();
      while (running.get()) {
        try {
          if (transaction(c, writer)) {
            c.commit();
            committed.incrementAndGet();
          } else {
            c.rollback();
          }
        } catch (SQLException e) {
          c.rollback();
          if (!isRetryable(e)) {
            throw e;
          }
        }
        if (pauseNanosPerTxn > 0) {
          next += pauseNanosPerTxn;
          long wait = next - System.nanoTime();
          if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);   // pacing of a load generator, not a test wait
          }
        }
      }
    } catch (Throwable t) {
      error.compareAndSet(null, t);
      running.set(false);
    }
  }

  /** Deadlocks and serialization failures are retried by the next call. */
  private static boolean isRetryable(SQLException e) {
    return "40P01".equals(e.getSQLState()) || "40001".equals(e.getSQLState());
  }

  /** Writes one transaction on {@code c} (autocommit off); returns false to roll it back instead. */
  protected abstract boolean transaction(Connection c, int writer) throws SQLException;

  public final long committed() {
    return committed.get();
  }

  /** The first error a writer hit (it stopped the workload), or null. */
  public final Throwable error() {
    return error.get();
  }

  /** Stops the writers and waits for them; throws when one failed. */
  public final void stop() {
    running.set(false);
    for (Thread t : threads) {
      try {
        t.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    threads.clear();
    Throwable t = error.get();
    if (t != null) {
      throw new IllegalStateException(getClass().getSimpleName() + " failed: " + t, t);
    }
  }

  @Override
  public void close() {
    running.set(false);
    for (Thread t : threads) {
      try {
        t.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
