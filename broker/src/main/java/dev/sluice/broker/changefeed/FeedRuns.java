package dev.sluice.broker.changefeed;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Carries out the actions the supervisor decides for the changefeeds hosted here. It starts and stops
 * their runtimes and runs their cleanups, each on the changefeed's {@link FeedLane} through
 * {@link FeedWork}, and it arms their retry timers. It knows which run of each changefeed is current,
 * so a report from a run that was stopped or replaced can be ignored. It also knows which cleanups are
 * running: at most one per id.
 *
 * <p>Concurrency: supervisor thread only. The lanes' tasks run on worker threads and the timers on
 * the timer thread; both report back through the supervisor's thread.
 *
 * <pre>{@code
 * runs.start(record);                        // a new run, with the token this node hosts it with
 * if (!runs.isCurrent(id, runId)) return;    // a report of a run that was stopped or replaced
 * }</pre>
 */
final class FeedRuns {

  /** Called on the timer thread when a retry timer fires. */
  interface RetryDue {
    void due(String id, long generation, long dueAtMs);
  }

  private final FeedWork work;
  private final Executor workers;
  private final ScheduledExecutorService timers;
  private final HostedTokens tokens;
  private final LongSupplier nowMs;
  private final RetryDue retryDue;
  private final Map<String, FeedLane> lanes = new HashMap<>();
  /** Changefeed id to its current run; a run that is not current reports nothing that counts. */
  private final Map<String, Long> currentRun = new HashMap<>();
  /** The cleanups running here, one per id at most, each completing when it ends. */
  private final Map<String, CompletableFuture<Void>> cleanups = new HashMap<>();
  private long runIds;
  private boolean closing;

  FeedRuns(FeedWork work, Executor workers, ScheduledExecutorService timers, HostedTokens tokens, LongSupplier nowMs,
      RetryDue retryDue) {
    this.work = work;
    this.workers = workers;
    this.timers = timers;
    this.tokens = tokens;
    this.nowMs = nowMs;
    this.retryDue = retryDue;
  }

  /** Starts a new run of {@code r} with this node's token, when this node hosts it and is not closing. */
  void start(ChangefeedRecord r) {
    Long token = tokens.of(r.id());
    if (closing || token == null) {
      return;   // not hosted here: the node it is assigned to runs it
    }
    long runId = ++runIds;
    currentRun.put(r.id(), runId);
    work.start(lane(r.id()), r, runId, token);
  }

  /** Stops {@code id}'s runtime; its current run, if any, no longer counts. */
  void stop(String id) {
    currentRun.remove(id);
    work.stop(lane(id), id);
  }

  /** Starts the cleanup of {@code r}'s generation, when this node hosts it and none runs yet. */
  void cleanup(ChangefeedRecord r) {
    if (closing || !tokens.has(r.id()) || cleanups.containsKey(r.id())) {
      return;   // one cleanup per id at a time: a retry joins the running one
    }
    currentRun.remove(r.id());
    cleanups.put(r.id(), new CompletableFuture<>());
    work.cleanup(lane(r.id()), r);
  }

  /** The cleanup of {@code id} running here, or null. */
  CompletableFuture<Void> cleanupOf(String id) {
    return cleanups.get(id);
  }

  /** Forgets the cleanup of {@code id}, which ended; returns it for its caller to complete (or null). */
  CompletableFuture<Void> cleanupEnded(String id) {
    return cleanups.remove(id);
  }

  /** Arms the retry timer of {@code id}'s {@code generation}, due at {@code dueAtMs}. */
  void retryAt(String id, long generation, long dueAtMs) {
    if (closing) {
      return;
    }
    long delay = Math.max(0, dueAtMs - nowMs.getAsLong());
    timers.schedule(() -> retryDue.due(id, generation, dueAtMs), delay, TimeUnit.MILLISECONDS);
  }

  /** Runs {@code task} on {@code id}'s lane once every task submitted before it has run. */
  void afterLane(String id, Runnable task) {
    lane(id).submit(task);
  }

  /** Whether {@code runId} is the current run of {@code id}. */
  boolean isCurrent(String id, long runId) {
    return Long.valueOf(runId).equals(currentRun.get(id));
  }

  /** Whether {@code id} has a current run (one was started and not stopped since). */
  boolean hasRun(String id) {
    return currentRun.containsKey(id);
  }

  /** The runtime on {@code id}'s lane now, or null. */
  HostedRuntime runtime(String id) {
    FeedLane lane = lanes.get(id);
    return lane == null ? null : lane.runtime();
  }

  /** The ids that have a lane (a live view). */
  Set<String> laneIds() {
    return lanes.keySet();
  }

  /** Whether {@link #closeAll} was called: nothing starts any more. */
  boolean closing() {
    return closing;
  }

  /**
   * Stops every runtime and starts nothing from now on. Returns, per lane, a future that completes
   * once the stop has run.
   */
  List<CompletableFuture<Void>> closeAll() {
    closing = true;
    List<CompletableFuture<Void>> out = new ArrayList<>();
    for (Map.Entry<String, FeedLane> e : lanes.entrySet()) {
      work.stop(e.getValue(), e.getKey());
      out.add(e.getValue().submit(() -> { }));
    }
    return out;
  }

  private FeedLane lane(String id) {
    return lanes.computeIfAbsent(id, k -> new FeedLane(workers));
  }
}
