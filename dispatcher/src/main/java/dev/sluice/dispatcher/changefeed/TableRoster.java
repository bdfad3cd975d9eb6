package dev.sluice.dispatcher.changefeed;

import dev.sluice.api.TableSpan;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.api.v1.TableEntry;
import dev.sluice.api.v1.TableList;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.SnapshotCursor;
import dev.sluice.dispatcher.SnapshotOutcome;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.dispatcher.sink.Sink;
import dev.sluice.dispatcher.sink.SinkCheckpoint;
import dev.sluice.dispatcher.sink.TableSnapshot;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tables of one changefeed run: which are followed, from where, and when they end. At start it
 * resumes every table the sink's progress holds that has not ended (a table dropped while the changefeed
 * was not running included, by its table id, so its last rows and its DROP are applied), each from its own
 * position; then every poll of ListTables adds the tables created since (from just before their CREATE),
 * marks the ones a newer listing no longer has as gone, and follows a held table again once its table
 * info changed. Applier thread only.
 */
final class TableRoster {

  private static final Logger LOG = LoggerFactory.getLogger(TableRoster.class);

  private final SluiceClient client;
  private final ChangefeedDefinition definition;
  private final Sink sink;
  private final Inbox inbox;
  private final Map<Long, FollowedTable> tables = new LinkedHashMap<>();
  /**
   * The ts of the last successful ListTables: tables created after it are not known yet, so the
   * changefeed checkpoint (which promises every table's changes up to it) never passes it.
   */
  private long listedThroughTs;
  private boolean listed;
  /** The rules that matched no table at the last listing. */
  private List<String> unmatchedRules = List.of();
  /** Whether the sink held no changefeed checkpoint when this run began: the run that loads existing rows. */
  private final boolean firstStart;

  TableRoster(SluiceClient client, ChangefeedDefinition definition, Sink sink, Inbox inbox, long listedThroughTs) {
    this.client = client;
    this.definition = definition;
    this.sink = sink;
    this.inbox = inbox;
    this.listedThroughTs = listedThroughTs;
    this.firstStart = sink.checkpoint().checkpointTs() == 0;
  }

  Collection<FollowedTable> all() {
    return tables.values();
  }

  /** The followed tables (neither held nor ended). */
  List<FollowedTable> live() {
    List<FollowedTable> out = new ArrayList<>();
    for (FollowedTable t : tables.values()) {
      if (t.live()) {
        out.add(t);
      }
    }
    return out;
  }

  long listedThroughTs() {
    return listedThroughTs;
  }

  /** Whether one ListTables succeeded. */
  boolean listed() {
    return listed;
  }

  /**
   * Follows every table the sink's progress holds that has not ended and that the filter takes by the
   * name it had, from its own position (it may be gone from the listings: dropped while nothing ran).
   */
  void resumeFromProgress() {
    for (Map.Entry<Long, SinkCheckpoint.TableProgress> e : sink.checkpoint().tables().entrySet()) {
      SinkCheckpoint.TableProgress p = e.getValue();
      if (p.dropped() || tables.containsKey(e.getKey()) || !definition.filter().matches(p.tableName())) {
        continue;
      }
      Checkpoint from = sink.checkpoint().forTable(e.getKey()).max(Checkpoint.at(definition.startTs()));
      subscribe(e.getKey(), p.tableName(), from, from.ts(), p.snapshot(), true);
    }
  }

