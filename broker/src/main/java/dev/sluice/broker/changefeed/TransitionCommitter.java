package dev.sluice.broker.changefeed;

import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the supervisor's decisions. For a {@link ChangefeedTransition} it applies the transition's
 * record effects, writes the record synced before anything acts on it, logs the transition once, and
 * then runs the transition's actions on {@link FeedRuns}. Every other write of a record (progress, a
 * hosting change, a purged kept checkpoint) goes through {@link #persist} as well, so each write
 * carries this node's fencing token while the node hosts the changefeed.
 *
 * <p>Concurrency: supervisor thread only.
 *
 * <pre>{@code
 * ChangefeedTransition t = ChangefeedTransitions.apply(r.state(), ChangefeedInput.PAUSE);
 * ChangefeedRecord paused = committer.commit(r, ChangefeedInput.PAUSE, t, r, null);   // persisted, runtime stopping
 * }</pre>
 */
final class TransitionCommitter {

  // the supervisor's logger, as before the split: the log lines and their filters stay the same
  private static final Logger log = LoggerFactory.getLogger(ChangefeedSupervisor.class);

  private final ReplicatedRecords records;
  private final HostedTokens tokens;
  private final FeedRuns runs;
  private final ChangefeedConfig config;
  private final ChangefeedMetrics metrics;
  private final GcHoldWatch gcHolds;
  private final LongSupplier nowMs;

  TransitionCommitter(ReplicatedRecords records, HostedTokens tokens, FeedRuns runs, ChangefeedConfig config,
      ChangefeedMetrics metrics, GcHoldWatch gcHolds, LongSupplier nowMs) {
    this.records = records;
    this.tokens = tokens;
    this.runs = runs;
    this.config = config;
    this.metrics = metrics;
    this.gcHolds = gcHolds;
    this.nowMs = nowMs;
  }

  /**
   * Applies the record effects of {@code t} to {@code changed}, persists it synced, then runs the actions.
   *
   * @param error what failed, for the effects that record it (a retry, a failed cleanup); else null
   * @return the record as persisted
   */
  ChangefeedRecord commit(ChangefeedRecord before, ChangefeedInput input, ChangefeedTransition t,
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
        case START_RUNTIME -> runs.start(next);
        case STOP_RUNTIME -> runs.stop(next.id());
        case RESTART_RUNTIME -> {
          runs.stop(next.id());
          runs.start(next);
        }
        case START_CLEANUP -> runs.cleanup(next);
        case SCHEDULE_RETRY, SCHEDULE_CLEANUP_RETRY -> {
          if (next.nextRetryAtMs() > 0) {
            runs.retryAt(next.id(), next.generation(), next.nextRetryAtMs());
          }
        }
        case FINISH_REMOVAL -> {
          if (!next.keptMeta()) {
            metrics.forget(next.id());
            gcHolds.forget(next.id());
          }
        }
        case CLEAR_RETRY -> { }
      }
    }
    return next;
  }

  /** Writes {@code r} here and in the cluster, stamped with this node's token when it hosts it. */
  void persist(ChangefeedRecord r, boolean sync) {
    records.write(r, tokens.of(r.id()), sync);
  }
}
