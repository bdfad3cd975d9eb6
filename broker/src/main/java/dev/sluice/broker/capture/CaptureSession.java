package dev.sluice.broker.capture;

import dev.sluice.api.CommitTs;
import dev.sluice.api.v1.RowOp;
import dev.sluice.broker.publication.PublicationMembers;
import dev.sluice.broker.publication.PublishedTables;
import dev.sluice.broker.snapshot.SnapshotWatermarks;
import dev.sluice.broker.store.EventStore;
import dev.sluice.broker.store.SourcePosition;
import dev.sluice.broker.store.StoreBatch;
import dev.sluice.schema.SchemaStore;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.postgresql.PGConnection;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.postgresql.replication.fluent.logical.ChainedLogicalStreamBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's worth of capture: checks and prepares the upstream (trigger, publication, slot,
 * initial definitions), then reads the pgoutput stream, turning each transaction into event-store rows
 * (through {@link GroupCommit}) and schema versions (through {@link SchemaTracker}). A broken
 * connection ends the session; the next one resumes from the durable position.
 *
 * <p>Transactions with a commit ts at or below the last stored one are replayed by PostgreSQL after a
 * restart (it resends from the confirmed flush position) and skipped here; their Relation messages are
 * still read, since the server sends each relation's layout once per session.
 *
 * <p>Threads: opened on the caller's thread, then streamed and closed on the capture thread.
 */
