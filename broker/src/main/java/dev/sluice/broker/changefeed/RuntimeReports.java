package dev.sluice.broker.changefeed;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.dispatcher.changefeed.ChangefeedStatus;
import dev.sluice.dispatcher.sink.FencedOutException;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns what the hosted runtimes and their timers report into the changefeeds' records. A run that
 * failed becomes FAIL_TRANSIENT or FAIL_FATAL; a run fenced out by its sink is dropped, and its
 * record is left to the newer owner. What a stop reached is kept as the checkpoint, and a due retry
 * timer becomes RETRY_DUE. On each progress tick, every running runtime's checkpoint is recorded and
 * the GC holds are checked. A report that no longer applies (another generation, a run that was
 * replaced, a timer that was disarmed) changes nothing.
 *
 * <p>Concurrency: supervisor thread only. The reports arrive from the lanes and the timer thread
 * through that thread.
 *
 * <pre>{@code
 * reports.onRuntimeEnded("orders", 3, 17, error);   // FAILED, with a retry timer when the error is transient
 * reports.recordProgress();                         // checkpoints of the running runtimes, then the GC holds
 * }</pre>
 */
final class RuntimeReports {

  // the supervisor's logger, as before the split: the log lines and their filters stay the same
  private static final Logger log = LoggerFactory.getLogger(ChangefeedSupervisor.class);

  private final ReplicatedRecords records;
  private final HostedTokens tokens;
  private final FeedRuns runs;
  private final TransitionCommitter committer;
  private final FeedHandover handover;
  private final ChangefeedMetrics metrics;
  private final GcHoldWatch gcHolds;
  private final LongSupplier nowMs;

  RuntimeReports(ReplicatedRecords records, HostedTokens tokens, FeedRuns runs, TransitionCommitter committer,
      FeedHandover handover, ChangefeedMetrics metrics, GcHoldWatch gcHolds, LongSupplier nowMs) {
    this.records = records;
    this.tokens = tokens;
    this.runs = runs;
    this.committer = committer;
    this.handover = handover;
    this.metrics = metrics;
    this.gcHolds = gcHolds;
    this.nowMs = nowMs;
  }

  /** Run {@code runId} of {@code id}'s {@code generation} ended with {@code error}. */
  void onRuntimeEnded(String id, long generation, long runId, Throwable error) {
    ChangefeedRecord r = records.get(id);
    if (runs.closing() || r == null || r.generation() != generation || !runs.isCurrent(id, runId)) {
      return;   // a run that was already stopped or replaced
    }
    FencedOutException fenced = fencedOutCause(error);
    if (fenced != null) {
      log.atWarn().addKeyValue("changefeedId", id).addKeyValue("generation", generation)
          .addKeyValue("token", fenced.token()).addKeyValue("heldToken", fenced.heldToken())
          .log("changefeed fenced out: its sink holds a newer owner's token; stopped here, the record is left to it");
      tokens.fencedOut(id, fenced.heldToken());
      handover.drop(id);
      return;
    }
    SluiceException e = error instanceof SluiceException s ? s
        : SluiceException.of(ErrorCode.INTERNAL, "changefeed \"" + id + "\" failed: " + error, error);
    boolean retryable = e.code().kind() == ErrorCode.Kind.TRANSIENT;
    ChangefeedInput input = retryable ? ChangefeedInput.FAIL_TRANSIENT : ChangefeedInput.FAIL_FATAL;
    String message = e.getMessage();
    if (e.code() == ErrorCode.START_TS_BELOW_GC && r.gc().expiredAtMs() > 0) {
      message += " (its GC hold expired at " + java.time.Instant.ofEpochMilli(r.gc().expiredAtMs()) + ", after options."
          + "gc_ttl_s without progress: the events after its checkpoint " + r.checkpoint().ts() + " were collected; "
          + "delete it and create it again from a new start_ts, whose target then lacks the changes in between)";
    }
    FeedError fe = new FeedError(e.code().name(), message, retryable, nowMs.getAsLong());
    log.atWarn().addKeyValue("changefeedId", id).addKeyValue("generation", generation).addKeyValue("code", e.code())
        .log("changefeed runtime failed: {}", e.getMessage());
    ChangefeedTransition t = ChangefeedTransitions.apply(r.state(), input);
    committer.commit(r, input, t,
        input == ChangefeedInput.FAIL_FATAL ? r.withRetry(fe, r.retryCount(), 0, fe.atMs()) : r, fe);
  }

