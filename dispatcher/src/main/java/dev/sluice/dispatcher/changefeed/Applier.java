package dev.sluice.dispatcher.changefeed;

import dev.sluice.api.error.SluiceException;
import dev.sluice.api.error.TransientException;
import dev.sluice.api.v1.DdlType;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.sink.RowIdentityMissingException;
import dev.sluice.dispatcher.sink.Sink;
import dev.sluice.dispatcher.SnapshotOutcome;
import dev.sluice.dispatcher.sink.SinkCheckpoint;
import dev.sluice.dispatcher.sink.TableSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both apply modes share: the changefeed checkpoint (the minimum over followed tables of what they
 * applied, never past the last table listing), acknowledgements, what a schema change or a stream's end
 * does to a table, holding a table its sink cannot apply, and retrying a transiently failing sink with
 * backoff. Applier thread only.
 */
abstract class Applier {

  private static final Logger LOG = LoggerFactory.getLogger(Applier.class);

  protected final ChangefeedDefinition definition;
  protected final Sink sink;
  protected final TableRoster roster;
  protected final Inbox inbox;
  private final CountDownLatch stop;
  private final SinkGate gate;
  private final Consumer<String> retrying;
  protected long checkpointTs;
  /** A schema change or the frontier waits for a table listing newer than the last one. */
  protected boolean wantsListing;
  private final List<ChangefeedStatus.Divergence> divergences = new ArrayList<>();

  Applier(ChangefeedDefinition definition, Sink sink, TableRoster roster, Inbox inbox, CountDownLatch stop,
      SinkGate gate, Consumer<String> retrying, long checkpointTs) {
    this.definition = definition;
    this.sink = sink;
    this.roster = roster;
    this.inbox = inbox;
    this.stop = stop;
    this.gate = gate;
    this.retrying = retrying;
    this.checkpointTs = checkpointTs;
  }

  /** Applies what can be applied now; true when something was applied, advanced or handled. */
  abstract boolean step() throws InterruptedException;

  long checkpointTs() {
    return checkpointTs;
  }

  /** Whether no target transaction is open (a sink call of its own may run now). */
  boolean betweenTransactions() {
    return true;
  }

  /** Whether the applier waits for a newer table listing (and the runtime should list early). */
  boolean wantsListing() {
    return wantsListing;
  }

  /** A listing was taken. */
  void listingTaken() {
    wantsListing = false;
  }

  /** Columns whose target values differ from the upstream's, for the status. */
  List<ChangefeedStatus.Divergence> divergences() {
    return List.copyOf(divergences);
  }

  /** The changefeed checkpoint for {@code positions} of the followed tables (others keep their applied position). */
  protected long minimum(Map<FollowedTable, Checkpoint> positions) {
    long min = Long.MAX_VALUE;
    for (FollowedTable t : roster.live()) {
      Checkpoint p = positions.getOrDefault(t, t.applied);
      min = Math.min(min, p.ts());
    }
    // no table followed (none matches, or all ended): every change up to the last listing is accounted for
    long known = min == Long.MAX_VALUE ? Math.max(roster.listedThroughTs(), checkpointTs) : Math.max(min, 0);
    return Math.min(known, Math.max(roster.listedThroughTs(), checkpointTs));
  }

  /**
   * Records in the sink what changed about the tables' snapshots (asked for, paused, ended) once what came
   * before it in their streams is applied. Called when no target transaction is open.
   */
  void settleSnapshots() throws InterruptedException {
    for (FollowedTable t : roster.all()) {
      if (t.snapshotState == TableSnapshot.State.NONE && t.snapshotRecords.isEmpty()) {
        continue;   // none asked for: no outcome to wait for, nothing to record
      }
      long after = inbox.outcomeAfterTs(t);
      SnapshotOutcome o = inbox.takeOutcome(t, t.applied.ts());
      if (o != null && after >= t.snapshotSinceTs) {   // below it: the end of a snapshot this one replaced
        ended(t, o);
      }
      if (!t.snapshotRecords.isEmpty()) {
        List<UnaryOperator<TableSnapshot>> records = List.copyOf(t.snapshotRecords);
        t.snapshotRecords.clear();
        SinkCheckpoint.TableProgress p = sink.checkpoint().tables().get(t.tableId);
        TableSnapshot s = p == null ? TableSnapshot.NONE : p.snapshot();
        for (UnaryOperator<TableSnapshot> r : records) {
          s = r.apply(s);
        }
        TableSnapshot record = s;
        withRetry(() -> sink.recordSnapshot(t.tableId, t.name, record));
      }
    }
  }