final class CaptureSession implements PgOutputHandler, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(CaptureSession.class);
  private static final long IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long LONG_IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
  private static final long STALE_READ_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  private final CaptureConfig config;
  private final CaptureMetrics metrics;
  private final Connection catalog;
  private final PGConnection replication;
  private final DdlCaptureMode mode;
  private final PgTypes types;
  private final SchemaTracker tracker;
  private final PgOutputDecoder decoder = new PgOutputDecoder();
  private final RowChangeEncoder encoder;
  private final Map<Long, PgRelation> relations = new HashMap<>();
  private final Map<Long, RelationLayout> layouts = new HashMap<>();
  private final SnapshotWatermarks watermarks;
  private final PublishedTables published;
  /** When the publication was last read (nanoTime). */
  private long publicationReadNanos;
  /** Whether a transaction with DDL came since: the publication is read again after it. */
  private boolean publicationStale;
  /** How long the last read took. */
  private long publicationReadTookNanos;
  private GroupCommit groupCommit;
  private PGReplicationStream stream;
  private Heartbeat heartbeat;

  private boolean inTxn;
  private boolean skip;
  // per-transaction counts, added to the meters at commit: no meter update per row
  private long inserted;
  private long updated;
  private long deleted;
  private long encodedBytes;
  // the relation of the previous row: consecutive rows usually share it, saving two map look-ups
  private long lastRowOid = -1;
  private RelationLayout lastRowLayout;
  private long commitTs;
  /** Row seq numbers of the open transaction, shared with the tracker: rows and DDL in arrival order. */
  private final TxnSequence sequence = new TxnSequence();
  private long lastSeenCommitTs;

  private CaptureSession(CaptureConfig config, CaptureMetrics metrics, Connection catalog, PGConnection replication,
      DdlCaptureMode mode, SchemaStore schemas, SnapshotWatermarks watermarks, PublishedTables published) {
    this.config = config;
    this.watermarks = watermarks;
    this.published = published;
    this.metrics = metrics;
    this.catalog = catalog;
    this.replication = replication;
    this.mode = mode;
    PgCatalog pgCatalog = new PgCatalog(catalog);
    this.types = new PgTypes(pgCatalog);
    this.tracker = new SchemaTracker(schemas, new TableDefinitions(types), pgCatalog, metrics, sequence);
    this.encoder = new RowChangeEncoder(metrics.fallbackValues);
  }

  /**
   * Connects, checks and prepares the upstream, and starts the stream at the stored position.
   *
   * @throws UpstreamMisconfiguredException when the upstream cannot be captured as configured
   * @throws ReplicationSlotLostException   when the slot to resume from is missing or invalidated
   * @throws UpstreamUnavailableException   when the upstream cannot be reached (retry later)
   */
  static CaptureSession open(UpstreamConnector connector, CaptureConfig config, EventStore store,
      SchemaStore schemas, CaptureMetrics metrics, SnapshotWatermarks watermarks, PublishedTables published) {
    Connection catalog = null;
    PGConnection replication = null;
    String doing = "connecting";
    try {
      catalog = connector.openCatalog();
      doing = "checking the server";
      UpstreamChecks.Server server = UpstreamChecks.checkServer(catalog);
      String database = ReplicationSlotSetup.currentDatabase(catalog);
      doing = "installing DDL capture";
      DdlCaptureMode mode = DdlCaptureMode.RELATION_MESSAGES;
      boolean installed = config.installDdlTrigger() && DdlCaptureInstaller.install(catalog);
      doing = "preparing publication " + config.publicationName();
      ReplicationSlotSetup.ensurePublication(catalog, server, config.publicationName());
      if (config.installDdlTrigger()) {
        if (installed) {
          DdlCaptureInstaller.publish(catalog, config.publicationName());
        }
        mode = DdlCaptureInstaller.mode(catalog, config.publicationName());
      }
      doing = "opening the replication connection";
      replication = connector.openReplication();
      CaptureSession session = new CaptureSession(config, metrics, catalog, replication, mode, schemas, watermarks,
          published);
      doing = "reading publication " + config.publicationName();
      session.readPublication();
      doing = "preparing replication slot " + config.slotName();
      long startLsn = session.prepareSlot(server, database, store, schemas);
      session.groupCommit = new GroupCommit(store, schemas, config, metrics, session::confirm, System::nanoTime);
      session.lastSeenCommitTs = session.groupCommit.durableCommitTs();
      doing = "starting replication from " + CommitTs.of(startLsn).toLsnString();
      session.startStream(server, startLsn);
      session.heartbeat = Heartbeat.start(() -> connector.openPlain("sluice-heartbeat"), config.heartbeatInterval(),
          config.slotName());
      log.atInfo().addKeyValue("slot", config.slotName()).addKeyValue("mode", mode)
          .addKeyValue("startLsn", CommitTs.of(startLsn).toLsnString()).addKeyValue("upstream", connector.displayUrl())
          .log("capture streaming");
      return session;
    } catch (SQLException e) {
      closeQuietly(catalog, replication);
      throw UpstreamChecks.classify(e, connector.displayUrl(), doing);
    } catch (RuntimeException e) {
      closeQuietly(catalog, replication);
      throw e;
    }
  }

  DdlCaptureMode mode() {
    return mode;
  }

  GroupCommit groupCommit() {
    return groupCommit;
  }

  /** Reads and stores until {@code running} turns false; then writes what is buffered. */
  void stream(BooleanSupplier running) {
    try {
      int idlePolls = 0;
      while (running.getAsBoolean()) {
        ByteBuffer message = stream.readPending();
        if (message == null) {
          groupCommit.flushIfPending();
          readPublicationIfDue();
          LockSupport.parkNanos(idlePolls++ < 200 ? IDLE_PARK_NANOS : LONG_IDLE_PARK_NANOS);
          continue;
        }
        idlePolls = 0;
        decoder.decode(message, this);
      }
      groupCommit.drain();
      stream.forceUpdateStatus();
    } catch (SQLException e) {
      groupCommit.discard();
      throw UpstreamChecks.classify(e, "upstream", "reading the replication stream");
    } catch (RuntimeException e) {
      groupCommit.discard();
      throw e;
    }
  }

  private long prepareSlot(UpstreamChecks.Server server, String database, EventStore store, SchemaStore schemas)
      throws SQLException {
    String slot = config.slotName();
    Optional<UpstreamChecks.SlotState> state = UpstreamChecks.slot(catalog, server, slot);
    Optional<SourcePosition> position = store.position();
    if (state.isPresent()) {
      UpstreamChecks.checkSlot(state.get(), slot, database);
      if (position.isPresent()) {
        return position.get().restartPosition();
      }
      log.atWarn().addKeyValue("slot", slot)
          .log("the slot exists but the event store is empty (new data directory): recreating the slot");
      ReplicationSlotSetup.dropSlot(catalog, slot);
    } else if (position.isPresent()) {
      throw ReplicationSlotLostException.missing(slot, CommitTs.of(position.get().restartPosition()).toLsnString());
    }
    ReplicationSlotSetup.Created created =
        ReplicationSlotSetup.createSlot(replication, catalog, slot, new TableDefinitions(types));
    tracker.begin(created.initialVersion(), 0);
    tracker.applyInitial(created.tables(), created.initialVersion());
    schemas.advanceResolvedTs(created.initialVersion());
    StoreBatch batch = store.newBatch();
    batch.setPosition(new SourcePosition(created.initialVersion(), created.consistentPoint()));
    batch.setResolvedTs(created.initialVersion());
    // nothing committed before the slot is in this store; the tables it found are created at the initial
    // version and a changefeed starts them just before it (no transaction commits at an unaligned LSN)
    batch.setFloorTs(created.initialVersion() - 1);
    store.write(batch, true);
    return created.consistentPoint();
  }

  private void startStream(UpstreamChecks.Server server, long startLsn) throws SQLException {
    ChainedLogicalStreamBuilder b = replication.getReplicationAPI().replicationStream().logical()
        .withSlotName(config.slotName())
        .withStartPosition(LogSequenceNumber.valueOf(startLsn))
        .withSlotOption("proto_version", "1")
        .withSlotOption("publication_names", config.publicationName())
        .withStatusInterval(Math.toIntExact(config.statusInterval().toMillis()), TimeUnit.MILLISECONDS);
    if (server.supportsMessages()) {
      b.withSlotOption("messages", "true");
    }
    stream = b.start();
    confirm(startLsn); // durable already: lets the server recycle WAL before the first new commit
  }

  private void confirm(long endLsn) {
    LogSequenceNumber lsn = LogSequenceNumber.valueOf(endLsn);
    stream.setFlushedLSN(lsn);
    stream.setAppliedLSN(lsn);
  }

  @Override
  public void onBegin(long finalLsn, long commitTimeMicros, int xid) {
    inTxn = true;
    commitTs = finalLsn;
    sequence.restart();
    inserted = 0;
    updated = 0;
    deleted = 0;
    encodedBytes = 0;
    skip = finalLsn <= lastSeenCommitTs;
    tracker.begin(finalLsn, lastSeenCommitTs);
  }

  @Override
  public void onCommit(long commitLsn, long endLsn, long commitTimeMicros) {
    if (!inTxn || commitLsn != commitTs) {
      throw new PgOutputFormatException("Commit at " + CommitTs.of(commitLsn).toLsnString()
          + " does not match the open transaction's Begin at " + CommitTs.of(commitTs).toLsnString());
    }
    inTxn = false;
    if (skip) {
      tracker.abort();
      return;
    }
    for (Long table : tracker.applyPending()) {
      forget(table);
      publicationStale = true;   // a table created (or renamed) may be in or out of the publication: read it now
    }
    groupCommit.commit(commitTs, endLsn, commitTimeMicros);
    metrics.txns.increment();
    flushCounts();
    lastSeenCommitTs = commitTs;
    groupCommit.maybeFlush();
    readPublicationIfDue();
  }

  private void readPublicationIfDue() {
    long since = System.nanoTime() - publicationReadNanos;
    // after DDL at most every 200 ms, or 10 reads' time (5,000 tables: a read takes 20-65 ms): a migration of a
    // thousand CREATEs does not spend the capture thread on reading the catalog a thousand times
    long staleGap = Math.max(STALE_READ_GAP_NANOS, 10 * publicationReadTookNanos);
    if (since >= PublishedTables.REREAD_INTERVAL.toNanos() || (publicationStale && since >= staleGap)) {
      try {
        readPublication();
      } catch (SQLException e) {
        throw UpstreamChecks.classify(e, "upstream", "reading publication " + config.publicationName());
      }
    }
  }

  /** Reads which tables the publication leaves out and hands that to the planes that serve them. */
  private void readPublication() throws SQLException {
    publicationReadNanos = System.nanoTime();
    publicationStale = false;
    PublicationMembers members = PublicationReader.read(catalog, config.publicationName(), System.currentTimeMillis());
    publicationReadTookNanos = System.nanoTime() - publicationReadNanos;
    if (members != null) {
      published.update(members);
    }
  }

  @Override
  public void onRelation(PgRelation relation) {
    relations.put(relation.oid(), relation);
    forget(relation.oid());
  }

  @Override
  public void onType(int oid, String namespace, String name) {
    types.resolve(oid); // warm the cache before the Relation that uses it
  }

  @Override
  public void onInsert(long relationOid, TupleData newTuple) {
    if (skip) {
      return;
    }
    RelationLayout layout = layout(relationOid);
    if (layout == null) {
      PgRelation relation = relation(relationOid);
      if (isCaptureTable(relation)) {
        onCaptureRow(relation, newTuple);
      }
    } else {
      emit(RowOp.ROW_OP_INSERT, layout, (byte) 0, null, newTuple);
      inserted++;
    }
  }

  @Override
  public void onUpdate(long relationOid, byte oldKind, TupleData oldTuple, TupleData newTuple) {
    if (skip) {
      return;
    }
    RelationLayout layout = layout(relationOid);
    if (layout != null) {
      emit(RowOp.ROW_OP_UPDATE, layout, oldKind, oldTuple, newTuple);
      updated++;
    }
  }

  @Override
  public void onDelete(long relationOid, byte oldKind, TupleData oldTuple) {
    if (skip) {
      return;
    }
    RelationLayout layout = layout(relationOid);
    if (layout != null) {
      emit(RowOp.ROW_OP_DELETE, layout, oldKind, oldTuple, null);
      deleted++;
    }
  }

  @Override
  public void onTruncate(long[] relationOids, boolean cascade, boolean restartIdentity) {
    if (skip) {
      return;
    }
    long[] captured = java.util.Arrays.stream(relationOids)
        .filter(oid -> !isIgnored(relations.get(oid))).toArray();
    tracker.onTruncate(captured);
    for (long oid : captured) {
      forget(oid);
    }
  }

  @Override
  public void onMessage(boolean transactional, long lsn, String prefix, byte[] content) {
    // heartbeats (and other emitted messages) carry nothing to store: their transaction's commit
    // advances the resolved ts. A snapshot watermark's reader learns its commit ts here, before the
    // batch holding the transaction is written, so no stream can pass it unseen.
    if (transactional && inTxn && watermarks != null) {
      watermarks.onMessage(prefix, content, commitTs);
    }
  }

  /** Drops the cached layout of a relation (new Relation message, schema change). */
  private void forget(long oid) {
    layouts.remove(oid);
    lastRowOid = -1;
    lastRowLayout = null;
  }

  private void flushCounts() {
    if (inserted > 0) {
      metrics.rowsInserted.increment(inserted);
    }
    if (updated > 0) {
      metrics.rowsUpdated.increment(updated);
    }
    if (deleted > 0) {
      metrics.rowsDeleted.increment(deleted);
    }
    if (encodedBytes > 0) {
      metrics.bytes.increment(encodedBytes);
    }
    inserted = 0;
    updated = 0;
    deleted = 0;
    encodedBytes = 0;
  }

  private void emit(RowOp op, RelationLayout layout, byte oldKind, TupleData before, TupleData after) {
    long rowSeq = sequence.take();   // after the layout: a DDL derived for this row takes its number first
    byte[] bytes = encoder.encode(op, layout, oldKind, before, after, rowSeq);
    groupCommit.addRow(layout.relation().oid(), commitTs, rowSeq, encoder.lastKeyHash(), bytes);
    encodedBytes += bytes.length;
  }

  private PgRelation relation(long oid) {
    PgRelation r = relations.get(oid);
    if (r == null) {
      throw new PgOutputFormatException("row of relation " + oid + " arrived before its Relation message");
    }
    return r;
  }

  /** The layout for rows of the relation, or {@code null} for relations capture ignores. */
  private RelationLayout layout(long relationOid) {
    if (relationOid == lastRowOid && lastRowLayout != null) {
      return lastRowLayout;
    }
    RelationLayout layout = layout(relation(relationOid));
    lastRowOid = relationOid;
    lastRowLayout = layout;
    return layout;
  }

  private RelationLayout layout(PgRelation relation) {
    RelationLayout layout = layouts.get(relation.oid());
    if (layout != null) {
      return layout;
    }
    if (isIgnored(relation)) {
      return null;
    }
    PgType[] columnTypes = new PgType[relation.columns().size()];
    for (int i = 0; i < columnTypes.length; i++) {
      columnTypes[i] = types.resolve(relation.columns().get(i).typeOid());
    }
    layout = RelationLayout.of(relation, columnTypes, tracker.tableFor(relation, columnTypes));
    layouts.put(relation.oid(), layout);
    return layout;
  }

  private void onCaptureRow(PgRelation relation, TupleData tuple) {
    if (mode != DdlCaptureMode.EVENT_TRIGGER) {
      return;
    }
    String tag = column(relation, tuple, "command_tag");
    long tableOid = Long.parseLong(column(relation, tuple, "table_oid"));
    String statement = column(relation, tuple, "statement");
    tracker.onCapturedDdl(tag, tableOid, statement == null ? "" : statement, column(relation, tuple, "definition"));
    forget(tableOid);
  }

  private static String column(PgRelation relation, TupleData tuple, String name) {
    for (int i = 0; i < relation.columns().size(); i++) {
      if (relation.columns().get(i).name().equals(name)) {
        return tuple.text(i);
      }
    }
    throw new PgOutputFormatException("sluice.ddl_capture has no column " + name + "; reinstall DDL capture");
  }

  private static boolean isCaptureTable(PgRelation r) {
    return DdlCaptureSql.SCHEMA.equals(r.namespace()) && DdlCaptureSql.CAPTURE_TABLE.equals(r.name());
  }

  private static boolean isIgnored(PgRelation r) {
    return r == null || DdlCaptureSql.SCHEMA.equals(r.namespace());
  }

  @Override
  public void close() {
    if (heartbeat != null) {
      heartbeat.close();
    }
    if (groupCommit != null) {
      groupCommit.close();
    }
    closeQuietly(catalog, replication); // no CopyDone: that would drain the server's backlog first
  }

  private static void closeQuietly(Connection catalog, PGConnection replication) {
    for (Object c : new Object[] {catalog, replication}) {
      if (c instanceof Connection conn) {
        try {
          conn.close();
        } catch (SQLException ignored) {
          // already broken
        }
      }
    }
  }
}