  private static FencedOutException fencedOutCause(Throwable error) {
    for (Throwable e = error; e != null; e = e.getCause()) {
      if (e instanceof FencedOutException f) {
        return f;
      }
    }
    return null;
  }

  /** A retry timer fired (package-private so tests can replay a stale one). */
  void onRetryDue(String id, long generation, long dueAtMs) {
    ChangefeedRecord r = records.get(id);
    if (runs.closing() || !tokens.has(id) || r == null || r.generation() != generation
        || r.nextRetryAtMs() != dueAtMs) {
      return;   // disarmed by RESUME, PAUSE, a new generation or a later failure
    }
    ChangefeedTransition t = ChangefeedTransitions.apply(r.state(), ChangefeedInput.RETRY_DUE);
    committer.commit(r, ChangefeedInput.RETRY_DUE, t, r.withRetry(r.lastError(), r.retryCount(), 0, nowMs.getAsLong()),
        null);
  }

  /** A stop of {@code id}'s {@code generation} reached {@code reached}. */
  void onStopped(String id, long generation, FeedCheckpoint reached) {
    ChangefeedRecord r = records.get(id);
    if (r != null && r.generation() == generation && r.state() != ChangefeedState.REMOVED && tokens.has(id)) {
      committer.persist(r.withCheckpoint(r.checkpoint().max(reached), nowMs.getAsLong()), true);
    }
  }

  /** The progress tick: records what each running runtime reached, refreshes the lag meters, checks the GC holds. */
  void recordProgress() {
    if (runs.closing()) {
      return;
    }
    for (String id : runs.laneIds()) {
      HostedRuntime run = runs.runtime(id);
      ChangefeedRecord r = records.get(id);
      if (run == null || r == null || r.generation() != run.generation() || r.state() != ChangefeedState.NORMAL
          || !tokens.has(id)) {
        continue;
      }
      ChangefeedStatus status = run.status();
      metrics.divergentColumns(r.id(), status.divergences().size());
      metrics.snapshots(r.id(), status);
      FeedCheckpoint now = r.checkpoint().max(HostedRuntime.fromStatus(status));
      ChangefeedRecord next = r;
      if (!now.equals(r.checkpoint())) {
        next = next.withCheckpoint(now, nowMs.getAsLong());
      }
      if (status.state() == ChangefeedStatus.State.RUNNING && r.retryCount() > 0) {
        next = next.withRetry(r.lastError(), 0, 0, nowMs.getAsLong());   // started fine: the next failure counts from 1
      }
      if (next != r) {
        committer.persist(next, next.retryCount() != r.retryCount());
      }
    }
    metrics.refreshLag(records.values());
    checkGcHolds();
  }

  /**
   * Checks the GC holds of the changefeeds hosted here ({@link GcHoldWatch}) and marks expired ones in their
   * records.
   * Package-private so tests drive it with their clock.
   */
  void checkGcHolds() {
    long now = nowMs.getAsLong();
    // the host writes a record: only the changefeeds hosted here are marked (others' hosts mark theirs)
    List<ChangefeedRecord> mine = records.values().stream().filter(r -> tokens.has(r.id())).toList();
    for (ChangefeedRecord expired : gcHolds.check(mine, now)) {
      committer.persist(expired.withGcExpired(now), true);
    }
  }
}
