package dev.sluice.dispatcher.changefeed;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.TransientException;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.sink.RowIdentityMissingException;
import dev.sluice.dispatcher.sink.Sink;
import dev.sluice.dispatcher.sink.SinkChange;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * {@link ApplyMode#TRANSACTION}: the frontier is the lowest ts up to which every followed table's stream
 * has arrived whole (and the tables listed cover it); everything at or below it is merged across tables in
 * commit-ts order, each upstream transaction's parts in their place ({@link DdlOrder} for schema changes,
 * then by their first row), and applied with {@link Sink#applyInOrder} as one target transaction whose
 * checkpoint is the frontier: up to {@code maxBatchTransactions} upstream transactions per target
 * transaction, never part of one.
 *
 * <p>A transaction that arrives in parts (a large one, or one split at its schema changes) once it is the
 * next to apply is streamed into one open target transaction, part by part as they come, and committed
 * when every table's stream has passed it, so its size is not bounded by memory. A transient failure of
 * the first call of such a transaction is retried; of a later one, the parts already sent are gone with the
 * rolled-back target transaction and the changefeed stops with a transient error (a hosted changefeed is
 * then restarted from its checkpoint).
 */
final class TransactionalApplier extends Applier {

  /** Within one ts: schema changes in their order, then table parts by their first row, then by table. */
  private static final Comparator<Head> ORDER = Comparator.comparingLong((Head h) -> h.entry.ts())
      .thenComparingLong(h -> h.entry.position())
      .thenComparingInt(h -> h.entry.kind() == Entry.Kind.DDL ? 0 : 1)
      .thenComparing((a, b) -> a.entry.kind() == Entry.Kind.DDL && b.entry.kind() == Entry.Kind.DDL
          ? DdlOrder.ORDER.compare(a.entry.ddl(), b.entry.ddl()) : 0)
      .thenComparingLong(h -> h.table.tableId);

  private record Head(FollowedTable table, Entry entry) {}

  /** Commit ts of the transaction applied into the open target transaction, 0 when none is open. */
  private long openTs;
  /** What the open target transaction holds, for the tables' state once it commits. */
  private final List<Head> open = new ArrayList<>();
  /** Tables whose stream ended while a target transaction was open. */
  private final List<FollowedTable> endedInOpen = new ArrayList<>();

  TransactionalApplier(ChangefeedDefinition definition, Sink sink, TableRoster roster, Inbox inbox,
      CountDownLatch stop, SinkGate gate, Consumer<String> retrying, long checkpointTs) {
    super(definition, sink, roster, inbox, stop, gate, retrying, checkpointTs);
  }

  @Override
  boolean step() throws InterruptedException {
    for (FollowedTable t : roster.live()) {
      Entry e = inbox.peek(t);
      if (e != null && e.kind() == Entry.Kind.ERROR) {
        inbox.poll(t);
        if (openTs > 0 && TableRoster.isGone(e.error())) {
          roster.end(t, e.error().code().name() + ": " + e.error().getMessage());
          endedInOpen.add(t);   // recorded in the sink once the open target transaction committed
        } else {
          onError(t, e.error());
        }
        return true;
      }
    }
    return openTs > 0 ? continueOpen() : applyUpToFrontier();
  }

  @Override
  boolean betweenTransactions() {
    return openTs == 0;
  }

  /** Every followed table's stream has arrived whole up to this ts, and the listing covers it. */
  private long frontier() {
    long f = roster.listedThroughTs();
    long arrived = Long.MAX_VALUE;
    for (FollowedTable t : roster.live()) {
      arrived = Math.min(arrived, inbox.receivedThrough(t));
    }
    if (arrived != Long.MAX_VALUE && arrived > f) {
      wantsListing = true;   // the streams are ahead of what is known about new tables
    }
    return Math.min(f, arrived);
  }

  private boolean applyUpToFrontier() throws InterruptedException {
    long frontier = frontier();
    List<Head> batch = new ArrayList<>();
    int transactions = 0;
    long lastTs = -1;
    boolean cut = false;
    for (Head h = first(frontier); h != null; h = first(frontier)) {
      if (h.entry.ts() != lastTs && transactions == definition.maxBatchTransactions()) {
        cut = true;
        break;
      }
      inbox.poll(h.table);
      if (h.entry.ts() != lastTs) {
        transactions++;
        lastTs = h.entry.ts();
      }
      batch.add(h);
    }
    long cf = cut ? lastTs : frontier;
    if (!batch.isEmpty() || cf > checkpointTs) {
      commitBatch(batch, Math.max(cf, checkpointTs));
      return true;
    }
    settleQuietTables();
    Head next = first(Long.MAX_VALUE);
    if (next != null && next.entry.ts() == frontier + 1 && roster.listedThroughTs() > frontier) {
      // the next transaction is still arriving in parts: apply them as they come, into one target transaction
      openTs = next.entry.ts();
      return continueOpen();
    }
    return false;
  }

  /** The head first in {@link #ORDER} among the followed tables' heads at or below {@code limit}; watermarks are taken. */
  private Head first(long limit) throws InterruptedException {
    Head best = null;
    for (FollowedTable t : roster.live()) {
      Entry e = inbox.peek(t);
      while (e != null && e.kind() == Entry.Kind.RESOLVED && e.ts() <= Math.max(limit, openTs)) {
        inbox.poll(t);
        t.resolvedTs = Math.max(t.resolvedTs, e.ts());
        e = inbox.peek(t);
      }
      if (e == null || e.kind() == Entry.Kind.RESOLVED || e.kind() == Entry.Kind.ERROR || e.ts() > limit) {
        continue;
      }
      Head h = new Head(t, e);
      if (best == null || ORDER.compare(h, best) < 0) {
        best = h;
      }
    }
    return best;
  }

  private void commitBatch(List<Head> batch, long cf) throws InterruptedException {
    List<Head> call = batch;
    while (true) {
      List<SinkChange> changes = changes(call);
      try {
        withRetry(() -> sink.applyInOrder(changes, true, cf));
      } catch (RowIdentityMissingException e) {
        if (!hold(e, versionOf(call, e.tableId()))) {
          throw e;
        }
        // nothing of the call was kept: again without the held table from its refused transaction on
        call = call.stream().filter(h -> h.table.tableId != e.tableId() || h.entry.ts() < e.commitTs()).toList();
        continue;
      }
      checkpointTs = Math.max(checkpointTs, cf);
      committed(call, cf);
      return;
    }
  }

  /**
   * Applies the parts of the open transaction that arrived and that nothing can still come before (every
   * other table has a later part of it queued, or is past it); commits it once every table's stream passed it.
   */
  private boolean continueOpen() throws InterruptedException {
    List<Head> parts = new ArrayList<>();
    for (Head h = first(openTs); h != null && h.entry.ts() == openTs && nothingBefore(h); h = first(openTs)) {
      inbox.poll(h.table);
      parts.add(h);
    }
    boolean whole = frontier() >= openTs;
    if (parts.isEmpty() && !whole) {
      return false;
    }
    boolean firstCall = open.isEmpty();
    while (true) {
      List<SinkChange> changes = changes(parts);
      try {
        if (firstCall) {
          withRetry(() -> sink.applyInOrder(changes, whole, openTs));
        } else {
          call(() -> sink.applyInOrder(changes, whole, openTs));
        }
        break;
      } catch (TransientException e) {
        throw new TransientException(ErrorCode.SINK_UNAVAILABLE, "the target failed inside upstream transaction "
            + openTs + ", whose first parts were applied into the same target transaction and are rolled back with "
            + "it; the changefeed restarts from its checkpoint " + checkpointTs + ": " + e.getMessage(), e);
      } catch (RowIdentityMissingException e) {
        if (!firstCall || !hold(e, versionOf(parts, e.tableId()))) {
          throw e;
        }
        parts = parts.stream().filter(h -> h.table.tableId != e.tableId() || h.entry.ts() < e.commitTs()).toList();
      }
    }
    open.addAll(parts);
    if (whole) {
      checkpointTs = Math.max(checkpointTs, openTs);
      committed(open, openTs);
      open.clear();
      openTs = 0;
      for (FollowedTable t : endedInOpen) {
        withRetry(() -> sink.markDropped(t.tableId, t.name, Math.max(t.applied.ts(), 1)));
      }
      endedInOpen.clear();
    }
    return true;
  }

  /** No followed table can still deliver a part of the open transaction that goes before {@code h}. */
  private boolean nothingBefore(Head h) {
    for (FollowedTable u : roster.live()) {
      if (u == h.table) {
        continue;
      }
      Entry head = inbox.peek(u);
      boolean queued = head != null && head.kind() != Entry.Kind.RESOLVED && head.ts() == openTs;   // later (h is first)
      if (!queued && inbox.receivedThrough(u) < openTs) {
        return false;
      }
    }
    return true;
  }

  private static List<SinkChange> changes(List<Head> heads) {
    List<SinkChange> out = new ArrayList<>(heads.size());
    for (Head h : heads) {
      out.add(h.entry.kind() == Entry.Kind.DDL ? new SinkChange.Schema(h.entry.ddl())
          : new SinkChange.Rows(h.entry.txn()));
    }
    return out;
  }

  private static long versionOf(List<Head> heads, long tableId) {
    for (Head h : heads) {
      if (h.table.tableId == tableId && h.entry.kind() == Entry.Kind.TXN) {
        return h.entry.txn().tableInfo().getVersion();
      }
    }
    return 0;
  }

  /** The target transaction holding {@code heads} committed with checkpoint {@code cf}. */
  private void committed(List<Head> heads, long cf) throws InterruptedException {
    for (Head h : heads) {
      if (h.entry.kind() == Entry.Kind.DDL && h.table.live()) {
        afterDdl(h.table, h.entry.ddl());
      }
    }
    for (FollowedTable t : roster.live()) {
      applied(t, Checkpoint.at(cf));
    }
    settleQuietTables();
  }

  /**
   * A table with nothing but watermarks left, and nothing in an open target transaction, is applied as
   * far as its stream came: its dispatcher learns it, and a table found gone ends.
   */
  private void settleQuietTables() throws InterruptedException {
    for (FollowedTable t : roster.live()) {
      long quiet = inbox.quietThrough(t);
      if (quiet > t.applied.ts()) {
        applied(t, Checkpoint.at(quiet));
      }
    }
  }
}
