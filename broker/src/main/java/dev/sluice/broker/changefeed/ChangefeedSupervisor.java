package dev.sluice.broker.changefeed;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.api.error.TransientException;
import dev.sluice.dispatcher.changefeed.ChangefeedStatus;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
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
 * <p><b>Concurrency.</b> Every decision runs on one thread ({@code sluice-changefeed-supervisor});
 * the public methods hand work to it and return futures. Starts, stops and cleanups block (JDBC,
 * joins) and run on worker threads, serially per changefeed ({@link FeedLane}), reporting back to the
 * supervisor's thread. {@link #records} is written there only and readable anywhere.
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
  /** Ids go into URLs, thread names and sink checkpoint rows. */
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

  private final ChangefeedStore store;
  private final ChangefeedConfig config;
  private final HostBroker host;
  private final LongSupplier nowMs;
  private final ChangefeedMetrics metrics;
  private final FeedWork work;
  private final ExecutorService decider;
  private final ExecutorService workers;
  private final ScheduledExecutorService timers;
  private final Map<String, ChangefeedRecord> records = new ConcurrentHashMap<>();
  // the fields below are touched on the supervisor's thread only
  private final Map<String, FeedLane> lanes = new HashMap<>();
  private final Map<String, Long> currentRun = new HashMap<>();
  private final Map<String, CompletableFuture<Void>> cleanups = new HashMap<>();
  private long runIds;
  private boolean closing;

  private ChangefeedSupervisor(ChangefeedStore store, ChangefeedConfig config, SinkConnector sinks, HostBroker host,
      Vertx vertx, CommitClock clock, LongSupplier nowMs, MeterRegistry registry) {
    this.store = store;
    this.config = config;
    this.host = host;
    this.nowMs = nowMs;
    this.decider = Executors.newSingleThreadExecutor(named("sluice-changefeed-supervisor"));
    this.workers = Executors.newCachedThreadPool(named("sluice-changefeed-worker"));
    this.timers = Executors.newSingleThreadScheduledExecutor(named("sluice-changefeed-timer"));
    this.metrics = new ChangefeedMetrics(registry, records, clock);
    this.work = new FeedWork(vertx, sinks, host, config, new FeedWork.Reports() {
      @Override
      public void runtimeEnded(String id, long generation, long runId, Throwable error) {
        decider.execute(() -> onRuntimeEnded(id, generation, runId, error));
      }

      @Override
      public void stopped(String id, long generation, FeedCheckpoint reached) {
        decider.execute(() -> onStopped(id, generation, reached));
      }

      @Override
      public void cleanupEnded(String id, long generation, Throwable error) {
        decider.execute(() -> onCleanupEnded(id, generation, error));
      }
    });
  }

  /**
   * Loads every record and resumes what it says: NORMAL changefeeds start from their checkpoint,
   * FAILED ones get their retry timer back, REMOVING ones continue their cleanup.
   */
  public static ChangefeedSupervisor start(ChangefeedStore store, ChangefeedConfig config, SinkConnector sinks,
      HostBroker host, Vertx vertx, CommitClock clock, LongSupplier nowMs, MeterRegistry registry) {
    ChangefeedSupervisor s = new ChangefeedSupervisor(store, config, sinks, host, vertx, clock, nowMs, registry);
    s.await(s.onDecider(() -> {
      s.recover();
      return null;
    }));
    long every = config.progressInterval().toMillis();
    s.timers.scheduleWithFixedDelay(() -> s.decider.execute(s::recordProgress), every, every, TimeUnit.MILLISECONDS);
    return s;
  }

  private void recover() {
    for (ChangefeedRecord r : store.all()) {
      records.put(r.id(), r);
      switch (r.state()) {
        case NORMAL -> startRuntime(r);
        case FAILED -> {
          if (r.nextRetryAtMs() > 0) {
            armTimer(r.id(), r.generation(), r.nextRetryAtMs());
          }
        }
        case REMOVING -> startCleanup(r);
        case PAUSED, REMOVED -> { }
      }
      log.atInfo().addKeyValue("changefeedId", r.id()).addKeyValue("generation", r.generation())
          .addKeyValue("state", r.state()).log("changefeed recovered");
    }
  }

  // ---- requests ------------------------------------------------------------------------------

  /**
   * Creates {@code id} (or re-creates a removed one, with a higher generation). Without a start ts it
   * starts from the kept checkpoint of a keep_meta deletion, else from the broker's resolved ts.
   *
   * @param startTsGiven whether {@code spec.startTs()} was given by the caller
   */
  public CompletableFuture<ChangefeedRecord> create(String id, ChangefeedSpec spec, boolean startTsGiven) {
    return onDecider(() -> {
      checkId(id);
      ChangefeedRecord r = current(id);
      ChangefeedTransition t = ChangefeedTransitions.apply(r.state(), ChangefeedInput.CREATE);
      if (!t.allowed()) {
        throw new InvalidStateException(id, r.generation(), r.state(), ChangefeedInput.CREATE, r.state()
            == ChangefeedState.REMOVING ? "its deletion (generation " + r.generation() + ") has not completed; see GET "
            + "/api/v1/changefeeds/" + id + "/deletion/" + r.generation() : "the id is in use");
      }
      if (r.keptMeta() && startTsGiven) {
        throw InvalidChangefeedException.field("start_ts", "cannot be given: changefeed \"" + id + "\" was deleted"
            + " with keep_meta and resumes from its kept checkpoint " + r.checkpoint().ts() + "; leave start_ts out");
      }
      long startTs = r.keptMeta() ? r.checkpoint().ts() : startTsGiven ? spec.startTs() : host.resolvedTs();
      return commit(r, ChangefeedInput.CREATE, t, r.recreated(spec.withStartTs(startTs), nowMs.getAsLong()), null);
    });
  }

  public CompletableFuture<ChangefeedRecord> pause(String id) {
    return request(id, ChangefeedInput.PAUSE, r -> r);
  }

  /** Resumes a PAUSED or FAILED changefeed (clearing its retry count); idempotent on a NORMAL one. */
  public CompletableFuture<ChangefeedRecord> resume(String id) {
    return request(id, ChangefeedInput.RESUME, r -> r);
  }

  /**
   * Replaces the definition; a NORMAL changefeed restarts its runtime with it, every table resuming
   * from the checkpoint.
   */
  public CompletableFuture<ChangefeedRecord> update(String id, UnaryOperator<ChangefeedSpec> change) {
    return request(id, ChangefeedInput.UPDATE, r -> r.withSpec(change.apply(r.spec()), nowMs.getAsLong()));
  }

  /**
   * Starts (or retries) the deletion of {@code id}'s current generation. A retry must carry the same
   * options as the deletion in progress.
   */
  public CompletableFuture<DeletionTicket> delete(String id, DeleteOptions options) {
    return onDecider(() -> {
      ChangefeedRecord r = records.get(id);
      if (r == null || r.state() == ChangefeedState.REMOVED) {
        throw ChangefeedNotFoundException.of(id);
      }
      if (r.state() == ChangefeedState.REMOVING && !r.deletion().options().equals(options)) {
        throw new InvalidStateException(id, r.generation(), r.state(), ChangefeedInput.DELETE, "its deletion with"
            + " keep_meta=" + r.deletion().options().keepMeta() + " is in progress; retry with the same keep_meta");
      }
      ChangefeedTransition t = ChangefeedTransitions.apply(r.state(), ChangefeedInput.DELETE);
      long now = nowMs.getAsLong();
      ChangefeedRecord changed = r.state() == ChangefeedState.REMOVING ? r
          : r.withDeletion(new Deletion(r.generation(), options, now, 0, null, 0), now);
      ChangefeedRecord next = commit(r, ChangefeedInput.DELETE, t, changed, null);
      CompletableFuture<Void> done = cleanups.getOrDefault(id, CompletableFuture.completedFuture(null));
      return new DeletionTicket(id, next.generation(), options, done);
    });
  }

  /** The changefeed with its live status. */
  public CompletableFuture<ChangefeedSnapshot> get(String id) {
    return onDecider(() -> snapshot(visible(id)));
  }

  /**
   * {@code r} as a request left it, with the runtime's view: what a reply to that request shows (a
   * re-read could already show what the new runtime did next, say a failed start counted as a retry).
   */
  public CompletableFuture<ChangefeedSnapshot> snapshotOf(ChangefeedRecord r) {
    return onDecider(() -> snapshot(r));
  }

  /** Every changefeed that is not REMOVED, ordered by id. */
  public CompletableFuture<List<ChangefeedSnapshot>> list() {
    return onDecider(() -> {
      List<ChangefeedSnapshot> out = new ArrayList<>();
      records.values().stream().filter(ChangefeedRecord::visible).sorted((a, b) -> a.id().compareTo(b.id()))
          .forEach(r -> out.add(snapshot(r)));
      return out;
    });
  }

  /** Where the deletion of {@code generation} of {@code id} stands. */
  public CompletableFuture<DeletionStatus> deletion(String id, long generation) {
    return onDecider(() -> {
      ChangefeedRecord r = records.get(id);
      if (r != null && r.deletion() != null && r.deletion().generation() == generation) {
        return new DeletionStatus(id, generation, r.deletion().completed() ? DeletionStatus.Phase.COMPLETED
            : DeletionStatus.Phase.IN_PROGRESS, r.deletion());
      }
      if (r != null && generation >= 1 && generation < r.generation()) {
        // a later generation exists only once this one's deletion completed
        return new DeletionStatus(id, generation, DeletionStatus.Phase.COMPLETED, null);
      }
      throw new ChangefeedNotFoundException(id, "no deletion of generation " + generation + " of changefeed \"" + id
          + "\"");
    });
  }

  /** The record as persisted (REMOVED ones included), or an absent one. */
  public ChangefeedRecord record(String id) {
    return records.getOrDefault(id, ChangefeedRecord.absent(id));
  }

  public ChangefeedConfig config() {
    return config;
  }

  private CompletableFuture<ChangefeedRecord> request(String id, ChangefeedInput input,
      UnaryOperator<ChangefeedRecord> change) {
    return onDecider(() -> {
      ChangefeedRecord r = visible(id);
      ChangefeedTransition t = ChangefeedTransitions.apply(r.state(), input);
      if (!t.allowed()) {
        throw new InvalidStateException(id, r.generation(), r.state(), input, null);
      }
      return commit(r, input, t, change.apply(r), null);
    });
  }

  // ---- reports from lanes and timers (supervisor thread) --------------------------------------

  private void onRuntimeEnded(String id, long generation, long runId, Throwable error) {
    ChangefeedRecord r = records.get(id);
    if (closing || r == null || r.generation() != generation || !Long.valueOf(runId).equals(currentRun.get(id))) {
      return;   // a run that was already stopped or replaced
    }
    SluiceException e = error instanceof SluiceException s ? s
        : SluiceException.of(ErrorCode.INTERNAL, "changefeed \"" + id + "\" failed: " + error, error);
    boolean retryable = e.code().kind() == ErrorCode.Kind.TRANSIENT;
    ChangefeedInput input = retryable ? ChangefeedInput.FAIL_TRANSIENT : ChangefeedInput.FAIL_FATAL;
    FeedError fe = new FeedError(e.code().name(), e.getMessage(), retryable, nowMs.getAsLong());
    log.atWarn().addKeyValue("changefeedId", id).addKeyValue("generation", generation).addKeyValue("code", e.code())
        .log("changefeed runtime failed: {}", e.getMessage());
    ChangefeedTransition t = ChangefeedTransitions.apply(r.state(), input);
    commit(r, input, t, input == ChangefeedInput.FAIL_FATAL ? r.withRetry(fe, r.retryCount(), 0, fe.atMs()) : r, fe);
  }

  /** A retry timer fired (supervisor thread; package-private so tests can replay a stale one). */
  void onRetryDue(String id, long generation, long dueAtMs) {
    ChangefeedRecord r = records.get(id);
    if (closing || r == null || r.generation() != generation || r.nextRetryAtMs() != dueAtMs) {
      return;   // disarmed by RESUME, PAUSE, a new generation or a later failure
    }
    ChangefeedTransition t = ChangefeedTransitions.apply(r.state(), ChangefeedInput.RETRY_DUE);
    commit(r, ChangefeedInput.RETRY_DUE, t, r.withRetry(r.lastError(), r.retryCount(), 0, nowMs.getAsLong()), null);
  }

  private void onStopped(String id, long generation, FeedCheckpoint reached) {
    ChangefeedRecord r = records.get(id);
    if (r != null && r.generation() == generation && r.state() != ChangefeedState.REMOVED) {
      persist(r.withCheckpoint(r.checkpoint().max(reached)), true);
    }
  }

  /** A cleanup attempt ended (supervisor thread; package-private so tests can replay a stale one). */
  void onCleanupEnded(String id, long generation, Throwable error) {
    CompletableFuture<Void> done = cleanups.remove(id);
    ChangefeedRecord r = records.get(id);
    if (r != null && r.generation() == generation && r.state() == ChangefeedState.REMOVING) {
      ChangefeedInput input = error == null ? ChangefeedInput.CLEANUP_DONE : ChangefeedInput.CLEANUP_FAILED;
      FeedError fe = error == null ? null : new FeedError(DeletionFailedException.causeCode(error).name(),
          error.getMessage(), true, nowMs.getAsLong());
      commit(r, input, ChangefeedTransitions.apply(r.state(), input), r, fe);
    }
    if (done != null) {
      if (error == null) {
        done.complete(null);
      } else {
        done.completeExceptionally(new DeletionFailedException(id, generation, error));
      }
    }
  }

  private void recordProgress() {
    if (closing) {
      return;
    }
    for (Map.Entry<String, FeedLane> e : lanes.entrySet()) {
      HostedRuntime run = e.getValue().runtime();
      ChangefeedRecord r = records.get(e.getKey());
      if (run == null || r == null || r.generation() != run.generation() || r.state() != ChangefeedState.NORMAL) {
        continue;
      }
      ChangefeedStatus status = run.status();
      FeedCheckpoint now = r.checkpoint().max(HostedRuntime.fromStatus(status));
      ChangefeedRecord next = r;
      if (!now.equals(r.checkpoint())) {
        next = next.withCheckpoint(now);
      }
      if (status.state() == ChangefeedStatus.State.RUNNING && r.retryCount() > 0) {
        next = next.withRetry(r.lastError(), 0, 0, nowMs.getAsLong());   // started fine: the next failure counts from 1
      }
      if (next != r) {
        persist(next, next.retryCount() != r.retryCount());
      }
    }
    metrics.refreshLag(records.values());
  }

  // ---- deciding and acting (supervisor thread) ----------------------------------------------

  /** Applies the record effects of {@code t} to {@code changed}, persists it synced, then runs the actions. */
  private ChangefeedRecord commit(ChangefeedRecord before, ChangefeedInput input, ChangefeedTransition t,
      ChangefeedRecord changed, FeedError error) {
    long now = nowMs.getAsLong();
    ChangefeedRecord next = changed.withState(t.next(), now);
    for (ChangefeedEffect effect : t.effects()) {
      switch (effect) {
        case SCHEDULE_RETRY -> {
          int attempt = next.retryCount() + 1;
          boolean giveUp = config.retryMaxAttempts() > 0 && attempt > config.retryMaxAttempts();
          FeedError shown = giveUp ? new FeedError(error.code(), error.message() + " (gave up after "
              + config.retryMaxAttempts() + " automatic restarts; RESUME to try again)", false, error.atMs()) : error;
          next = next.withRetry(shown, attempt, giveUp ? 0 : now + config.retryDelay(attempt).toMillis(), now);
        }
        case CLEAR_RETRY -> next = next.withRetry(null, 0, 0, now);
        case SCHEDULE_CLEANUP_RETRY -> {
          Deletion d = next.deletion().attempted(error);
          next = next.withDeletion(d, now)
              .withRetry(next.lastError(), next.retryCount(), now + config.cleanupDelay(d.attempts()).toMillis(), now);
        }
        case FINISH_REMOVAL -> next = next.removed(next.deletion().completedAt(now), now);
        case START_RUNTIME, STOP_RUNTIME, RESTART_RUNTIME, START_CLEANUP -> { }
      }
    }
    persist(next, true);
    log.atInfo().addKeyValue("changefeedId", next.id()).addKeyValue("generation", next.generation())
        .addKeyValue("input", input).addKeyValue("from", before.state()).addKeyValue("to", next.state())
        .log("changefeed transition");
    for (ChangefeedEffect effect : t.effects()) {
      switch (effect) {
        case START_RUNTIME -> startRuntime(next);
        case STOP_RUNTIME -> stopRuntime(next);
        case RESTART_RUNTIME -> {
          stopRuntime(next);
          startRuntime(next);
        }
        case START_CLEANUP -> startCleanup(next);
        case SCHEDULE_RETRY, SCHEDULE_CLEANUP_RETRY -> {
          if (next.nextRetryAtMs() > 0) {
            armTimer(next.id(), next.generation(), next.nextRetryAtMs());
          }
        }
        case FINISH_REMOVAL -> metrics.forget(next.id());
        case CLEAR_RETRY -> { }
      }
    }
    return next;
  }

  private void persist(ChangefeedRecord r, boolean sync) {
    store.put(r, sync);
    records.put(r.id(), r);
  }

  private void startRuntime(ChangefeedRecord r) {
    if (closing) {
      return;
    }
    long runId = ++runIds;
    currentRun.put(r.id(), runId);
    work.start(lane(r.id()), r, runId);
  }

  private void stopRuntime(ChangefeedRecord r) {
    currentRun.remove(r.id());
    work.stop(lane(r.id()), r.id());
  }

  private void startCleanup(ChangefeedRecord r) {
    if (closing || cleanups.containsKey(r.id())) {
      return;   // one cleanup per id at a time: a retry joins the running one
    }
    currentRun.remove(r.id());
    cleanups.put(r.id(), new CompletableFuture<>());
    work.cleanup(lane(r.id()), r);
  }

  private void armTimer(String id, long generation, long dueAtMs) {
    if (closing) {
      return;
    }
    long delay = Math.max(0, dueAtMs - nowMs.getAsLong());
    timers.schedule(() -> decider.execute(() -> onRetryDue(id, generation, dueAtMs)), delay, TimeUnit.MILLISECONDS);
  }

  private FeedLane lane(String id) {
    return lanes.computeIfAbsent(id, k -> new FeedLane(workers));
  }

  private ChangefeedRecord current(String id) {
    return records.getOrDefault(id, ChangefeedRecord.absent(id));
  }

  private ChangefeedRecord visible(String id) {
    ChangefeedRecord r = records.get(id);
    if (r == null || !r.visible()) {
      throw ChangefeedNotFoundException.of(id);
    }
    return r;
  }

  private ChangefeedSnapshot snapshot(ChangefeedRecord r) {
    FeedLane lane = lanes.get(r.id());
    HostedRuntime run = lane == null ? null : lane.runtime();
    boolean live = run != null && run.generation() == r.generation() && r.state() == ChangefeedState.NORMAL;
    return new ChangefeedSnapshot(r, live ? run.status() : null);
  }

  private static void checkId(String id) {
    if (id == null || !ID.matcher(id).matches()) {
      throw InvalidChangefeedException.field("id", "must be 1-128 of [A-Za-z0-9_.-] starting with a letter or digit,"
          + " got \"" + id + "\"");
    }
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
      List<CompletableFuture<Void>> stops = await(onDecider(() -> {
        closing = true;
        List<CompletableFuture<Void>> out = new ArrayList<>();
        for (Map.Entry<String, FeedLane> e : lanes.entrySet()) {
          work.stop(e.getValue(), e.getKey());
          out.add(e.getValue().submit(() -> { }));
        }
        return out;
      }));
      CompletableFuture.allOf(stops.toArray(CompletableFuture[]::new))
          .get(config.stopTimeout().toMillis() + 5000, TimeUnit.MILLISECONDS);
      await(onDecider(() -> null));   // the stops' checkpoint reports were queued before this
    } catch (RuntimeException | ExecutionException | TimeoutException e) {
      log.atWarn().setCause(e).log("changefeeds did not all stop cleanly");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      decider.shutdown();
      workers.shutdownNow();
      metrics.close();
    }
  }
}