  /**
   * Where a table's snapshot goes on from when it is followed by this run: its stored snapshot continues
   * (running or failed: from its cursor; paused stays paused; done or cancelled never again). A table with
   * none recorded is read from the start only on the changefeed's first start (the sink holds no checkpoint
   * yet) when it loads existing rows and the table existed when it started; that is recorded at once, before
   * any of its rows, so a later start tells it from a table that was never to be read (one matched later by a
   * widened rule, a new sink after an update, a changefeed from before snapshots: read those on request).
   */
  private SnapshotCursor snapshotFor(FollowedTable t, TableSnapshot stored, boolean existedAtStart) {
    if (stored.state() != TableSnapshot.State.NONE) {
      t.snapshotState = stored.state() == TableSnapshot.State.FAILED ? TableSnapshot.State.RUNNING : stored.state();
      t.snapshotSinceTs = stored.sinceTs();
      t.rowsDone = stored.rows();
      return stored.resumes() ? stored.cursor() : null;
    }
    if (definition.initialLoad() != InitialLoad.SNAPSHOT || !firstStart || !existedAtStart) {
      return null;   // a table created after the start needs none: the log holds every row of it
    }
    t.snapshotRecords.add(s -> s.state() == TableSnapshot.State.NONE ? TableSnapshot.started(0) : s);
    t.snapshotState = TableSnapshot.State.RUNNING;
    return SnapshotCursor.start();
  }

  /**
   * One ListTables: new matching tables are followed from just before their CREATE, followed tables a
   * current listing lacks are marked gone at its ts, and a held table whose table info changed since it
   * was held is followed again.
   *
   * @return the tables found gone whose applied position already reached the listing (they end)
   */
  List<FollowedTable> discover() throws InterruptedException {
    TableList list;
    try {
      list = client.listTables(0).toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      LOG.atInfo().addKeyValue("changefeedId", definition.id()).log("ListTables failed; will retry: {}", String.valueOf(e));
      return List.of();
    }
    List<FollowedTable> gone = new ArrayList<>();
    Set<Long> seen = new HashSet<>();
    for (TableEntry entry : list.getTablesList()) {
      var info = entry.getTableInfo();
      seen.add(info.getTableId());
      String name = info.getSchemaName() + "." + info.getTableName();
      FollowedTable known = tables.get(info.getTableId());
      if (entry.getUnpublished() && (known != null || definition.filter().matches(name))) {
        leftOut(known, entry, name, list.getAtTs());
      } else if (known != null && (known.phase == ChangefeedStatus.TablePhase.NOT_PUBLISHED
          || known.unpublishedAtTs >= 0)) {
        published(known, list.getAtTs());
      } else if (known == null && definition.filter().matches(name)) {
        // just before the CREATE: rows written in the creating transaction share its commit ts
        Checkpoint from = sink.checkpoint().forTable(info.getTableId()).max(Checkpoint.at(definition.startTs()))
            .max(Checkpoint.at(Math.max(0, entry.getCreatedTs() - 1)));
        SinkCheckpoint.TableProgress stored = sink.checkpoint().tables().get(info.getTableId());
        subscribe(info.getTableId(), name, from, entry.getCreatedTs(), stored == null ? TableSnapshot.NONE
            : stored.snapshot(), entry.getCreatedTs() <= definition.startTs(), info.getPrimaryKeyCount() > 0);
      } else if (known != null && known.phase == ChangefeedStatus.TablePhase.NEEDS_KEY
          && info.getVersion() > known.heldVersion) {
        known.keyed = info.getPrimaryKeyCount() > 0;
        release(known, info.getVersion());
      } else if (known != null) {
        known.keyed = info.getPrimaryKeyCount() > 0;
      }
    }
    // a listing older than one already seen (a broker that lags, after a failover) cannot tell a drop
    boolean current = list.getAtTs() >= listedThroughTs;
    for (FollowedTable t : tables.values()) {
      if (!t.live()) {
        continue;
      }
      if (seen.contains(t.tableId)) {
        t.goneAtTs = -1;   // listed again: whatever made it look gone was not a drop
      } else if (current && t.goneAtTs < 0 && list.getAtTs() > t.existsFromTs) {
        t.goneAtTs = list.getAtTs();
        if (t.applied.ts() >= t.goneAtTs) {
          gone.add(t);
        }
      }
    }
    listedThroughTs = Math.max(listedThroughTs, list.getAtTs());
    listed = true;
    warnUnmatched(list);
    return gone;
  }

  List<String> unmatchedRules() {
    return unmatchedRules;
  }