  /** {@code t}'s snapshot ended as {@code o} (everything before it applied): record it, and what it settled. */
  private void ended(FollowedTable t, SnapshotOutcome o) {
    if (t.snapshotState == TableSnapshot.State.NONE) {
      return;   // not one this run asked for
    }
    TableSnapshot.State state = switch (o.status()) {
      case COMPLETE, TABLE_DROPPED -> TableSnapshot.State.DONE;
      case CANCELLED -> TableSnapshot.State.CANCELLED;
      case FAILED -> TableSnapshot.State.FAILED;
    };
    t.snapshotState = state;
    t.snapshotReason = o.status() == SnapshotOutcome.Status.COMPLETE ? null : o.status() + ": " + o.reason();
    t.snapshotRecords.add(s -> s.in(state));
    LOG.atInfo().addKeyValue("changefeedId", definition.id()).addKeyValue("table", t.name)
        .addKeyValue("status", o.status()).addKeyValue("rows", o.rowsRead()).addKeyValue("chunks", o.chunks())
        .log("table snapshot ended{}", o.reason().isEmpty() ? "" : ": " + o.reason());
    if (o.status() == SnapshotOutcome.Status.COMPLETE) {
      // the rows read again are equal now: what the volatile default or the keyless time left differs no more
      divergences.removeIf(d -> d.table().equals(t.name) && d.sinceTs() <= t.snapshotSinceTs);
      if (t.note != null && t.note.startsWith("rows changed upstream in")) {
        t.note = null;
      }
    }
  }

  /** Takes {@code t} to {@code applied} and tells its dispatcher; a table found gone ends once it reached that ts. */
  protected void applied(FollowedTable t, Checkpoint applied) throws InterruptedException {
    t.applied = t.applied.max(applied);
    if (!t.live()) {
      return;
    }
    if (t.handle != null) {
      t.handle.acknowledge(t.applied);
    }
    if (t.goneAtTs >= 0 && t.applied.ts() >= t.goneAtTs) {
      ended(t, "dropped (not listed at ts " + t.goneAtTs + ")", t.goneAtTs);
    }
  }

  /** A schema change of {@code t} was applied. */
  protected void afterDdl(FollowedTable t, DdlChange ddl) throws InterruptedException {
    t.name = ddl.tableName();
    t.keyed = ddl.tableInfoAfter().getPrimaryKeyCount() > 0;
    List<ChangefeedStatus.Divergence> added = VolatileDefaults.of(ddl);
    for (ChangefeedStatus.Divergence d : added) {
      LOG.atWarn().addKeyValue("changefeedId", definition.id()).addKeyValue("table", d.table())
          .addKeyValue("column", d.column()).addKeyValue("sinceTs", d.sinceTs()).log(d.reason());
    }
    if (!added.isEmpty() && ddl.ddlType() != DdlType.DDL_TYPE_DROP_TABLE) {
      boolean rereads = roster.resnapshot(t, "re-reads the rows the upstream filled when column(s) "
          + String.join(", ", VolatileDefaults.columns(ddl)) + " were added with a volatile default");
      for (ChangefeedStatus.Divergence d : added) {
        divergences.add(rereads ? d : VolatileDefaults.unread(d, t.keyed));
      }
    }
    if (ddl.ddlType() == DdlType.DDL_TYPE_DROP_TABLE) {
      t.applied = t.applied.max(Checkpoint.at(ddl.commitTs()));
      roster.end(t, "DROP TABLE at " + ddl.commitTs());   // the sink recorded the drop with the DDL
      return;
    }
    applied(t, ddl.position());
  }

  /** A table found gone (a current listing lacks it, the broker refuses it) whose stream ends at {@code atTs}. */
  protected void ended(FollowedTable t, String why, long atTs) throws InterruptedException {
    roster.end(t, why);
    withRetry(() -> sink.markDropped(t.tableId, t.name, Math.max(atTs, 1)));
  }

  /** The final error of {@code t}'s subscription: a table gone for good ends, anything else stops the changefeed. */
  protected void onError(FollowedTable t, SluiceException error) throws InterruptedException {
    if (TableRoster.isGone(error)) {
      ended(t, error.code().name() + ": " + error.getMessage(), Math.max(t.applied.ts(), 1));
      return;
    }
    if (error.code() == dev.sluice.api.error.ErrorCode.TABLE_NOT_PUBLISHED) {
      roster.awaitPublication(t, roster.listedThroughTs(), error.getMessage());   // followed once a listing has it
      return;
    }
    throw error;
  }

  /** Holds the table a {@link RowIdentityMissingException} names; false when it is not one this changefeed follows. */
  protected boolean hold(RowIdentityMissingException e, long version) {
    for (FollowedTable t : roster.live()) {
      if (t.tableId == e.tableId()) {
        roster.hold(t, version, e.commitTs(), e.getMessage());
        return true;
      }
    }
    return false;
  }

  /** One sink call, which a closing runtime does not interrupt ({@link SinkGate}). */
  protected void call(Runnable action) throws InterruptedException {
    gate.enter();
    try {
      action.run();
    } finally {
      gate.exit();
    }
  }

  /** Calls {@code action} until it succeeds, backing off on transient sink errors. */
  protected void withRetry(Runnable action) throws InterruptedException {
    for (int attempt = 0; ; attempt++) {
      try {
        call(action);
        return;
      } catch (TransientException e) {
        long delay = Math.min(definition.retryBackoffMax().toMillis(), 50L << Math.min(attempt, 16));
        LOG.atWarn().addKeyValue("changefeedId", definition.id()).addKeyValue("attempt", attempt + 1)
            .addKeyValue("delayMs", delay).log("sink failed transiently; retrying: {}", e.getMessage());
        retrying.accept(e.getMessage());
        if (stop.await(delay, TimeUnit.MILLISECONDS)) {
          throw new InterruptedException("closed while retrying");
        }
      }
    }
  }
}
