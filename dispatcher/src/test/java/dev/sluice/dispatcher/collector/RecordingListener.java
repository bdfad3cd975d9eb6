package dev.sluice.dispatcher.collector;

import dev.sluice.api.error.SluiceException;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.Transaction;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Records every call; optionally acknowledges each transaction, or blocks until released. */
public class RecordingListener implements ChangeListener {

  final List<Transaction> transactions = new CopyOnWriteArrayList<>();
  final List<DdlChange> ddls = new CopyOnWriteArrayList<>();
  final List<Long> resolved = new CopyOnWriteArrayList<>();
  final List<SluiceException> errors = new CopyOnWriteArrayList<>();
  /** Every transaction and DDL call in order: "txn@101[1,2]" (rows' row seqs, "last" for a last part), "ddl@101/3". */
  final List<String> calls = new CopyOnWriteArrayList<>();
  volatile SubscriptionHandle handle;
  volatile boolean autoAck;
  volatile CountDownLatch gate;

  RecordingListener autoAck() {
    autoAck = true;
    return this;
  }

  List<Long> commitTs() {
    return transactions.stream().map(Transaction::commitTs).toList();
  }

  @Override
  public void onTransaction(Transaction transaction) {
    CountDownLatch g = gate;
    if (g != null) {
      try {
        g.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    transactions.add(transaction);
    calls.add("txn@" + transaction.commitTs() + transaction.rows().stream().map(r -> Long.toString(r.rowSeq()))
        .toList().toString().replace(" ", "") + (transaction.lastPart() ? " last" : ""));
    if (autoAck) {
      handle.acknowledge(transaction.checkpoint());
    }
  }

  @Override
  public void onDdl(DdlChange ddl) {
    ddls.add(ddl);
    calls.add("ddl@" + ddl.commitTs() + "/" + ddl.rowSeq());
    if (autoAck) {
      handle.acknowledge(ddl.position());
    }
  }

  @Override
  public void onResolved(long ts) {
    resolved.add(ts);
  }

  @Override
  public void onError(SluiceException error) {
    errors.add(error);
  }
}