  /**
   * A table the publication leaves out: one not followed yet waits ({@code NOT_PUBLISHED}, no dispatcher: the
   * broker refuses it), one followed gets a note (what it misses from {@code atTs} on) and is read again once
   * it is back in the publication.
   */
  private void leftOut(FollowedTable known, TableEntry entry, String name, long atTs) {
    if (known == null) {
      FollowedTable t = new FollowedTable(entry.getTableInfo().getTableId(), name, Checkpoint.at(Math.max(
          definition.startTs(), Math.max(0, entry.getCreatedTs() - 1))), entry.getCreatedTs());
      t.keyed = entry.getTableInfo().getPrimaryKeyCount() > 0;
      tables.put(t.tableId, t);
      awaitPublication(t, atTs, "the upstream publication leaves " + name + " out, so none of its changes reach the"
          + " broker; add it (ALTER PUBLICATION ... ADD TABLE " + name + ") and the changefeed follows it"
          + (definition.initialLoad() == InitialLoad.SNAPSHOT && t.keyed ? ", its rows read by a snapshot" : ""));
    } else if (known.live() && known.unpublishedAtTs < 0) {
      known.unpublishedAtTs = atTs;
      known.note = "left out of the upstream publication (found at ts " + atTs + "): its changes no longer reach the"
          + " broker, so rows changed since are missing downstream; add it back (ALTER PUBLICATION ... ADD TABLE "
          + name + ")" + (known.keyed ? " and the changefeed reads its rows again" : "");
      LOG.atWarn().addKeyValue("changefeedId", definition.id()).addKeyValue("table", name).addKeyValue("atTs", atTs)
          .log("table left out of the upstream publication: its changes no longer arrive");
    }
  }

  /** Waits for {@code t} to be published: its dispatcher (if any) is closed, it no longer counts for the checkpoint. */
  void awaitPublication(FollowedTable t, long atTs, String why) {
    t.phase = ChangefeedStatus.TablePhase.NOT_PUBLISHED;
    t.heldAtTs = atTs;
    t.note = why;
    LOG.atWarn().addKeyValue("changefeedId", definition.id()).addKeyValue("table", t.name).addKeyValue("atTs", atTs)
        .log("table waits for the upstream publication to have it: {}", why);
    close(t);
  }

  /** A table back in (or newly added to) the publication: followed, its rows read again when it has a key. */
  private void published(FollowedTable t, long atTs) {
    if (t.phase == ChangefeedStatus.TablePhase.NOT_PUBLISHED) {
      t.applied = t.applied.max(Checkpoint.at(atTs));   // nothing of it was captured before: the broker had none
      t.phase = ChangefeedStatus.TablePhase.FOLLOWING;
      t.goneAtTs = -1;
      t.note = null;
      inbox.reopen(t, t.applied.ts());
      boolean load = t.keyed && definition.initialLoad() == InitialLoad.SNAPSHOT;
      if (!load) {
        t.note = "published at ts " + atTs + ": followed from there; rows it had before are not read"
            + (t.keyed ? " (the changefeed does not load existing rows; ask for a snapshot)" : " (a keyless table"
            + " is not read again: its READ rows would be appended)");
      }
      LOG.atInfo().addKeyValue("changefeedId", definition.id()).addKeyValue("table", t.name)
          .addKeyValue("startTs", t.applied.ts()).log("table is in the upstream publication now; following it");
      open(t, load ? readFromStart(t, t.applied.ts(), "reads the rows of a table published after the changefeed"
          + " started") : null);
      return;
    }
    t.unpublishedAtTs = -1;
    t.note = t.keyed ? null : "rows changed while the upstream publication left it out are missing downstream (a"
        + " keyless table is not read again)";
    LOG.atInfo().addKeyValue("changefeedId", definition.id()).addKeyValue("table", t.name)
        .log("table is back in the upstream publication");
    if (t.keyed) {
      resnapshot(t, "re-reads the rows changed while the upstream publication left the table out");
    }
  }

