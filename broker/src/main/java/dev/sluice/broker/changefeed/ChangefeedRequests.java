package dev.sluice.broker.changefeed;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Decides the operator's requests to create, pause, resume, update and snapshot a changefeed, and
 * builds the views that get and list show. Each request is checked against {@link ChangefeedTransitions}
 * and committed with {@link TransitionCommitter}. A request that changes a changefeed is decided by
 * the node that hosts it; a create needs no host, since no node hosts a new changefeed yet. A sink
 * check needs I/O, so it runs off this thread between two of these steps; the supervisor chains them.
 *
 * <p>Concurrency: supervisor thread only, but for {@link #snapshotFailed}, which touches no state and
 * runs wherever the runtime's answer completes.
 *
 * <pre>{@code
 * ChangefeedSpec admitted = requests.admitCreate("orders", spec, false);   // then the sink check, elsewhere
 * ChangefeedRecord created = requests.create("orders", checkedSpec, false);
 * }</pre>
 */
final class ChangefeedRequests {

  /** Ids go into URLs, thread names and sink checkpoint rows. */
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

  private final ReplicatedRecords records;
  private final HostedTokens tokens;
  private final FeedRuns runs;
  private final TransitionCommitter committer;
  private final SinkAdmission admission;
  private final HostBroker host;
  private final LongSupplier nowMs;

  ChangefeedRequests(ReplicatedRecords records, HostedTokens tokens, FeedRuns runs, TransitionCommitter committer,
      SinkAdmission admission, HostBroker host, LongSupplier nowMs) {
    this.records = records;
    this.tokens = tokens;
    this.runs = runs;
    this.committer = committer;
    this.admission = admission;
    this.host = host;
    this.nowMs = nowMs;
  }

  /** The checks of a create that need no I/O; returns {@code spec} with its file confined. */
  ChangefeedSpec admitCreate(String id, ChangefeedSpec spec, boolean startTsGiven) {
    checkId(id);
    ChangefeedRecord r = records.current(id);
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
    return admission.own(id, spec, records.cluster());
  }

  /** Creates {@code id} from {@code checkedSpec}, whose sink was checked (see {@link ChangefeedSupervisor#create}). */
  ChangefeedRecord create(String id, ChangefeedSpec checkedSpec, boolean startTsGiven) {
    // decided again: another request may have taken the id or the file while the sink was checked
    ChangefeedSpec s = admitCreate(id, checkedSpec, startTsGiven);
    ChangefeedRecord r = records.current(id);
    ChangefeedTransition t = ChangefeedTransitions.apply(r.state(), ChangefeedInput.CREATE);
    long startTs = r.keptMeta() ? r.checkpoint().ts() : startTsGiven ? s.startTs() : host.resolvedTs();
    return committer.commit(r, ChangefeedInput.CREATE, t, r.recreated(s.withStartTs(startTs), nowMs.getAsLong()),
        null);
  }

  /**
   * The checks of an update that need no I/O; returns the new definition when its sink is new (to be
   * checked), or null when the sink stays.
   */
  ChangefeedSpec newSink(String id, UnaryOperator<ChangefeedSpec> change) {
    ChangefeedRecord r = visible(id);
    if (!ChangefeedTransitions.apply(r.state(), ChangefeedInput.UPDATE).allowed()) {
      throw new InvalidStateException(id, r.generation(), r.state(), ChangefeedInput.UPDATE, null);
    }
    ChangefeedSpec next = changed(r, change);
    return next.sink().equals(r.spec().sink()) ? null : next;   // null: the sink stays, nothing to check
  }

  /** Replaces {@code id}'s definition with {@code change} of it (see {@link ChangefeedSupervisor#update}). */
  ChangefeedRecord update(String id, UnaryOperator<ChangefeedSpec> change) {
    return apply(id, ChangefeedInput.UPDATE, r -> r.withSpec(changed(r, change), nowMs.getAsLong()));
  }

  /** Applies {@code input} (PAUSE, RESUME) to {@code id}, hosted here, and commits it. */
  ChangefeedRecord apply(String id, ChangefeedInput input) {
    return apply(id, input, r -> r);
  }

  /**
   * The runtime of {@code id} that a snapshot request goes to.
   *
   * @throws InvalidStateException when it does not run here (not NORMAL, or its runtime is starting)
   */
  HostedRuntime runtimeFor(String id, SnapshotAction action) {
    ChangefeedRecord r = visible(id);
    HostedRuntime run = runs.runtime(id);
    if (run == null || run.generation() != r.generation() || r.state() != ChangefeedState.NORMAL
        || !tokens.has(id)) {
      throw new InvalidStateException(id, r.generation(), r.state(), "snapshot " + action.name().toLowerCase(
          java.util.Locale.ROOT), r.state() == ChangefeedState.NORMAL ? "its runtime is not running on this node now;"
          + " retry shortly" : "resume it first");
    }
    return run;
  }

  /**
   * {@code e}, the failure of a snapshot request {@code run} was asked, as the request's answer: the
   * runtime's refusals become InvalidChangefeedException (tables) and InvalidStateException.
   */
  static CompletableFuture<List<String>> snapshotFailed(String id, SnapshotAction action, HostedRuntime run,
      Throwable e) {
    Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
    if (cause instanceof IllegalArgumentException) {
      return CompletableFuture.failedFuture(InvalidChangefeedException.field("tables", cause.getMessage()));
    }
    if (cause instanceof IllegalStateException) {
      return CompletableFuture.failedFuture(new InvalidStateException(id, run.generation(), ChangefeedState.NORMAL,
          "snapshot " + action.name().toLowerCase(java.util.Locale.ROOT), cause.getMessage() + "; retry shortly"));
    }
    return CompletableFuture.failedFuture(cause);
  }

  /** The visible changefeed {@code id} with its live status. */
  ChangefeedSnapshot view(String id) {
    return view(visible(id));
  }

  /** {@code r} with the runtime's view of it when it runs here. */
  ChangefeedSnapshot view(ChangefeedRecord r) {
    HostedRuntime run = runs.runtime(r.id());
    boolean live = run != null && run.generation() == r.generation() && r.state() == ChangefeedState.NORMAL
        && tokens.has(r.id());
    return new ChangefeedSnapshot(r, live ? run.status() : null, GcHolds.of(r, nowMs.getAsLong()));
  }

  /** Every changefeed that is not REMOVED, ordered by id. */
  List<ChangefeedSnapshot> list() {
    List<ChangefeedSnapshot> out = new ArrayList<>();
    records.values().stream().filter(ChangefeedRecord::visible).sorted((a, b) -> a.id().compareTo(b.id()))
        .forEach(r -> out.add(view(r)));
    return out;
  }

  private ChangefeedRecord apply(String id, ChangefeedInput input, UnaryOperator<ChangefeedRecord> change) {
    ChangefeedRecord r = visible(id);
    tokens.requireHosted(id);
    ChangefeedTransition t = ChangefeedTransitions.apply(r.state(), input);
    if (!t.allowed()) {
      throw new InvalidStateException(id, r.generation(), r.state(), input, null);
    }
    return committer.commit(r, input, t, change.apply(r), null);
  }

  /** {@code change} applied to {@code r}'s definition, a new sink confined and unshared. */
  private ChangefeedSpec changed(ChangefeedRecord r, UnaryOperator<ChangefeedSpec> change) {
    ChangefeedSpec next = change.apply(r.spec());
    return next.sink().equals(r.spec().sink()) ? next : admission.own(r.id(), next, records.cluster());
  }

  private ChangefeedRecord visible(String id) {
    ChangefeedRecord r = records.get(id);
    if (r == null || !r.visible()) {
      throw ChangefeedNotFoundException.of(id);
    }
    return r;
  }

  private static void checkId(String id) {
    if (id == null || !ID.matcher(id).matches()) {
      throw InvalidChangefeedException.field("id", "must be 1-128 of [A-Za-z0-9_.-] starting with a letter or digit,"
          + " got \"" + id + "\"");
    }
  }
}
