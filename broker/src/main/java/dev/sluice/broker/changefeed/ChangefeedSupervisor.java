package dev.sluice.broker.changefeed;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.TransientException;
import dev.sluice.api.secret.Redactor;
import dev.sluice.broker.cluster.ClusterMap;
import dev.sluice.broker.cluster.PlacedChangefeed;
import dev.sluice.dispatcher.sink.FencedOutException;
import io.vertx.core.json.JsonObject;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hosts the broker's changefeeds: decides every change with {@link ChangefeedTransitions}, persists it
 * (synced) in the {@link ChangefeedStore} before acting, runs one {@link HostedRuntime} per NORMAL
 * changefeed, restarts FAILED ones with backoff, records progress, and deletes generation by
 * generation.
 *
 * <p><b>Deletion.</b> DELETE turns the record REMOVING (carrying the generation and the
 * {@link DeleteOptions}) before anything else; the cleanup (stop the runtime, wait until the broker
 * holds none of its dispatchers, then, without keep_meta, remove the sink's checkpoint) runs on the
 * changefeed's lane and is retried with backoff, or at once by another DELETE, until it completes;
 * only then is the record REMOVED. A CREATE of the id is refused while REMOVING, at most one cleanup
 * runs per id, and every report carries its generation, so nothing of an old generation can touch a
 * later one.
 *
 * <p><b>Hosting.</b> Records are cluster objects: every node knows every record (the replicated
 * {@link ClusterMap} plus its own store), but a node runs only the changefeeds it hosts, each with the
 * fencing token of its assignment ({@link #adopt}, {@link #release}, driven by
 * {@link AssignmentFollower}). A record is written by the node hosting it, stamped with its token, or by
 * the coordinator's node while no node hosts it (a create); copies are ordered by
 * {@link ChangefeedRecord#supersedes}, so a replaced owner's late write never wins. Requests that change
 * a changefeed are answered by its host; elsewhere they are refused with CHANGEFEED_MOVING (the admin
 * API forwards them to the host first). A runtime whose sink refuses its token
 * ({@link FencedOutException}) is stopped without touching the record: a newer owner writes it now.
 *
 * <p><b>Concurrency.</b> Every decision runs on one thread ({@code sluice-changefeed-supervisor});
 * the public methods hand work to it and return futures. Starts, stops and cleanups block (JDBC,
 * joins) and run on worker threads, serially per changefeed ({@link FeedLane}), reporting back to the
 * supervisor's thread. The records ({@link ReplicatedRecords}) are written there only and readable anywhere.
 *
 * <p><b>Parts.</b> This class owns the threads and answers the public methods; the parts it hands the
 * work to each have one role and run on the supervisor's thread. {@link ChangefeedRequests} decides
 * create, pause, resume, update and snapshot and builds the views; {@link ChangefeedDeletions} decides
 * deletions and completes their tickets; {@link FeedHandover} adopts and releases changefeeds;
 * {@link RuntimeReports} turns the runtimes' reports and the progress tick into records. All of them
 * write through {@link TransitionCommitter}, which runs a transition's actions on {@link FeedRuns} (the
 * lanes, runs and retry timers). {@link HostedTokens} knows what this node hosts, with which token.
 *
 * <pre>{@code
 * ChangefeedSupervisor s = ChangefeedSupervisor.start(store, ChangefeedConfig.defaults(), sinks, host, vertx,
 *     clock, registry);
 * s.create("orders", spec, false).join();
 * DeletionTicket t = s.delete("orders", DeleteOptions.KEEP_META).join();
 * t.done().get(5, TimeUnit.SECONDS);
 * }</pre>
 */
public final class ChangefeedSupervisor implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ChangefeedSupervisor.class);

  private final ReplicatedRecords records;
  private final HostedTokens tokens;
  private final ChangefeedConfig config;
  private final SinkAdmission admission;
  private final LongSupplier nowMs;
  private final ChangefeedMetrics metrics;
  private final FeedRuns runs;
  private final FeedHandover handover;
  private final RuntimeReports reports;
  private final ChangefeedDeletions deletions;
  private final ChangefeedRequests requests;
  private final ExecutorService decider;
  private final ExecutorService workers;
  private final ScheduledExecutorService timers;

  private ChangefeedSupervisor(ChangefeedStore store, ClusterMap replica, ChangefeedConfig config, SinkConnector sinks,
      HostBroker host, Vertx vertx, CommitClock clock, LongSupplier nowMs, MeterRegistry registry) {
    this.records = new ReplicatedRecords(store, replica);
    this.tokens = new HostedTokens(registry);
    this.config = config;
    this.nowMs = nowMs;
    this.decider = Executors.newSingleThreadExecutor(named("sluice-changefeed-supervisor"));
    this.workers = Executors.newCachedThreadPool(named("sluice-changefeed-worker"));
    this.admission = new SinkAdmission(new FileSinkDirectory(config.fileSinkDir()), sinks, config.sinkCheckTimeout(),
        workers);
    this.timers = Executors.newSingleThreadScheduledExecutor(named("sluice-changefeed-timer"));
    this.metrics = new ChangefeedMetrics(registry, records.asMap(), clock);
    GcHoldWatch gcHolds = new GcHoldWatch(metrics);
    // reports and deletions are assigned below, before anything can report: nothing runs until adopt
    FeedWork work = new FeedWork(vertx, sinks, host, config, new FeedWork.Reports() {
      @Override
      public void runtimeEnded(String id, long generation, long runId, Throwable error) {
        decider.execute(() -> reports.onRuntimeEnded(id, generation, runId, error));
      }

      @Override
      public void stopped(String id, long generation, FeedCheckpoint reached) {
        decider.execute(() -> reports.onStopped(id, generation, reached));
      }

      @Override
      public void cleanupEnded(String id, long generation, Throwable error) {
        decider.execute(() -> deletions.onCleanupEnded(id, generation, error));
      }
    });
    this.runs = new FeedRuns(work, workers, timers, tokens, nowMs, new FeedRuns.RetryDue() {
      @Override
      public void due(String id, long generation, long dueAtMs) {
        decider.execute(() -> reports.onRetryDue(id, generation, dueAtMs));
      }
    });
    TransitionCommitter committer = new TransitionCommitter(records, tokens, runs, config, metrics, gcHolds, nowMs);
    this.handover = new FeedHandover(records, tokens, runs, committer, decider);
    this.reports = new RuntimeReports(records, tokens, runs, committer, handover, metrics, gcHolds, nowMs);
    this.deletions = new ChangefeedDeletions(records, tokens, runs, committer, nowMs);
    records.onStored(deletions::settle);
    this.requests = new ChangefeedRequests(records, tokens, runs, committer, admission, host, nowMs);
  }

  /**
   * Loads every record of the store, offers each to the cluster's copy (a copy of the cluster that is
   * older, or missing after a restart of the whole cluster, is replaced) and follows the cluster's
   * records from then on. Nothing runs until the node is assigned changefeeds ({@link #adopt}); the
   * broker's GC keeps what every record's checkpoint holds ({@link GcHolds}).
   *
   * @param config resolved against the data directory ({@link ChangefeedConfig#resolvedAgainst}): its file sink
   *     directory is absolute
   */
  public static ChangefeedSupervisor start(ChangefeedStore store, ClusterMap replica, ChangefeedConfig config,
      SinkConnector sinks, HostBroker host, Vertx vertx, CommitClock clock, LongSupplier nowMs, MeterRegistry registry) {
    ChangefeedSupervisor s = new ChangefeedSupervisor(store, replica, config, sinks, host, vertx, clock, nowMs,
        registry);
    s.admission.files().create();
    s.await(s.onDecider(() -> {
      s.records.load();
      return null;
    }));
    host.holdGc(s::lowestHeldTs);
    replica.onChange((id, json) -> {
      if (json != null) {
        s.decider.execute(() -> s.handover.onReplicated(ChangefeedRecord.fromJson(new JsonObject(json))));
      }
    });
    long every = config.progressInterval().toMillis();
    s.timers.scheduleWithFixedDelay(() -> s.decider.execute(s.reports::recordProgress), every, every,
        TimeUnit.MILLISECONDS);
    return s;
  }

  // ---- hosting -------------------------------------------------------------------------------

  /**
   * Hosts {@code id} with {@code token} from now on: resumes what its newest record says (NORMAL starts
   * from its checkpoint, FAILED gets its retry timer, REMOVING continues its cleanup). Idempotent; a
   * token a sink already refused is not taken again.
   */
  public CompletableFuture<Boolean> adopt(String id, long token) {
    return onDecider(() -> handover.adopt(id, token));
  }

  /**
   * Stops hosting {@code id}: its runtime stops (recording its checkpoint in the record, with this
   * node's token), and only then does the node stop listing it, so a graceful move starts the new
   * owner after the old one stopped. Idempotent.
   */
  public CompletableFuture<Boolean> release(String id) {
    return onDecider(() -> handover.release(id));
  }

  /** Changefeed id to the token this node hosts it with (for the member info). */
  public Map<String, Long> hosting() {
    return tokens.hosting();
  }

  /** Changefeed id to the higher token its sink held when it refused this node (for the member info). */
  public Map<String, Long> fencedOut() {
    return tokens.fencedOut();
  }

  /** Every changefeed for the coordinator's placement. */
  public List<PlacedChangefeed> placed() {
    List<PlacedChangefeed> out = new ArrayList<>();
    records.values().forEach(r -> out.add(new PlacedChangefeed(r.id(), r.state() == ChangefeedState.REMOVED)));
    return out;
  }

  /** Whether this node hosts {@code id} now. */
  public boolean hosts(String id) {
    return tokens.listed(id);
  }

  /** Calls {@code listener} after a record written elsewhere reached this node. */
  public void onRecordChange(Runnable listener) {
    records.onAccepted(listener);
  }

  // ---- requests ------------------------------------------------------------------------------

  /** Creates {@code id} without checking its sink first: {@link #create(String, ChangefeedSpec, boolean, SinkCheck)}. */
  public CompletableFuture<ChangefeedRecord> create(String id, ChangefeedSpec spec, boolean startTsGiven) {
    return create(id, spec, startTsGiven, SinkCheck.SKIP);
  }

  /**
   * Creates {@code id} (or re-creates a removed one, with a higher generation). Without a start ts it
   * starts from the kept checkpoint of a keep_meta deletion, else from the broker's resolved ts. A file
   * sink is confined to the file sink directory and must not be another changefeed's file; with
   * {@link SinkCheck#CHECK} the sink is checked (on a worker, within the configured timeout) before
   * anything is recorded.
   *
   * @param startTsGiven whether {@code spec.startTs()} was given by the caller
   */
  public CompletableFuture<ChangefeedRecord> create(String id, ChangefeedSpec spec, boolean startTsGiven,
      SinkCheck check) {
    return onDecider(() -> requests.admitCreate(id, spec, startTsGiven))
        .thenCompose(admitted -> admission.checked(admitted, check))
        .thenCompose(checkedSpec -> onDecider(() -> requests.create(id, checkedSpec, startTsGiven)));
  }

  public CompletableFuture<ChangefeedRecord> pause(String id) {
    return onDecider(() -> requests.apply(id, ChangefeedInput.PAUSE));
  }

  /** Resumes a PAUSED or FAILED changefeed (clearing its retry count); idempotent on a NORMAL one. */
  public CompletableFuture<ChangefeedRecord> resume(String id) {
    return onDecider(() -> requests.apply(id, ChangefeedInput.RESUME));
  }

  /**
   * Replaces the definition; a NORMAL changefeed restarts its runtime with it, every table resuming
   * from the checkpoint.
   */
  public CompletableFuture<ChangefeedRecord> update(String id, UnaryOperator<ChangefeedSpec> change) {
    return update(id, change, SinkCheck.SKIP);
  }

  /**
   * Replaces the definition with {@code change} of it; a NORMAL changefeed restarts its runtime with it,
   * every table resuming from the checkpoint. A new sink is confined and checked as at
   * {@link #create(String, ChangefeedSpec, boolean, SinkCheck) create}; an unchanged one is not checked.
   */
  public CompletableFuture<ChangefeedRecord> update(String id, UnaryOperator<ChangefeedSpec> change,
      SinkCheck check) {
    return onDecider(() -> requests.newSink(id, change))
        .thenCompose(newSink -> newSink == null ? CompletableFuture.completedFuture(null)
            : admission.checked(newSink, check))
        .thenCompose(ignored -> onDecider(() -> requests.update(id, change)));
  }

  /**
   * Starts (or retries) the deletion of {@code id}'s current generation. A retry must carry the same
   * options as the deletion in progress.
   */
  public CompletableFuture<DeletionTicket> delete(String id, DeleteOptions options) {
    return onDecider(() -> deletions.delete(id, options));
  }

  /**
   * Discards what is kept of {@code id}'s progress: a changefeed deleted with keep_meta loses its kept
   * checkpoint and the sink's checkpoint rows (a cleanup, as a delete's); a changefeed that exists is
   * deleted without keep_meta.
   *
   * @throws ChangefeedNotFoundException when the id neither exists nor kept a checkpoint
   */
  public CompletableFuture<DeletionTicket> purge(String id) {
    return onDecider(() -> deletions.purge(id));
  }

  /** The lowest checkpoint the changefeeds reading from this broker hold (GC thread; reads only). */
  private long lowestHeldTs() {
    return GcHoldWatch.lowestLocal(records.values(), nowMs.getAsLong());
  }

  /**
   * Asks changefeed {@code id}'s runtime on this node to act on the snapshots of {@code tables} (all followed
   * tables when empty); completes with the tables it acted on.
   *
   * @throws ChangefeedNotFoundException (in the future) when there is no such changefeed
   * @throws InvalidStateException when it does not run here (not NORMAL, or its runtime is starting)
   * @throws InvalidChangefeedException naming {@code tables} when one is not followed or cannot be read again
   */
  public CompletableFuture<List<String>> snapshot(String id, SnapshotAction action, List<String> tables) {
    return onDecider(() -> requests.runtimeFor(id, action)).thenCompose(run -> run.snapshot(action, tables)
        .toCompletableFuture().exceptionallyCompose(e -> ChangefeedRequests.snapshotFailed(id, action, run, e)));
  }

  /** The changefeed with its live status. */
  public CompletableFuture<ChangefeedSnapshot> get(String id) {
    return onDecider(() -> requests.view(id));
  }

  /**
   * {@code r} as a request left it, with the runtime's view: what a reply to that request shows (a
   * re-read could already show what the new runtime did next, say a failed start counted as a retry).
   */
  public CompletableFuture<ChangefeedSnapshot> snapshotOf(ChangefeedRecord r) {
    return onDecider(() -> requests.view(r));
  }

  /** Every changefeed that is not REMOVED, ordered by id. */
  public CompletableFuture<List<ChangefeedSnapshot>> list() {
    return onDecider(requests::list);
  }

  /** Where the deletion of {@code generation} of {@code id} stands. */
  public CompletableFuture<DeletionStatus> deletion(String id, long generation) {
    return onDecider(() -> deletions.status(id, generation));
  }

  /** The record as persisted (REMOVED ones included), or an absent one. */
  public ChangefeedRecord record(String id) {
    return records.current(id);
  }

  public ChangefeedConfig config() {
    return config;
  }

  /** What turns the runtimes' reports into records (tests replay stale reports on the supervisor's thread). */
  RuntimeReports reports() {
    return reports;
  }

  /** What decides deletions (tests replay a stale cleanup report on the supervisor's thread). */
  ChangefeedDeletions deletions() {
    return deletions;
  }

  /** Runs {@code work} on the supervisor's thread. */
  <T> CompletableFuture<T> onDecider(Callable<T> work) {
    CompletableFuture<T> f = new CompletableFuture<>();
    try {
      decider.execute(() -> {
        try {
          f.complete(work.call());
        } catch (Throwable e) {
          f.completeExceptionally(e);
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      f.completeExceptionally(new TransientException(ErrorCode.SHUTTING_DOWN, "the broker is shutting down", e));
    }
    return f;
  }

  private <T> T await(CompletableFuture<T> f) {
    try {
      return f.get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
    } catch (InterruptedException | TimeoutException e) {
      throw new IllegalStateException("the changefeed supervisor did not answer: " + e, e);
    }
  }

  private static java.util.concurrent.ThreadFactory named(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * Stops every runtime (recording its checkpoint, leaving states as they are: they resume at the
   * next start) and the supervisor's threads.
   */
  @Override
  public void close() {
    timers.shutdownNow();
    try {
      List<CompletableFuture<Void>> stops = await(onDecider(runs::closeAll));
      CompletableFuture.allOf(stops.toArray(CompletableFuture[]::new))
          .get(config.stopTimeout().toMillis() + 5000, TimeUnit.MILLISECONDS);
      await(onDecider(() -> null));   // the stops' checkpoint reports were queued before this
    } catch (RuntimeException | ExecutionException | TimeoutException e) {
      log.atWarn().setCause(Redactor.scrub(e)).log("changefeeds did not all stop cleanly");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      decider.shutdown();
      workers.shutdownNow();
      metrics.close();
    }
  }
}