  /** Says, in the status and once in the log, which rules match no listed table (and when they match again). */
  private void warnUnmatched(TableList list) {
    List<String> names = new ArrayList<>();
    for (TableEntry entry : list.getTablesList()) {
      names.add(entry.getTableInfo().getSchemaName() + "." + entry.getTableInfo().getTableName());
    }
    List<String> now = definition.filter().unmatchedRules(names);
    for (String rule : now) {
      if (!unmatchedRules.contains(rule)) {
        LOG.atWarn().addKeyValue("changefeedId", definition.id()).addKeyValue("rule", rule)
            .addKeyValue("atTs", list.getAtTs()).log("table rule matches no table; a table created later that"
                + " matches it is followed");
      }
    }
    for (String rule : unmatchedRules) {
      if (!now.contains(rule)) {
        LOG.atInfo().addKeyValue("changefeedId", definition.id()).addKeyValue("rule", rule)
            .log("table rule matches a table now");
      }
    }
    unmatchedRules = now;
  }

  private void subscribe(long tableId, String name, Checkpoint from, long existsFromTs, TableSnapshot stored,
      boolean existedAtStart) {
    subscribe(tableId, name, from, existsFromTs, stored, existedAtStart, true);
  }

  private void subscribe(long tableId, String name, Checkpoint from, long existsFromTs, TableSnapshot stored,
      boolean existedAtStart, boolean keyed) {
    // the dispatcher resumes at from.ts(); rows inside a partly applied transaction are skipped by the sink
    FollowedTable t = new FollowedTable(tableId, name, Checkpoint.at(from.ts()), existsFromTs);
    t.keyed = keyed;
    tables.put(tableId, t);
    SnapshotCursor snapshot = snapshotFor(t, stored, existedAtStart);
    LOG.atInfo().addKeyValue("changefeedId", definition.id()).addKeyValue("table", name)
        .addKeyValue("tableId", tableId).addKeyValue("startTs", from.ts())
        .addKeyValue("snapshot", snapshot == null ? "none" : snapshot.toString()).log("following table");
    open(t, snapshot);
  }

  private void open(FollowedTable t, SnapshotCursor snapshot) {
    t.handle = client.subscribe(Subscription.span(TableSpan.wholeTable(t.tableId)).from(t.applied.ts())
        .creditGroup(definition.id()).withSnapshot(snapshot), new TableListener(t, inbox.generation(t)));
  }

  /**
   * Reads {@code t}'s rows again from the start, merged into its changes (a re-snapshot), and records that
   * in the sink once nothing is open; the rows its stream has queued so far are before it.
   *
   * @return false when it cannot: the table is not followed now, or has no key (its READ rows would be
   *     appended again)
   */
  boolean resnapshot(FollowedTable t, String why) {
    if (!t.live() || t.handle == null || !t.keyed) {
      return false;
    }
    long since = inbox.receivedThrough(t);
    t.handle.snapshot(readFromStart(t, since, why));
    LOG.atInfo().addKeyValue("changefeedId", definition.id()).addKeyValue("table", t.name)
        .addKeyValue("sinceTs", since).log("reading the table's rows again: {}", why);
    return true;
  }

  /**
   * Holds {@code t}: its dispatcher is removed and it no longer counts for the changefeed checkpoint,
   * until its table info changes (a key added, REPLICA IDENTITY FULL) after {@code version}.
   */
  void hold(FollowedTable t, long version, long atTs, String why) {
    t.phase = ChangefeedStatus.TablePhase.NEEDS_KEY;
    t.heldVersion = version;
    t.heldAtTs = atTs;
    t.note = why;
    LOG.atWarn().addKeyValue("changefeedId", definition.id()).addKeyValue("table", t.name)
        .addKeyValue("commitTs", atTs).log("table held, the other tables go on: {}", why);
    close(t);
  }

