package dev.sluice.it;

import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.dispatcher.sink.Sink;
import dev.sluice.dispatcher.sink.SinkCheckpoint;
import java.util.List;
import java.util.concurrent.CountDownLatch;
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
  private volatile CountDownLatch gate = new CountDownLatch(0);

  public GatedSink(Sink delegate) {
    this.delegate = delegate;
  }

  /** Blocks every later call until {@link #release()}. */
  public void stall() {
    if (gate.getCount() == 0) {
      gate = new CountDownLatch(1);
    }
  }

  public void release() {
    gate.countDown();
  }

  public long transactions() {
    return transactions.get();
  }

  private void pass() {
    try {
      gate.await();
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
    pass();
    delegate.apply(txns, changefeedCheckpointTs);
    transactions.addAndGet(txns.size());
  }

  @Override
  public void applyDdl(DdlChange ddl, long changefeedCheckpointTs) {
    pass();
    delegate.applyDdl(ddl, changefeedCheckpointTs);
  }

  @Override
  public void advance(long changefeedCheckpointTs) {
    pass();
    delegate.advance(changefeedCheckpointTs);
  }

  @Override
  public void close() {
    release();
    delegate.close();
  }
}
