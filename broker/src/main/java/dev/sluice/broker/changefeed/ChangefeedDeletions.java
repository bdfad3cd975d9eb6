package dev.sluice.broker.changefeed;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes changefeeds, one generation at a time. It decides DELETE and PURGE, commits the end of
 * each cleanup attempt (CLEANUP_DONE or CLEANUP_FAILED), answers where a deletion stands, and
 * completes each deletion's ticket. A ticket completes with the cleanup running here, or, when
 * another node runs the cleanup, once the record reaches REMOVED.
 *
 * <p>Invariants: a retried DELETE must carry the same options as the deletion in progress; a report
 * of an older generation changes nothing; at most one cleanup runs per id ({@link FeedRuns}).
 *
 * <p>Concurrency: supervisor thread only; {@link #settle} runs on every record stored here
 * ({@link ReplicatedRecords#onStored}).
 *
 * <pre>{@code
 * DeletionTicket t = deletions.delete("orders", DeleteOptions.KEEP_META);   // REMOVING, cleanup started
 * DeletionStatus s = deletions.status("orders", t.generation());            // IN_PROGRESS, then COMPLETED
 * }</pre>
 */
final class ChangefeedDeletions {

  // the supervisor's logger, as before the split: the log lines and their filters stay the same
  private static final Logger log = LoggerFactory.getLogger(ChangefeedSupervisor.class);

  private final ReplicatedRecords records;
  private final HostedTokens tokens;
  private final FeedRuns runs;
  private final TransitionCommitter committer;
  private final LongSupplier nowMs;
  /** Deletions answered here whose cleanup runs on the node that hosts them (maybe this one, once assigned). */
  private final Map<String, CompletableFuture<Void>> removalWaiters = new HashMap<>();

  ChangefeedDeletions(ReplicatedRecords records, HostedTokens tokens, FeedRuns runs, TransitionCommitter committer,
      LongSupplier nowMs) {
    this.records = records;
    this.tokens = tokens;
    this.runs = runs;
    this.committer = committer;
    this.nowMs = nowMs;
  }

  /** {@link ChangefeedSupervisor#delete}, decided. */
  DeletionTicket delete(String id, DeleteOptions options) {
    ChangefeedRecord r = records.get(id);
    if (r == null || r.state() == ChangefeedState.REMOVED) {
      throw ChangefeedNotFoundException.of(id);
    }
    tokens.requireHosted(id);
    if (r.state() == ChangefeedState.REMOVING && !r.deletion().options().equals(options)) {
      throw new InvalidStateException(id, r.generation(), r.state(), ChangefeedInput.DELETE, "its deletion with"
          + " keep_meta=" + r.deletion().options().keepMeta() + " is in progress; retry with the same keep_meta");
    }
    ChangefeedTransition t = ChangefeedTransitions.apply(r.state(), ChangefeedInput.DELETE);
    long now = nowMs.getAsLong();
    ChangefeedRecord changed = r.state() == ChangefeedState.REMOVING ? r
        : r.withDeletion(new Deletion(r.generation(), options, now, 0, null, 0), now);
    ChangefeedRecord next = committer.commit(r, ChangefeedInput.DELETE, t, changed, null);
    return new DeletionTicket(id, next.generation(), options, completion(next));
  }

  /** {@link ChangefeedSupervisor#purge}, decided. */
  DeletionTicket purge(String id) {
    ChangefeedRecord r = records.get(id);
    if (r == null || (!r.visible() && !r.keptMeta())) {
      throw new ChangefeedNotFoundException(id, "changefeed \"" + id + "\" neither exists nor kept a checkpoint");
    }
    if (r.state() == ChangefeedState.REMOVING && r.deletion().options().keepMeta()) {
      throw new InvalidStateException(id, r.generation(), r.state(), ChangefeedInput.PURGE, "its deletion with"
          + " keep_meta=true is in progress; purge once it completed");
    }
    long now = nowMs.getAsLong();
    if (r.state() == ChangefeedState.REMOVED && r.spec() == null) {
      // kept by a server that did not keep the definition: the sink's rows cannot be found from here
      committer.persist(ChangefeedRecord.absent(id).withGeneration(r.generation()), true);
      log.atWarn().addKeyValue("changefeedId", id).log("kept checkpoint discarded; the sink's sluice_checkpoint and"
          + " sluice_table_checkpoint rows of this changefeed id were not removed (its sink is not known)");
      return new DeletionTicket(id, r.generation(), DeleteOptions.REMOVE_META, CompletableFuture.completedFuture(null));
    }
    ChangefeedTransition t = ChangefeedTransitions.apply(r.state(), ChangefeedInput.PURGE);
    Deletion d = new Deletion(r.generation(), DeleteOptions.REMOVE_META, now, 0, null, 0);
    ChangefeedRecord changed = r.state() == ChangefeedState.REMOVING ? r
        : r.state() == ChangefeedState.REMOVED ? r.purging(d, now) : r.withDeletion(d, now);
    ChangefeedRecord next = committer.commit(r, ChangefeedInput.PURGE, t, changed, null);
    return new DeletionTicket(id, next.generation(), DeleteOptions.REMOVE_META, completion(next));
  }

  /** {@link ChangefeedSupervisor#deletion}, answered. */
  DeletionStatus status(String id, long generation) {
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
  }

  /** A cleanup attempt ended (package-private so tests can replay a stale one). */
  void onCleanupEnded(String id, long generation, Throwable error) {
    CompletableFuture<Void> done = runs.cleanupEnded(id);
    ChangefeedRecord r = records.get(id);
    if (r != null && r.generation() == generation && r.state() == ChangefeedState.REMOVING && tokens.has(id)) {
      ChangefeedInput input = error == null ? ChangefeedInput.CLEANUP_DONE : ChangefeedInput.CLEANUP_FAILED;
      FeedError fe = error == null ? null : new FeedError(DeletionFailedException.causeCode(error).name(),
          error.getMessage(), true, nowMs.getAsLong());
      committer.commit(r, input, ChangefeedTransitions.apply(r.state(), input), r, fe);
    }
    if (done != null) {
      if (error == null) {
        done.complete(null);
      } else {
        done.completeExceptionally(new DeletionFailedException(id, generation, error));
      }
    }
  }

  /** Completes the waiters of a deletion once its record says REMOVED. */
  void settle(ChangefeedRecord r) {
    if (r.state() == ChangefeedState.REMOVED) {
      CompletableFuture<Void> w = removalWaiters.remove(r.id());
      if (w != null) {
        w.complete(null);
      }
    }
  }

  /**
   * Completes when the deletion {@code r} stands in is done: the cleanup running here, or (the cleanup runs
   * where the changefeed gets hosted, a REMOVED one first has to be assigned again) the record reaching
   * REMOVED, written here or replicated from the node that did it.
   */
  private CompletableFuture<Void> completion(ChangefeedRecord r) {
    if (r.state() != ChangefeedState.REMOVING) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> here = runs.cleanupOf(r.id());
    return here != null ? here : removalWaiters.computeIfAbsent(r.id(), k -> new CompletableFuture<>());
  }
}