  private void release(FollowedTable t, long version) {
    long from = Math.max(t.applied.ts(), version - 1);
    t.note = from > t.heldAtTs - 1 ? "rows changed upstream in (" + (t.heldAtTs - 1) + ", " + from + "] are missing "
        + "downstream: the table had no key then" + (t.keyed ? "; a snapshot reads the table again (see its snapshot "
        + "progress), after which they are equal" : "; it still has no key, so they are not read again (READ rows of a "
        + "keyless table are appended)") : null;
    t.applied = Checkpoint.at(from);
    t.phase = ChangefeedStatus.TablePhase.FOLLOWING;
    t.goneAtTs = -1;
    inbox.reopen(t, from);
    LOG.atInfo().addKeyValue("changefeedId", definition.id()).addKeyValue("table", t.name)
        .addKeyValue("startTs", from).addKeyValue("keyed", t.keyed).log("held table changed upstream; following it again");
    // the rows changed while it had no key are read again (READ rows upsert)
    open(t, t.keyed && t.note != null ? readFromStart(t, from, "re-reads the rows changed while the table had no key")
        : null);
  }

  /**
   * Marks {@code t}'s rows as read again from the start, from its stream position {@code since}, and records that
   * in the sink before any of its READ rows.
   *
   * @return the cursor its subscription reads from
   */
  private SnapshotCursor readFromStart(FollowedTable t, long since, String why) {
    t.snapshotState = TableSnapshot.State.RUNNING;
    t.snapshotSinceTs = since;
    t.snapshotReason = why;
    t.sampleRows = -1;
    t.snapshotRecords.add(s -> TableSnapshot.started(since));
    return SnapshotCursor.start();
  }

  /** The table known under {@code name} in whatever phase (the last one when several had it), or null. */
  FollowedTable anyByName(String name) {
    FollowedTable found = null;
    for (FollowedTable t : tables.values()) {
      if (t.name.equals(name)) {
        found = t;
      }
    }
    return found;
  }

  /** The table followed now under {@code name} ("schema.table"), or null. */
  FollowedTable byName(String name) {
    for (FollowedTable t : tables.values()) {
      if (t.live() && t.name.equals(name)) {
        return t;
      }
    }
    return null;
  }

  /** Ends {@code t}'s stream: it is not followed again by this run, nor (once the sink recorded it) by a later one. */
  void end(FollowedTable t, String why) {
    t.phase = ChangefeedStatus.TablePhase.ENDED;
    t.note = why;
    LOG.atInfo().addKeyValue("changefeedId", definition.id()).addKeyValue("table", t.name).log("table ended: {}", why);
    close(t);
  }

  private void close(FollowedTable t) {
    inbox.stopTaking(t);
    if (t.handle != null) {
      t.handle.closeAsync();
      t.handle = null;
    }
  }

  /** Closes every dispatcher (the runtime stops). */
  void closeAll() {
    for (FollowedTable t : tables.values()) {
      if (t.handle != null) {
        t.handle.closeAsync();
        t.handle = null;
      }
    }
  }

  /** Whether a subscription error means the table is gone for good (it ends), rather than a failure. */
  static boolean isGone(SluiceException error) {
    return error.code() == ErrorCode.TABLE_DROPPED || error.code() == ErrorCode.UNKNOWN_TABLE;
  }

  /** Queues a table's deliveries for the applier; blocks while its queue is full (back-pressure). */
  private final class TableListener implements ChangeListener {
    private final FollowedTable table;
    private final int generation;

    TableListener(FollowedTable table, int generation) {
      this.table = table;
      this.generation = generation;
    }

    @Override
    public void onTransaction(Transaction transaction) {
      if (transaction.snapshot() != null && transaction.snapshot().rowsEstimate() > 0) {
        table.rowsEstimate = transaction.snapshot().rowsEstimate();
      }
      put(Entry.txn(transaction));
    }

    @Override
    public void onDdl(DdlChange ddl) {
      put(Entry.ddl(ddl));
    }

    @Override
    public void onResolved(long ts) {
      put(Entry.resolved(ts));
    }

    @Override
    public void onSnapshotComplete(SnapshotOutcome outcome) {
      inbox.snapshotEnded(table, generation, outcome);
    }

    @Override
    public void onError(SluiceException error) {
      put(Entry.error(error));
    }

    private void put(Entry e) {
      try {
        inbox.put(table, generation, e);
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
