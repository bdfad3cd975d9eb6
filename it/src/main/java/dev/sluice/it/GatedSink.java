package dev.sluice.it;

import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.dispatcher.sink.Sink;
import dev.sluice.dispatcher.sink.SinkChange;
import dev.sluice.dispatcher.sink.SinkCheckpoint;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A sink that can be stalled: while closed, every call blocks before it reaches the real sink, as a
 * slow or hung target would. Counts the transactions it passed on.
 *
 * <pre>{@code
 * GatedSink sink = new GatedSink(JdbcUpsertSink.open(config));
 * sink.stall();    // the changefeed's applier blocks at its next call
 * sink.release();
 * }</pre>
 */
public final class GatedSink implements Sink {

  private final Sink delegate;
  private final AtomicLong transactions = new AtomicLong();
  private final Object lock = new Object();
  private boolean stalled;      // guarded by lock
  private int inFlight;         // calls past the gate, not yet returned; guarded by lock

  public GatedSink(Sink delegate) {
    this.delegate = delegate;
  }

  /**
   * Blocks every later call until {@link #release()}, and returns once a call already past the gate has
   * finished: from then on the sink's checkpoint stands still.
   */
  public void stall() {
    synchronized (lock) {
      stalled = true;
      while (inFlight > 0) {
        waitOn();
      }
    }
  }

  public void release() {
    synchronized (lock) {
      stalled = false;
      lock.notifyAll();
    }
  }

  public long transactions() {
    return transactions.get();
  }

  private void enter() {
    synchronized (lock) {
      while (stalled) {
        waitOn();
      }
      inFlight++;
    }
  }

  private void exit() {
    synchronized (lock) {
      inFlight--;
      lock.notifyAll();
    }
  }

  private void waitOn() {
    try {
      lock.wait();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stalled", e);
    }
  }

  @Override
  public SinkCheckpoint checkpoint() {
    return delegate.checkpoint();
  }

  @Override
  public void apply(List<Transaction> txns, long changefeedCheckpointTs) {
    enter();
    try {
      delegate.apply(txns, changefeedCheckpointTs);
      transactions.addAndGet(txns.size());
    } finally {
      exit();
    }
  }

  @Override
  public void applyDdl(DdlChange ddl, long changefeedCheckpointTs) {
    enter();
    try {
      delegate.applyDdl(ddl, changefeedCheckpointTs);
    } finally {
      exit();
    }
  }

  @Override
  public void applyInOrder(List<SinkChange> changes, boolean commit, long changefeedCheckpointTs) {
    enter();
    try {
      delegate.applyInOrder(changes, commit, changefeedCheckpointTs);
      transactions.addAndGet(changes.stream().filter(c -> c instanceof SinkChange.Rows).count());
    } finally {
      exit();
    }
  }

  @Override
  public void recordSnapshot(long tableId, String tableName, dev.sluice.dispatcher.sink.TableSnapshot snapshot) {
    enter();
    try {
      delegate.recordSnapshot(tableId, tableName, snapshot);
    } finally {
      exit();
    }
  }

  @Override
  public void markDropped(long tableId, String tableName, long droppedTs) {
    enter();
    try {
      delegate.markDropped(tableId, tableName, droppedTs);
    } finally {
      exit();
    }
  }

  @Override
  public void advance(long changefeedCheckpointTs) {
    enter();
    try {
      delegate.advance(changefeedCheckpointTs);
    } finally {
      exit();
    }
  }

  @Override
  public void close() {
    release();
    delegate.close();
  }
}
