package dev.sluice.dispatcher.changefeed;

import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.dispatcher.sink.RowIdentityMissingException;
import dev.sluice.dispatcher.sink.Sink;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * {@link ApplyMode#TABLE}: each table's transactions go to the sink as they arrive, the tables taken in
 * turn, up to {@code maxBatchTransactions} per sink call; a transaction that changed two tables reaches the
 * sink as two. Schema changes wait at their table's head until they are next in {@link DdlOrder} across
 * all followed tables: every other table's stream has passed their commit ts (or waits at a later schema
 * change of its own) and the tables listed cover it. So a parent's CREATE always runs before its
 * partition's or its referencing table's, and a table dropped and re-created under its name is dropped
 * first, whichever stream arrives first. A table waiting at a schema change blocks only itself.
 */
final class TablewiseApplier extends Applier {

  private int rotation;

  TablewiseApplier(ChangefeedDefinition definition, Sink sink, TableRoster roster, Inbox inbox, CountDownLatch stop,
      SinkGate gate, Consumer<String> retrying, long checkpointTs) {
    super(definition, sink, roster, inbox, stop, gate, retrying, checkpointTs);
  }

  @Override
  boolean step() throws InterruptedException {
    List<FollowedTable> live = roster.live();
    List<Transaction> txns = new ArrayList<>();
    Map<FollowedTable, Checkpoint> reached = new LinkedHashMap<>();
    int n = live.size();
    for (int i = 0; i < n && txns.size() < definition.maxBatchTransactions(); i++) {
      FollowedTable t = live.get((rotation + i) % n);
      Entry e;
      while (txns.size() < definition.maxBatchTransactions() && (e = inbox.peek(t)) != null
          && (e.kind() == Entry.Kind.TXN || e.kind() == Entry.Kind.RESOLVED)) {
        inbox.poll(t);
        if (e.kind() == Entry.Kind.TXN) {
          txns.add(e.txn());
          reached.merge(t, e.txn().checkpoint(), Checkpoint::max);
        } else {
          t.resolvedTs = Math.max(t.resolvedTs, e.ts());
          reached.merge(t, Checkpoint.at(e.ts()), Checkpoint::max);
        }
      }
    }
    rotation++;
    boolean progressed = !reached.isEmpty();
    flush(txns, reached);
    for (FollowedTable t : roster.live()) {
      Entry e = inbox.peek(t);
      if (e != null && e.kind() == Entry.Kind.ERROR) {
        inbox.poll(t);
        onError(t, e.error());
        progressed = true;
      }
    }
    for (FollowedTable next = nextDdl(); next != null && ready(next); next = nextDdl()) {
      DdlChange ddl = inbox.poll(next).ddl();
      withRetry(() -> sink.applyDdl(ddl, checkpointTs));
      afterDdl(next, ddl);
      progressed = true;
    }
    return progressed;
  }

  /** Applies {@code txns} (possibly none) with the checkpoint they and {@code reached} allow. */
  private void flush(List<Transaction> txns, Map<FollowedTable, Checkpoint> reached) throws InterruptedException {
    List<Transaction> batch = txns;
    while (true) {
      Map<FollowedTable, Checkpoint> after = new LinkedHashMap<>();
      for (FollowedTable t : roster.live()) {
        after.put(t, reached.containsKey(t) ? t.applied.max(reached.get(t)) : t.applied);
      }
      long cf = minimum(after);
      List<Transaction> call = batch;
      try {
        if (call.isEmpty()) {
          if (cf > checkpointTs) {
            withRetry(() -> sink.advance(cf));
          }
        } else {
          withRetry(() -> sink.apply(call, cf));
        }
      } catch (RowIdentityMissingException e) {
        // the sink took nothing of the call: the other tables go on without the held one
        long version = call.stream().filter(x -> x.tableId() == e.tableId()).findFirst()
            .map(x -> x.tableInfo().getVersion()).orElse(0L);
        if (!hold(e, version)) {
          throw e;
        }
        // its transactions before the refused one still go in
        batch = call.stream().filter(x -> x.tableId() != e.tableId() || x.commitTs() < e.commitTs()).toList();
        reached.keySet().removeIf(t -> t.tableId == e.tableId());
        continue;
      }
      checkpointTs = Math.max(checkpointTs, cf);
      for (Map.Entry<FollowedTable, Checkpoint> a : after.entrySet()) {
        applied(a.getKey(), a.getValue());
      }
      return;
    }
  }

  /** The followed table whose head is the schema change first in {@link DdlOrder}, or null. */
  private FollowedTable nextDdl() {
    FollowedTable best = null;
    DdlChange bestDdl = null;
    for (FollowedTable t : roster.live()) {
      Entry e = inbox.peek(t);
      if (e != null && e.kind() == Entry.Kind.DDL && (bestDdl == null || DdlOrder.ORDER.compare(e.ddl(), bestDdl) < 0)) {
        best = t;
        bestDdl = e.ddl();
      }
    }
    return best;
  }

  /**
   * Whether the schema change at {@code t}'s head may run: no followed table can still deliver a change
   * at or before its commit ts, and every table created by then is listed.
   */
  private boolean ready(FollowedTable t) {
    DdlChange ddl = inbox.peek(t).ddl();
    long ts = ddl.commitTs();
    if (roster.listedThroughTs() < ts) {
      wantsListing = true;
      return false;
    }
    for (FollowedTable u : roster.live()) {
      if (u == t) {
        continue;
      }
      Entry head = inbox.peek(u);
      if (head != null && head.kind() == Entry.Kind.DDL) {
        continue;   // it waits at a schema change that comes later (nextDdl took the first)
      }
      if (inbox.receivedThrough(u) < ts || (head != null && head.ts() <= ts)) {
        return false;
      }
    }
    return true;
  }
}
