package dev.sluice.broker.changefeed;

import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves changefeeds onto and off this node. {@link #adopt} takes a changefeed with the fencing token
 * of its assignment and resumes what its newest record says. {@link #release} gives one up gracefully:
 * the runtime stops first, and only then does the node stop listing it. {@link #drop} gives one up at
 * once, when a newer owner writes it. The cluster's copies of the records reach this node through
 * {@link #onReplicated}; while this node hosts a changefeed it is the writer, so a copy from elsewhere
 * replaces the local record only when a newer owner wrote it.
 *
 * <p>Concurrency: supervisor thread only; {@link #release} finishes on that thread, after the lane's
 * stop ran.
 *
 * <pre>{@code
 * handover.adopt("orders", 7);     // true: hosted here with token 7, its runtime starting
 * handover.release("orders");      // true: stopping; unlisted once the stop ran
 * }</pre>
 */
final class FeedHandover {

  // the supervisor's logger, as before the split: the log lines and their filters stay the same
  private static final Logger log = LoggerFactory.getLogger(ChangefeedSupervisor.class);

  private final ReplicatedRecords records;
  private final HostedTokens tokens;
  private final FeedRuns runs;
  private final TransitionCommitter committer;
  private final Executor decider;

  /** @param decider the supervisor's thread, where a release finishes */
  FeedHandover(ReplicatedRecords records, HostedTokens tokens, FeedRuns runs, TransitionCommitter committer,
      Executor decider) {
    this.records = records;
    this.tokens = tokens;
    this.runs = runs;
    this.committer = committer;
    this.decider = decider;
  }

  /** {@link ChangefeedSupervisor#adopt}: returns whether this node took {@code id} with {@code token} now. */
  boolean adopt(String id, long token) {
    Long current = tokens.of(id);
    if (current != null && current == token) {
      return false;
    }
    if (tokens.refused(id, token)) {
      return false;   // the coordinator reassigns it with a higher token
    }
    ChangefeedRecord latest = records.newest(id);
    if (latest == null || runs.closing()) {
      return false;   // not replicated here yet: the next reconcile tries again
    }
    if (current != null) {
      runs.stop(id);
    }
    tokens.host(id, token);
    ChangefeedRecord r = latest.writtenBy(token);
    committer.persist(r, true);
    log.atInfo().addKeyValue("changefeedId", id).addKeyValue("generation", r.generation())
        .addKeyValue("state", r.state()).addKeyValue("token", token).log("changefeed hosted here");
    switch (r.state()) {
      case NORMAL -> runs.start(r);
      case FAILED -> {
        if (r.nextRetryAtMs() > 0) {
          runs.retryAt(r.id(), r.generation(), r.nextRetryAtMs());
        }
      }
      case REMOVING -> runs.cleanup(r);
      case PAUSED, REMOVED -> { }
    }
    return true;
  }

  /** {@link ChangefeedSupervisor#release}: returns whether {@code id} was hosted here. */
  boolean release(String id) {
    Long token = tokens.of(id);
    if (token == null) {
      return false;
    }
    runs.stop(id);
    // unlisted only once the stop ran: a graceful move starts the new owner after the old one stopped
    runs.afterLane(id, () -> decider.execute(() -> finishRelease(id, token)));
    return true;
  }

  private void finishRelease(String id, long token) {
    Long now = tokens.of(id);
    if (now == null || now != token || runs.hasRun(id)) {
      return;   // adopted again meanwhile
    }
    tokens.unhost(id);
    ChangefeedRecord r = records.get(id);
    if (r != null && r.state() != ChangefeedState.REMOVED) {
      committer.persist(r.writtenBy(token), true);
    }
    log.atInfo().addKeyValue("changefeedId", id).addKeyValue("token", token).log("changefeed released");
  }

  /** Stops a runtime and forgets the hosting at once, without writing the record (a newer owner does). */
  void drop(String id) {
    tokens.unhost(id);
    runs.stop(id);
  }

  /** A record another node (or this one) wrote reached this node. */
  void onReplicated(ChangefeedRecord r) {
    Long token = tokens.of(r.id());
    ChangefeedRecord mine = records.get(r.id());
    if (token != null) {
      if (r.generation() == mine.generation() && r.writerToken() > token) {
        log.atWarn().addKeyValue("changefeedId", r.id()).addKeyValue("token", token)
            .addKeyValue("writerToken", r.writerToken()).log("a newer owner writes this changefeed: stopping it here");
        drop(r.id());
        records.accept(r);
      }
      return;   // this node writes it
    }
    if (mine == null || r.supersedes(mine)) {
      records.accept(r);
    }
  }
}
