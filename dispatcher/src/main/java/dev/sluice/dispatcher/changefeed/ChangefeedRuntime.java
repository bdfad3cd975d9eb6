package dev.sluice.dispatcher.changefeed;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.sink.Sink;
import java.util.ArrayList;
import dev.sluice.dispatcher.SnapshotCursor;
import dev.sluice.dispatcher.sink.SinkCheckpoint;
import dev.sluice.dispatcher.sink.TableSnapshot;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one changefeed in this process: follows the tables its {@link TableFilter} takes (those the sink's
 * progress holds, each from its own position, and those ListTables lists, from the later of the start ts
 * and their creation), one dispatcher per table, and feeds the sink as its {@link ApplyMode} says. It
 * polls ListTables to pick up tables created later (from their creation ts) and ends the streams of
 * dropped ones (after their DROP TABLE is applied, or once their progress reached the ts of the listing
 * that no longer had them); a table dropped while the changefeed was not running is still resumed, so its
 * last rows and its DROP are applied.
 *
 * <p>Ordering: {@link ApplyMode#TRANSACTION} (the default) applies every upstream transaction whole, in
 * commit order across tables, one target transaction per batch of them with the changefeed checkpoint
 * ({@link TransactionalApplier}); {@link ApplyMode#TABLE} applies each table's transactions as they arrive,
 * without cross-table atomicity ({@link TablewiseApplier}). In both, schema changes run in commit order
 * across tables (a parent's CREATE before its children's). The changefeed checkpoint written with each
 * sink call is the minimum over followed tables of what they have applied (with none followed, the ts of
 * the last table listing), and each dispatcher is acknowledged its own table's position.
 * {@link #status()} warns about include and exclude rules that match no listed table, and the log says so
 * once when a rule stops or starts matching.
 *
 * <p>Tables: a table the sink cannot apply (no key and no old row, see
 * {@link dev.sluice.dispatcher.sink.RowIdentityMissingException}) is held with the fix in its status while
 * the others go on, and followed again from its next schema change. Volatile defaults a schema change
 * added are listed in {@link ChangefeedStatus#divergences()}.
 *
 * <p>Snapshots ({@link InitialLoad}): on its first start (the sink holds no checkpoint) a changefeed that loads
 * existing rows subscribes each table that existed at its start ts with a snapshot; the sink records each
 * table's cursor with the chunk's rows ({@link dev.sluice.dispatcher.sink.TableSnapshot}), so a later start
 * continues it and a finished one is never read again. {@link #snapshot(List)} reads tables again on request;
 * a column added with a volatile default, and a held table that gains a key, are read again by themselves.
 *
 * <p>Threads: listeners only enqueue into their table's bounded queue ({@link Inbox}; a full queue blocks
 * that listener, which shrinks that dispatcher's credit: back-pressure up to the broker); one applier
 * thread owns every other piece of state, calls the sink, and retries a transiently failing sink with
 * backoff. A fatal error (an unsupported DDL, a refused statement, a rejected subscription) stops the
 * changefeed: {@link #completion()} fails with it and {@link #status()} shows it.
 *
 * <pre>{@code
 * try (SluiceClient client = SluiceClient.connect(ClientConfig.of("127.0.0.1:8300"));
 *      JdbcUpsertSink sink = JdbcUpsertSink.open(JdbcSinkConfig.of(url, user, pw, "cf1"));
 *      ChangefeedRuntime cf = ChangefeedRuntime.start(client,
 *          ChangefeedDefinition.of("cf1", TableFilter.of("public.*"), 0), sink)) {
 *   cf.snapshot(List.of("public.orders"));   // read one table again, changes flowing on
 *   cf.completion().toCompletableFuture().join();
 * }
 * }</pre>
 */
public final class ChangefeedRuntime implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ChangefeedRuntime.class);
  /** Entries queued per table before its listener waits. */
  private static final int QUEUE_ENTRIES = 2_000;
  /** A listing asked for early (a schema change waits for it) comes at most this often. */
  private static final long EARLY_LISTING_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final ChangefeedDefinition definition;
  private final Inbox inbox = new Inbox(QUEUE_ENTRIES);
  private final TableRoster roster;
  private final Applier applier;
  private final CompletableFuture<Void> completion = new CompletableFuture<>();
  private final CountDownLatch stop = new CountDownLatch(1);
  private final Thread thread;
  private final SinkGate gate;
  private volatile ChangefeedStatus status;
  private ChangefeedStatus.State state = ChangefeedStatus.State.STARTING;
  private long nextPollNanos;
  private long lastPollNanos;
  private long lastSampleNanos;
  /** Requests from other threads (snapshot, pause, ...), run by the applier thread between its steps. */
  private final ConcurrentLinkedQueue<Command> commands = new ConcurrentLinkedQueue<>();
  private final Sink sink;

  /** A request and its answer. */
  private record Command(Supplier<List<String>> action, CompletableFuture<List<String>> done) {}

  private ChangefeedRuntime(SluiceClient client, ChangefeedDefinition definition, Sink sink) {
    this.definition = definition;
    this.sink = sink;
    long checkpointTs = Math.max(definition.startTs(), sink.checkpoint().checkpointTs());
    this.roster = new TableRoster(client, definition, sink, inbox, checkpointTs);
    this.thread = new Thread(this::run, "sluice-changefeed-" + definition.id());
    this.thread.setDaemon(true);
    this.gate = new SinkGate(thread);
    this.applier = definition.applyMode() == ApplyMode.TRANSACTION
        ? new TransactionalApplier(definition, sink, roster, inbox, stop, gate, this::retrying, checkpointTs)
        : new TablewiseApplier(definition, sink, roster, inbox, stop, gate, this::retrying, checkpointTs);
    this.status = new ChangefeedStatus(definition.id(), state, checkpointTs, List.of(), null, List.of(),
        definition.applyMode(), List.of());
  }

  /** Starts the changefeed on {@code client}, writing to {@code sink}; returns at once. */
  public static ChangefeedRuntime start(SluiceClient client, ChangefeedDefinition definition, Sink sink) {
    ChangefeedRuntime runtime = new ChangefeedRuntime(client, definition, sink);
    runtime.thread.start();
    return runtime;
  }

  /** Where the changefeed stands now: state, checkpoint, each table, warnings. */
  public ChangefeedStatus status() {
    return status;
  }

  /** Completes when the changefeed is closed; fails with the error that stopped it. */
  public CompletionStage<Void> completion() {
    return completion.minimalCompletionStage();
  }

  /**
   * Reads {@code tables} ("schema.table"; empty: every followed table) again from the start, merged into their
   * changes, which keep flowing: a re-snapshot (for example after an include rule was widened to a table
   * whose old rows are missing, or after a bulk change made without logging). Completes with the tables it
   * reads; fails with {@link IllegalArgumentException} naming a table the changefeed does not follow or cannot
   * read again (no key: its READ rows would be appended once more).
   */
  public CompletionStage<List<String>> snapshot(List<String> tables) {
    return command(tables, t -> t.keyed ? null : "has no key (its READ rows would be appended again)", t ->
        roster.resnapshot(t, "read again on request"));
  }

  /** Pauses the running snapshots of {@code tables} (empty: all); their changes go on. Completes with the tables paused. */
  public CompletionStage<List<String>> pauseSnapshot(List<String> tables) {
    return command(tables, t -> null, t -> {
      if (t.snapshotState != TableSnapshot.State.RUNNING) {
        return false;
      }
      t.handle.pauseSnapshot();
      t.snapshotState = TableSnapshot.State.PAUSED;
      t.snapshotRecords.add(s -> s.in(TableSnapshot.State.PAUSED));
      return true;
    });
  }

  /** Continues the paused snapshots of {@code tables} (empty: all) where they stopped. */
  public CompletionStage<List<String>> resumeSnapshot(List<String> tables) {
    return command(tables, t -> null, t -> {
      if (t.snapshotState != TableSnapshot.State.PAUSED) {
        return false;
      }
      if (t.handle.snapshotPaused()) {
        t.handle.resumeSnapshot();
      } else {   // paused by an earlier run: this subscription has no snapshot, so it starts one at the cursor
        SinkCheckpoint.TableProgress p = sink.checkpoint().tables().get(t.tableId);
        t.handle.snapshot(p == null ? SnapshotCursor.start() : p.snapshot().cursor());
      }
      t.snapshotState = TableSnapshot.State.RUNNING;
      t.sampleRows = -1;
      t.snapshotRecords.add(s -> s.in(TableSnapshot.State.RUNNING));
      return true;
    });
  }

  /** Ends the running or paused snapshots of {@code tables} (empty: all) for good; their changes go on. */
  public CompletionStage<List<String>> cancelSnapshot(List<String> tables) {
    return command(tables, t -> null, t -> {
      if (t.snapshotState != TableSnapshot.State.RUNNING && t.snapshotState != TableSnapshot.State.PAUSED) {
        return false;
      }
      t.handle.cancelSnapshot();
      t.snapshotState = TableSnapshot.State.CANCELLED;
      t.snapshotReason = "cancelled on request";
      t.snapshotRecords.add(s -> s.in(TableSnapshot.State.CANCELLED));
      return true;
    });
  }

  /**
   * Runs {@code action} on the applier thread for each named followed table (every one when {@code names} is
   * empty); a name not followed, or one {@code refuse} has a reason for, fails the whole request before it acts.
   */
  private CompletionStage<List<String>> command(List<String> names, Function<FollowedTable, String> refuse,
      Predicate<FollowedTable> action) {
    CompletableFuture<List<String>> done = new CompletableFuture<>();
    commands.add(new Command(() -> {
      List<FollowedTable> chosen = new ArrayList<>();
      if (names == null || names.isEmpty()) {
        for (FollowedTable t : roster.live()) {
          if (t.handle != null && refuse.apply(t) == null) {
            chosen.add(t);
          }
        }
      } else {
        for (String n : names) {
          FollowedTable t = roster.byName(n);
          if (t == null || t.handle == null) {
            FollowedTable held = roster.anyByName(n);   // known, but held, waiting or ended: say which and why
            throw new IllegalArgumentException("table \"" + n + "\" is not followed by changefeed " + definition.id()
                + " now" + (held == null ? "" : " (" + held.phase + (held.note == null ? "" : ": " + held.note) + ")"));
          }
          String why = refuse.apply(t);
          if (why != null) {
            throw new IllegalArgumentException("table \"" + n + "\" " + why);
          }
          chosen.add(t);
        }
      }
      List<String> acted = new ArrayList<>();
      for (FollowedTable t : chosen) {
        if (action.test(t)) {
          acted.add(t.name);
        }
      }
      return acted;
    }, done));
    if (completion.isDone()) {
      failCommands();
    }
    return done;
  }

  /** Runs the queued requests, then answers them once the status shows what they did. */
  private void runCommands() {
    if (commands.isEmpty()) {
      return;
    }
    List<Runnable> answers = new ArrayList<>();
    for (Command next = commands.poll(); next != null; next = commands.poll()) {
      Command c = next;
      try {
        List<String> acted = c.action().get();
        answers.add(() -> c.done().complete(acted));
      } catch (RuntimeException e) {
        answers.add(() -> c.done().completeExceptionally(e));
      }
    }
    publishStatus(null);
    answers.forEach(Runnable::run);
  }

  /** The runtime stopped: requests still queued have nothing to act on. */
  private void failCommands() {
    for (Command c = commands.poll(); c != null; c = commands.poll()) {
      c.done().completeExceptionally(new IllegalStateException("changefeed " + definition.id() + " is not running"));
    }
  }

  /** Stops applying and removes every dispatcher; the sink stays open (its owner closes it). */
  @Override
  public void close() {
    stop.countDown();
    inbox.close();
    gate.close();   // interrupts the waits, never a sink call (it ends first)
    try {
      thread.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---- the applier thread --------------------------------------------------------------------

  private void run() {
    try {
      roster.resumeFromProgress();
      applier.settleSnapshots();
      while (stop.getCount() > 0) {
        long now = System.nanoTime();
        if (now - nextPollNanos >= 0 || (applier.wantsListing() && now - lastPollNanos >= EARLY_LISTING_NANOS)) {
          lastPollNanos = now;
          applier.listingTaken();
          for (FollowedTable gone : roster.discover()) {
            applier.ended(gone, "dropped (not listed at ts " + gone.goneAtTs + ")", gone.goneAtTs);
          }
          if (applier.betweenTransactions()) {
            applier.settleSnapshots();   // a snapshot asked for is recorded before any row of its table
          }
          nextPollNanos = System.nanoTime() + definition.tablePollInterval().toNanos();
          if (roster.listed() && state == ChangefeedStatus.State.STARTING) {
            state = ChangefeedStatus.State.RUNNING;
          }
        }
        runCommands();
        long seen = inbox.puts();
        boolean progressed = applier.step();
        if (applier.betweenTransactions()) {
          applier.settleSnapshots();
        }
        if (progressed && state == ChangefeedStatus.State.RETRYING) {
          state = ChangefeedStatus.State.RUNNING;
        }
        publishStatus(null);
        if (!progressed) {
          long next = applier.wantsListing() ? lastPollNanos + EARLY_LISTING_NANOS : nextPollNanos;
          inbox.awaitPut(seen, Math.max(1, Math.min(200, TimeUnit.NANOSECONDS.toMillis(next - System.nanoTime()))));
        }
      }
      finish(null);
    } catch (InterruptedException e) {
      finish(null);
    } catch (SluiceException e) {
      LOG.atError().addKeyValue("changefeedId", definition.id()).addKeyValue("code", e.code()).setCause(e)
          .log("changefeed stopped");
      finish(e);
    } catch (RuntimeException e) {
      LOG.atError().addKeyValue("changefeedId", definition.id()).setCause(e).log("changefeed stopped by a bug");
      finish(SluiceException.of(ErrorCode.INTERNAL, "changefeed " + definition.id() + " failed: " + e, e));
    }
  }

  /** Once a second: the READ rows each snapshot has applied (the sink's count) and the rate since the last sample. */
  private void sampleSnapshots() {
    long now = System.nanoTime();
    if (now - lastSampleNanos < TimeUnit.SECONDS.toNanos(1)) {
      return;
    }
    lastSampleNanos = now;
    Map<Long, SinkCheckpoint.TableProgress> stored = null;
    for (FollowedTable t : roster.all()) {
      if (t.snapshotState == TableSnapshot.State.NONE) {
        continue;
      }
      if (stored == null) {
        stored = sink.checkpoint().tables();
      }
      SinkCheckpoint.TableProgress p = stored.get(t.tableId);
      long rows = p == null ? t.rowsDone : p.snapshot().rows();
      if (p != null) {
        t.snapshotCursor = p.snapshot().cursor();
      }
      if (t.sampleRows >= 0 && rows >= t.sampleRows && now > t.sampleNanos) {
        double rate = (rows - t.sampleRows) * 1e9 / (now - t.sampleNanos);
        t.rowsPerSecond = t.rowsPerSecond == 0 ? rate : 0.5 * t.rowsPerSecond + 0.5 * rate;
      }
      t.sampleRows = rows;
      t.sampleNanos = now;
      t.rowsDone = rows;
    }
  }

  private static ChangefeedStatus.SnapshotStatus snapshotStatus(FollowedTable t) {
    if (t.snapshotState == TableSnapshot.State.NONE) {
      return null;
    }
    boolean done = t.snapshotState == TableSnapshot.State.DONE;
    long estimate = t.rowsEstimate;
    Double percent = done ? Double.valueOf(100) : estimate > 0
        ? Double.valueOf(Math.min(100.0, Math.floor(t.rowsDone * 1000.0 / estimate) / 10)) : null;
    boolean running = t.snapshotState == TableSnapshot.State.RUNNING;
    double rate = running ? t.rowsPerSecond : 0;
    Long eta = running && rate > 0 && estimate > 0 ? Long.valueOf((long) Math.ceil(Math.max(0, estimate - t.rowsDone)
        / rate)) : done ? Long.valueOf(0) : null;
    return new ChangefeedStatus.SnapshotStatus(t.snapshotState, t.rowsDone, estimate, percent, rate, eta,
        t.snapshotReason, t.snapshotCursor);
  }

  private void retrying(String message) {
    state = ChangefeedStatus.State.RETRYING;
    publishStatus(message);
  }

  private void finish(SluiceException error) {
    roster.closeAll();
    inbox.close();
    failCommands();
    state = error == null ? ChangefeedStatus.State.STOPPED : ChangefeedStatus.State.FAILED;
    publishStatus(error == null ? null : error.getMessage());
    if (error == null) {
      completion.complete(null);
    } else {
      completion.completeExceptionally(error);
    }
    failCommands();
  }

  private void publishStatus(String error) {
    sampleSnapshots();
    List<ChangefeedStatus.TableStatus> ts = new ArrayList<>();
    for (FollowedTable t : roster.all()) {
      ts.add(new ChangefeedStatus.TableStatus(t.tableId, t.name, t.handle == null ? null : t.handle.state(), t.applied,
          t.resolvedTs, Math.max(0, t.resolvedTs - t.applied.ts()), t.phase, t.note, snapshotStatus(t)));
    }
    List<String> warnings = new ArrayList<>();
    for (String rule : roster.unmatchedRules()) {
      warnings.add((rule.startsWith("!") ? "exclude rule \"" + rule.substring(1) : "include rule \"" + rule)
          + "\" matches no table (a table created later that matches it is " + (rule.startsWith("!") ? "excluded"
          : "followed") + "); check its spelling: names are case-sensitive, * and ? are the only wildcards");
    }
    status = new ChangefeedStatus(definition.id(), state, applier.checkpointTs(), ts, error, warnings,
        definition.applyMode(), applier.divergences());
  }
}
