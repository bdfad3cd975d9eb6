package dev.sluice.it.scenario;

import dev.sluice.api.error.SluiceException;
import dev.sluice.api.v1.RowOp;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.Transaction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * A subscription's listener that checks the delivery contract as it goes and keeps an in-memory copy
 * of its rows: commit ts strictly increasing (a repeat is a duplicate, a step back is a reorder), no
 * error; rows applied as {@code id -> value column} (bigint columns), every transaction and resolved
 * ts acknowledged right away. Shared by the scenarios that observe dispatchers directly.
 *
 * <pre>{@code
 * ReplicaListener l = new ReplicaListener("public.t#0", startTs, "v");
 * l.handle = client.subscribe(Subscription.table("public.t").from(startTs), l);
 * assertThat(l.violations()).isEmpty();
 * }</pre>
 */
class ReplicaListener implements ChangeListener {

  final String name;
  final String valueColumn;
  final Map<Long, Long> rows = new ConcurrentHashMap<>();
  final AtomicLong transactions = new AtomicLong();
  final List<DdlChange> ddls = Collections.synchronizedList(new ArrayList<>());
  private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
  private volatile long lastCommitTs;
  private volatile long resolvedTs;
  volatile SubscriptionHandle handle;
  volatile LongConsumer onResolvedCheck = ts -> { };

  ReplicaListener(String name, long startTs, String valueColumn) {
    this.name = name;
    this.valueColumn = valueColumn;
    this.lastCommitTs = startTs;
  }

  @Override
  public void onTransaction(Transaction txn) {
    if (txn.commitTs() <= lastCommitTs) {
      violations.add(name + ": transaction at " + txn.commitTs() + " after " + lastCommitTs
          + (txn.commitTs() == lastCommitTs ? " (delivered twice)" : " (out of order)"));
    }
    lastCommitTs = txn.commitTs();
    for (RowChangeView row : txn.rows()) {
      apply(txn, row);
    }
    transactions.incrementAndGet();
    handle.acknowledge(txn.checkpoint());
  }

  /** Applies one row to the copy; scenarios with other shapes override it. */
  void apply(Transaction txn, RowChangeView row) {
    if (row.op() == RowOp.ROW_OP_DELETE) {
      rows.remove(row.before().getLong("id"));
    } else {
      rows.put(row.after().getLong("id"), row.after().getLong(valueColumn));
    }
  }

  @Override
  public void onDdl(DdlChange ddl) {
    if (ddl.commitTs() <= lastCommitTs) {
      violations.add(name + ": DDL at " + ddl.commitTs() + " after " + lastCommitTs);
    }
    lastCommitTs = ddl.commitTs();
    ddls.add(ddl);
  }

  @Override
  public void onResolved(long ts) {
    resolvedTs = Math.max(resolvedTs, ts);
    onResolvedCheck.accept(ts);
    handle.acknowledge(ts);
  }

  @Override
  public void onError(SluiceException error) {
    violations.add(name + ": subscription failed: " + error);
  }

  void violation(String what) {
    violations.add(name + ": " + what);
  }

  List<String> violations() {
    synchronized (violations) {
      return List.copyOf(violations);
    }
  }

  long resolvedTs() {
    return resolvedTs;
  }

  long lastCommitTs() {
    return lastCommitTs;
  }
}
