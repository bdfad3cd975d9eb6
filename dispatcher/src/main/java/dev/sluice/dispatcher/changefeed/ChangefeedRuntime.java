package dev.sluice.dispatcher.changefeed;

import dev.sluice.api.TableSpan;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.api.error.TransientException;
import dev.sluice.api.v1.DdlType;
import dev.sluice.api.v1.TableEntry;
import dev.sluice.api.v1.TableList;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.dispatcher.sink.Sink;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one changefeed in this process: lists the tables (ListTables), subscribes one dispatcher per
 * table its {@link TableFilter} follows, from the later of the start ts, the table's creation ts and
 * what the {@link Sink} already holds, and feeds the sink. It polls ListTables to pick up tables
 * created later (from their creation ts) and ends the dispatchers of dropped tables (after a DROP
 * TABLE, or once the table's progress reached the ts of the listing that no longer had it).
 *
 * <p>Ordering: per table, transactions reach the sink in commit order; tables are interleaved as they
 * arrive, so there is <b>no cross-table atomicity</b>: a transaction that touched two tables reaches the
 * sink as two transactions, possibly in different sink calls. The changefeed checkpoint written with
 * each sink call is the minimum over tables of what they have applied (a table's resolved ts counts
 * once everything before it was applied), and each dispatcher is acknowledged its own table's position.
 *
 * <p>Threads: listeners only enqueue into a bounded queue (a full queue blocks the listener, which
 * shrinks that dispatcher's credit: back-pressure up to the broker); one applier thread owns every
 * other piece of state, calls the sink, and retries a transiently failing sink with backoff. A fatal
 * error (an unsupported DDL, a refused statement, a rejected subscription) stops the changefeed:
 * {@link #completion()} fails with it and {@link #status()} shows it.
 *
 * <pre>{@code
 * try (SluiceClient client = SluiceClient.connect(ClientConfig.of("127.0.0.1:8300"));
 *      JdbcUpsertSink sink = JdbcUpsertSink.open(JdbcSinkConfig.of(url, user, pw, "cf1"));
 *      ChangefeedRuntime cf = ChangefeedRuntime.start(client,
 *          ChangefeedDefinition.of("cf1", TableFilter.of("public.*"), 0), sink)) {
 *   cf.completion().toCompletableFuture().join();
 * }
 * }</pre>
 */
public final class ChangefeedRuntime implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ChangefeedRuntime.class);
  private static final int QUEUE_ENTRIES = 10_000;

  private enum Kind { TXN, DDL, RESOLVED, ERROR }

  private record Entry(Kind kind, TableState table, Transaction txn, DdlChange ddl, long ts, SluiceException error) {}

  /** One followed table; touched by the applier thread only. */
  private static final class TableState {
    final long tableId;
    String name;
    SubscriptionHandle handle;
    Checkpoint applied;
    long resolvedTs;
    long goneAtTs = -1;
    boolean ended;
    /** A listing at a ts at or above this must name the table unless it was dropped (it existed from here on). */
    final long existsFromTs;

    TableState(long tableId, String name, Checkpoint applied, long existsFromTs) {
      this.tableId = tableId;
      this.name = name;
      this.applied = applied;
      this.existsFromTs = existsFromTs;
    }
  }

  private final SluiceClient client;
  private final ChangefeedDefinition definition;
  private final Sink sink;
  private final BlockingQueue<Entry> queue = new ArrayBlockingQueue<>(QUEUE_ENTRIES);
  private final Map<Long, TableState> tables = new LinkedHashMap<>();
  private final CompletableFuture<Void> completion = new CompletableFuture<>();
  private final CountDownLatch stop = new CountDownLatch(1);
  private final Thread applier;
  private volatile ChangefeedStatus status;
  private ChangefeedStatus.State state = ChangefeedStatus.State.STARTING;
  private long checkpointTs;
  /**
   * The ts of the last successful ListTables: tables created after it are not known yet, so the
   * changefeed checkpoint (which promises every table's changes up to it) never passes it.
   */
  private long listedThroughTs;
  private Entry pushedBack;
  private long nextPollNanos;

  private ChangefeedRuntime(SluiceClient client, ChangefeedDefinition definition, Sink sink) {
    this.client = client;
    this.definition = definition;
    this.sink = sink;
    this.checkpointTs = Math.max(definition.startTs(), sink.checkpoint().checkpointTs());
    this.listedThroughTs = checkpointTs;
    this.status = new ChangefeedStatus(definition.id(), state, checkpointTs, List.of(), null);
    this.applier = new Thread(this::run, "sluice-changefeed-" + definition.id());
    this.applier.setDaemon(true);
  }

  /** Starts the changefeed on {@code client}, writing to {@code sink}; returns at once. */
  public static ChangefeedRuntime start(SluiceClient client, ChangefeedDefinition definition, Sink sink) {
    ChangefeedRuntime runtime = new ChangefeedRuntime(client, definition, sink);
    runtime.applier.start();
    return runtime;
  }

  public ChangefeedStatus status() {
    return status;
  }

  /** Completes when the changefeed is closed; fails with the error that stopped it. */
  public CompletionStage<Void> completion() {
    return completion.minimalCompletionStage();
  }

  /** Stops applying and removes every dispatcher; the sink stays open (its owner closes it). */
  @Override
  public void close() {
    stop.countDown();
    applier.interrupt();
    try {
      applier.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---- the applier thread --------------------------------------------------------------------

  private void run() {
    try {
      while (stop.getCount() > 0) {
        if (System.nanoTime() - nextPollNanos >= 0) {
          discoverTables();
          nextPollNanos = System.nanoTime() + definition.tablePollInterval().toNanos();
          if (pushedBack == null) {
            flush(List.of(), Map.of()); // a newer listing may let the checkpoint move on
          }
        }
        Entry first = pushedBack != null ? pushedBack : queue.poll(Math.min(200,
            Math.max(1, TimeUnit.NANOSECONDS.toMillis(nextPollNanos - System.nanoTime()))), TimeUnit.MILLISECONDS);
        pushedBack = null;
        if (first != null) {
          process(first);
        }
        publishStatus(null);
      }
      finish(null);
    } catch (InterruptedException e) {
      finish(null);
    } catch (SluiceException e) {
      LOG.atError().addKeyValue("changefeedId", definition.id()).addKeyValue("code", e.code()).setCause(e)
          .log("changefeed stopped");
      finish(e);
    } catch (RuntimeException e) {
      finish(SluiceException.of(ErrorCode.INTERNAL, "changefeed " + definition.id() + " failed: " + e, e));
    }
  }

  private void process(Entry first) throws InterruptedException {
    List<Transaction> txns = new ArrayList<>();
    Map<TableState, Checkpoint> reached = new LinkedHashMap<>();
    Entry e = first;
    while (e != null) {
      switch (e.kind()) {
        case TXN -> {
          txns.add(e.txn());
          reached.merge(e.table(), e.txn().checkpoint(), Checkpoint::max);
        }
        case RESOLVED -> {
          e.table().resolvedTs = Math.max(e.table().resolvedTs, e.ts());
          reached.merge(e.table(), Checkpoint.at(e.ts()), Checkpoint::max);
        }
        case DDL, ERROR -> {
          if (!txns.isEmpty() || !reached.isEmpty()) {
            pushedBack = e;       // apply what came before it first
            flush(txns, reached);
            return;
          }
          if (e.kind() == Kind.DDL) {
            applyDdl(e.table(), e.ddl());
          } else {
            onSubscriptionError(e.table(), e.error());
          }
          return;
        }
      }
      e = txns.size() >= definition.maxBatchTransactions() ? null : queue.poll();
    }
    flush(txns, reached);
  }

  private void flush(List<Transaction> txns, Map<TableState, Checkpoint> reached) throws InterruptedException {
    Map<TableState, Checkpoint> after = new LinkedHashMap<>();
    for (TableState t : tables.values()) {
      after.put(t, reached.containsKey(t) ? t.applied.max(reached.get(t)) : t.applied);
    }
    long cf = minimum(after);
    if (txns.isEmpty()) {
      if (cf > checkpointTs) {
        withRetry(() -> sink.advance(cf));
      }
    } else {
      withRetry(() -> sink.apply(txns, cf));
    }
    checkpointTs = Math.max(checkpointTs, cf);
    for (Map.Entry<TableState, Checkpoint> a : after.entrySet()) {
      TableState t = a.getKey();
      t.applied = a.getValue();
      if (!t.ended && t.handle != null) {
        t.handle.acknowledge(t.applied);
      }
      if (!t.ended && t.goneAtTs >= 0 && t.applied.ts() >= t.goneAtTs) {
        end(t, "dropped (not listed at ts " + t.goneAtTs + ")");
      }
    }
    state = ChangefeedStatus.State.RUNNING;
  }

  private void applyDdl(TableState t, DdlChange ddl) throws InterruptedException {
    withRetry(() -> sink.applyDdl(ddl, checkpointTs));
    t.applied = t.applied.max(Checkpoint.at(ddl.commitTs() - 1));
    t.name = ddl.tableName();
    if (!t.ended && t.handle != null) {
      t.handle.acknowledge(t.applied);
    }
    if (ddl.ddlType() == DdlType.DDL_TYPE_DROP_TABLE) {
      end(t, "DROP TABLE at " + ddl.commitTs());
    }
  }

  private void onSubscriptionError(TableState t, SluiceException error) {
    if (error.code() == ErrorCode.TABLE_DROPPED || error.code() == ErrorCode.UNKNOWN_TABLE) {
      LOG.atInfo().addKeyValue("changefeedId", definition.id()).addKeyValue("table", t.name)
          .log("table is gone; its dispatcher ends: {}", error.getMessage());
      end(t, error.code().name());
      return;
    }
    throw error;
  }

  /** Calls {@code action} until it succeeds, backing off on transient sink errors. */
  private void withRetry(Runnable action) throws InterruptedException {
    for (int attempt = 0; ; attempt++) {
      try {
        action.run();
        return;
      } catch (TransientException e) {
        state = ChangefeedStatus.State.RETRYING;
        long delay = Math.min(definition.retryBackoffMax().toMillis(), 50L << Math.min(attempt, 16));
        LOG.atWarn().addKeyValue("changefeedId", definition.id()).addKeyValue("attempt", attempt + 1)
            .addKeyValue("delayMs", delay).log("sink failed transiently; retrying: {}", e.getMessage());
        publishStatus(e.getMessage());
        if (stop.await(delay, TimeUnit.MILLISECONDS)) {
          throw new InterruptedException("closed while retrying");
        }
      }
    }
  }

  private long minimum(Map<TableState, Checkpoint> positions) {
    long min = Long.MAX_VALUE;
    for (Map.Entry<TableState, Checkpoint> p : positions.entrySet()) {
      if (!p.getKey().ended) {
        min = Math.min(min, p.getValue().ts());
      }
    }
    long known = min == Long.MAX_VALUE ? checkpointTs : Math.max(min, 0);
    return Math.min(known, Math.max(listedThroughTs, checkpointTs));
  }

  // ---- tables --------------------------------------------------------------------------------

  private void discoverTables() throws InterruptedException {
    TableList list;
    try {
      list = client.listTables(0).toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      LOG.atInfo().addKeyValue("changefeedId", definition.id()).log("ListTables failed; will retry: {}", String.valueOf(e));
      return;
    }
    Set<Long> listed = new HashSet<>();
    for (TableEntry entry : list.getTablesList()) {
      var info = entry.getTableInfo();
      listed.add(info.getTableId());
      String name = info.getSchemaName() + "." + info.getTableName();
      if (!tables.containsKey(info.getTableId()) && definition.filter().matches(name)) {
        subscribe(info.getTableId(), name, entry.getCreatedTs());
      }
    }
    // a listing older than one already seen (a broker that lags, after a failover) cannot tell a drop
    boolean current = list.getAtTs() >= listedThroughTs;
    for (TableState t : tables.values()) {
      if (t.ended) {
        continue;
      }
      if (listed.contains(t.tableId)) {
        t.goneAtTs = -1;   // listed again: whatever made it look gone was not a drop
      } else if (current && t.goneAtTs < 0 && list.getAtTs() > t.existsFromTs) {
        t.goneAtTs = list.getAtTs();
        if (t.applied.ts() >= t.goneAtTs) {
          end(t, "dropped (not listed at ts " + t.goneAtTs + ")");
        }
      }
    }
    listedThroughTs = Math.max(listedThroughTs, list.getAtTs());
    if (state == ChangefeedStatus.State.STARTING) {
      state = ChangefeedStatus.State.RUNNING;
    }
  }

  private void subscribe(long tableId, String name, long createdTs) {
    // just before the CREATE: rows written in the creating transaction share its commit ts
    Checkpoint from = sink.checkpoint().forTable(tableId).max(Checkpoint.at(definition.startTs()))
        .max(Checkpoint.at(Math.max(0, createdTs - 1)));
    // the dispatcher resumes at from.ts(); rows inside a partly applied transaction are skipped by the sink
    TableState t = new TableState(tableId, name, Checkpoint.at(from.ts()), createdTs);
    tables.put(tableId, t);
    LOG.atInfo().addKeyValue("changefeedId", definition.id()).addKeyValue("table", name)
        .addKeyValue("startTs", from.ts()).log("following table");
    t.handle = client.subscribe(Subscription.span(TableSpan.wholeTable(tableId)).from(from.ts())
        .changefeed(definition.id()), new TableListener(t));
  }

  private void end(TableState t, String why) {
    t.ended = true;
    LOG.atInfo().addKeyValue("changefeedId", definition.id()).addKeyValue("table", t.name).log("table ended: {}", why);
    if (t.handle != null) {
      t.handle.close();
    }
  }

  private void finish(SluiceException error) {
    for (TableState t : tables.values()) {
      if (!t.ended && t.handle != null) {
        t.handle.close();
      }
    }
    state = error == null ? ChangefeedStatus.State.STOPPED : ChangefeedStatus.State.FAILED;
    publishStatus(error == null ? null : error.getMessage());
    if (error == null) {
      completion.complete(null);
    } else {
      completion.completeExceptionally(error);
    }
  }

  private void publishStatus(String error) {
    List<ChangefeedStatus.TableStatus> ts = new ArrayList<>();
    for (TableState t : tables.values()) {
      ts.add(new ChangefeedStatus.TableStatus(t.tableId, t.name, t.handle == null ? null : t.handle.state(), t.applied,
          t.resolvedTs, Math.max(0, t.resolvedTs - t.applied.ts())));
    }
    status = new ChangefeedStatus(definition.id(), state, checkpointTs, ts, error);
  }

  /** Enqueues a table's deliveries for the applier; blocks when the queue is full (back-pressure). */
  private final class TableListener implements ChangeListener {
    private final TableState table;

    TableListener(TableState table) {
      this.table = table;
    }

    @Override
    public void onTransaction(Transaction transaction) {
      put(new Entry(Kind.TXN, table, transaction, null, transaction.commitTs(), null));
    }

    @Override
    public void onDdl(DdlChange ddl) {
      put(new Entry(Kind.DDL, table, null, ddl, ddl.commitTs(), null));
    }

    @Override
    public void onResolved(long ts) {
      put(new Entry(Kind.RESOLVED, table, null, null, ts, null));
    }

    @Override
    public void onError(SluiceException error) {
      put(new Entry(Kind.ERROR, table, null, null, 0, error));
    }

    private void put(Entry e) {
      try {
        while (stop.getCount() > 0 && !queue.offer(e, 100, TimeUnit.MILLISECONDS)) {
          // full: the applier is behind; waiting here is what slows this dispatcher's credit
        }
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
