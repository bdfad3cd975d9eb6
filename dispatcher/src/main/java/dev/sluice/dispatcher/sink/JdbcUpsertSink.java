package dev.sluice.dispatcher.sink;

import dev.sluice.api.error.SluiceException;
import dev.sluice.api.v1.DdlType;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.RowImage;
import dev.sluice.dispatcher.Transaction;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies transactions to PostgreSQL or MySQL/MariaDB as upserts and deletes by primary key, in JDBC
 * batches, and writes the changefeed's checkpoint rows in the same database transaction as the rows:
 * a reset, a crash or a replay never applies a transaction twice (exactly once into the target).
 *
 * <p>Progress lives in two tables of the connection's default schema ({@link JdbcProgress}):
 * {@code sluice_checkpoint} (changefeed id, checkpoint ts = the minimum over tables, updated at) and
 * {@code sluice_table_checkpoint} (per table: applied position with the cursor inside a transaction
 * that arrived in parts, the last applied DDL ts, and the ts its stream ended at), because tables of
 * one changefeed advance independently. Transactions and rows the stored position covers are skipped.
 *
 * <p><b>Fencing.</b> With a {@link JdbcSinkConfig#fenceToken() fencing token} (a hosted changefeed's
 * owner in a cluster) the sink claims the token in {@code sluice_fence} when it opens, before it reads
 * the progress, and every transaction it writes starts by locking that row ({@code SELECT ... FOR
 * UPDATE}) and comparing: once a newer owner claimed a higher token, the older writer's transaction is
 * rolled back whole and {@link FencedOutException} stops it. The row lock orders the two: a claim waits
 * for the old owner's transaction in flight, which commits under the old token, and the new owner then
 * reads the progress that includes it. So two owners never both apply a transaction. On MySQL/MariaDB a
 * DDL commits on its own: the check precedes it but does not enclose it.
 *
 * <p>Rules: the apply session does not let the target's constraints judge what the source accepted
 * (PostgreSQL {@code session_replication_role = replica}, which needs a superuser or, from PostgreSQL 15,
 * {@code GRANT SET ON PARAMETER session_replication_role}; MySQL/MariaDB {@code foreign_key_checks = 0}),
 * see {@link #constraintsRelaxed()}. Values are written as captured, identity columns included
 * ({@code OVERRIDING SYSTEM VALUE}, see {@link IdentityColumns}). A table without a primary key gets plain
 * inserts, and updates and deletes matching its whole old row (REPLICA IDENTITY FULL upstream); a keyless
 * change without that image is a {@link RowIdentityMissingException}. Unavailable values (unchanged TOAST)
 * are left out of the statement so the target keeps them; an UPDATE that changes the key deletes the old
 * key first. On MySQL/MariaDB a decimal its target column cannot hold exactly is refused
 * ({@link DecimalColumns}), so are a date or timestamp out of their range (infinity, BC, years past 9999) and a
 * float NaN or infinity ({@link MysqlValueRange}), and the tables the sink creates compare text exactly
 * ({@link KeyCollation}); on
 * PostgreSQL the user-defined types a table needs are created first ({@link PgUserTypes}). DDL is applied by
 * {@link DdlStatements}, at its place among its transaction's rows. On PostgreSQL a snapshot into an empty table
 * loads without the table's primary key, which is added back after the last chunk, the changes that came meanwhile
 * replayed then ({@link #finishDeferredKeys()}).
 *
 * <p>Not thread-safe: one applier thread.
 *
 * <pre>{@code
 * try (JdbcUpsertSink sink = JdbcUpsertSink.open(JdbcSinkConfig.of(url, "app", "secret", "cf1"))) {
 *   sink.apply(List.of(txn), txn.commitTs());
 * }
 * }</pre>
 */
public final class JdbcUpsertSink implements Sink {

  private static final Logger LOG = LoggerFactory.getLogger(JdbcUpsertSink.class);

  private final JdbcSinkConfig config;
  private final Dialect dialect;
  private final JdbcProgress progress;
  /** The connection and what lives as long as it; null until the first use and after a broken one was closed. */
  private TargetSession session;
  /** Read by the first session, kept by the next ones. */
  private String homeSchema;
  private boolean constraintsRelaxed;
  private final Set<Long> ensuredTables = new HashSet<>();
  /** Progress written in the open target transaction, not committed yet. */
  private final Map<Long, SinkCheckpoint.TableProgress> staged = new LinkedHashMap<>();
  private long appliedTransactions;
  private long skippedTransactions;
  private long stagedApplied;
  /** Fencing against an older owner of the changefeed; made once the home schema is known. */
  private SinkFence fence;
  private long stagedSkipped;

  private JdbcUpsertSink(JdbcSinkConfig config) {
    this.config = config;
    this.dialect = config.dialect();
    this.progress = new JdbcProgress(config.changefeedId(), dialect);
  }

  /** Connects, creates the checkpoint tables when missing and reads the stored progress. */
  public static JdbcUpsertSink open(JdbcSinkConfig config) {
    JdbcUpsertSink sink = new JdbcUpsertSink(config);
    try {
      sink.connection();
      sink.fence().claim(sink.session.connection, sink.session.tableOptions());   // before the progress is read: what an older owner
                                                                   // committed until now is in it
      sink.progress.open(sink.session.connection, sink.homeSchema, sink.session.tableOptions());
      LOG.atInfo().addKeyValue("changefeedId", config.changefeedId())
          .addKeyValue("checkpointTs", sink.progress.checkpointTs()).addKeyValue("tables", sink.progress.tableCount())
          .addKeyValue("constraintsRelaxed", sink.constraintsRelaxed).log("JDBC sink opened");
    } catch (SQLException e) {
      sink.close();
      throw sink.classify(e, "(checkpoint tables)", 0);
    } catch (RuntimeException e) {
      sink.close();
      throw e;
    }
    return sink;
  }

  /** The target's SQL dialect. */
  public Dialect dialect() {
    return dialect;
  }

  @Override
  public SinkCheckpoint checkpoint() {
    return progress.snapshot();
  }

  /** Transactions applied since open. */
  public long appliedTransactions() {
    return appliedTransactions;
  }

  /** Transactions skipped since open because the stored progress covered them. */
  public long skippedTransactions() {
    return skippedTransactions;
  }

  /**
   * Whether the apply session runs with the target's foreign keys and triggers off for what it writes
   * (false when the PostgreSQL user may not set {@code session_replication_role}: a row whose parent
   * arrives later, or a parent deleted before its children, is then refused with SQL state 23503).
   */
  public boolean constraintsRelaxed() {
    return constraintsRelaxed;
  }

  /** Updates and deletes of keyless tables that matched no target row since the last connect. */
  public long unmatchedRows() {
    return session == null ? 0 : session.writer.unmatchedRows();
  }

  /**
   * Adds back now every primary key this sink dropped to load a snapshot into an empty PostgreSQL table, and
   * replays the changes of those tables that waited meanwhile ({@link SinkCheckpoint.TableProgress#deferredKey()}),
   * for a snapshot that will not complete: the sink finishes a table itself after its snapshot's last chunk, when
   * {@link #recordSnapshot} records it ended or paused, before a DDL of it, and when its stream ends. With the open
   * target transaction when one holds progress (it commits with it), else in a transaction of its own at once.
   *
   * <pre>{@code
   * sink.finishDeferredKeys();   // the snapshot was abandoned: its tables get their keys and their changes now
   * }</pre>
   *
   * @return the tables finished ("schema.table"), none on MySQL/MariaDB
   * @throws SinkFailedException when a key cannot be added back (the table holds duplicate keys), naming it
   */
  public List<String> finishDeferredKeys() {
    String table = "(deferred keys)";
    try {
      connection();
      Map<Long, SinkCheckpoint.TableProgress> tables = new LinkedHashMap<>(progress.snapshot().tables());
      tables.putAll(staged);
      List<String> finished = new ArrayList<>();
      boolean open = !staged.isEmpty();
      for (Map.Entry<Long, SinkCheckpoint.TableProgress> e : tables.entrySet()) {
        if (e.getValue().deferredKey() != null) {
          table = e.getValue().tableName();
          fence().guard(session.connection);
          finishDeferred(e.getKey(), false);
          finished.add(table);
        }
      }
      if (!open && !finished.isEmpty()) {
        commitStaged(progress.checkpointTs());
      }
      return finished;
    } catch (SQLException e) {
      throw rollbackAndClassify(e, table, 0);
    }
  }

  @Override
  public void apply(List<Transaction> transactions, long changefeedCheckpointTs) {
    applyInOrder(transactions.stream().<SinkChange>map(SinkChange.Rows::new).toList(), true, changefeedCheckpointTs);
  }

  @Override
  public void applyDdl(DdlChange change, long changefeedCheckpointTs) {
    applyInOrder(List.of(new SinkChange.Schema(change)), true, changefeedCheckpointTs);
  }

  @Override
  public void applyInOrder(List<SinkChange> given, boolean commit, long changefeedCheckpointTs) {
    String table = "";
    long ts = 0;
    try {
      connection();
      fence().guard(session.connection);
      List<SinkChange> changes = constraintsRelaxed ? byTable(given) : given;
      // the tables rows go to are created before the first row: on MySQL a CREATE commits at once
      Set<Long> changedHere = new HashSet<>();
      for (SinkChange c : changes) {
        if (c instanceof SinkChange.Schema s) {
          changedHere.add(s.ddl().tableId());
        } else if (c instanceof SinkChange.Rows r && !changedHere.contains(r.transaction().tableId())
            && applies(r.transaction())) {
          table = r.transaction().tableName();
          ts = r.commitTs();
          ensureTable(r.transaction().tableInfo(), ts);
        }
      }
      for (SinkChange c : changes) {
        table = c instanceof SinkChange.Rows r ? r.transaction().tableName() : ((SinkChange.Schema) c).ddl().tableName();
        ts = c.commitTs();
        fence().guard(session.connection);   // again after a commit inside this call (a CREATE or DDL on MySQL)
        if (c instanceof SinkChange.Rows r) {
          writeRows(r.transaction());
        } else {
          writeDdl(((SinkChange.Schema) c).ddl());
        }
      }
      if (commit) {
        commitStaged(Math.max(progress.checkpointTs(), changefeedCheckpointTs));
      } else {
        flushRows();   // a failure shows in this call, not in the one that commits
      }
    } catch (SQLException e) {
      throw rollbackAndClassify(e, table, ts);
    } catch (RuntimeException e) {
      rollbackQuietly();
      throw e;
    }
  }

  @Override
  public void advance(long changefeedCheckpointTs) {
    if (changefeedCheckpointTs <= progress.checkpointTs() && staged.isEmpty()) {
      return;
    }
    try {
      connection();
      fence().guard(session.connection);
      commitStaged(Math.max(progress.checkpointTs(), changefeedCheckpointTs));
    } catch (SQLException e) {
      throw rollbackAndClassify(e, "(checkpoint)", changefeedCheckpointTs);
    }
  }

  /**
   * Records {@code snapshot} as table {@code tableId}'s snapshot: with the open target transaction when one
   * holds progress (it commits with it), else in a transaction of its own at once.
   */
  @Override
  public void recordSnapshot(long tableId, String tableName, TableSnapshot snapshot) {
    SinkCheckpoint.TableProgress p = current(tableId);
    SinkCheckpoint.TableProgress base = p != null ? p : new SinkCheckpoint.TableProgress(tableName, Checkpoint.at(0),
        0);
    if (base.snapshot().equals(snapshot)) {
      return;
    }
    try {
      connection();
      boolean open = !staged.isEmpty();
      stage(tableId, base.withSnapshot(snapshot));
      if (base.deferredKey() != null && DeferredKeys.ends(base.snapshot(), snapshot)) {
        fence().guard(session.connection);
        finishDeferred(tableId, false);   // not the snapshot that began the deferral any more
      }
      if (!open) {
        fence().guard(session.connection);
        commitStaged(progress.checkpointTs());
      }
    } catch (SQLException e) {
      throw rollbackAndClassify(e, tableName, 0);
    }
  }

  @Override
  public void markDropped(long tableId, String tableName, long droppedTs) {
    SinkCheckpoint.TableProgress p = current(tableId);
    if (p != null && p.dropped()) {
      return;
    }
    try {
      connection();
      SinkCheckpoint.TableProgress base = p != null ? p : new SinkCheckpoint.TableProgress(tableName,
          Checkpoint.at(0), 0);
      stage(tableId, base.droppedAt(droppedTs));
      fence().guard(session.connection);
      finishDeferred(tableId, true);   // the target table stays: with its key and the changes of its stream
      commitStaged(progress.checkpointTs());
      LOG.atInfo().addKeyValue("changefeedId", config.changefeedId()).addKeyValue("table", tableName)
          .addKeyValue("droppedTs", droppedTs).log("table's stream ended; recorded so that a restart leaves it");
    } catch (SQLException e) {
      throw rollbackAndClassify(e, tableName, droppedTs);
    }
  }

  @Override
  public void close() {
    if (session != null) {
      session.close();   // an open target transaction is rolled back
      session = null;
    }
    staged.clear();
  }

  /**
   * {@code changes} with the rows between two schema changes grouped by table, each table's in their
   * order: one target transaction shows them all at once, so only a table's own order matters once the
   * target's constraints do not judge the rows, and grouped rows share JDBC batches (interleaved, each
   * transaction's few rows of a table would be a batch of their own).
   */
  private static List<SinkChange> byTable(List<SinkChange> changes) {
    List<SinkChange> out = new ArrayList<>(changes.size());
    Map<Long, List<SinkChange>> segment = new LinkedHashMap<>();
    for (SinkChange c : changes) {
      if (c instanceof SinkChange.Rows r) {
        segment.computeIfAbsent(r.transaction().tableId(), k -> new ArrayList<>()).add(c);
      } else {
        segment.values().forEach(out::addAll);
        segment.clear();
        out.add(c);
      }
    }
    segment.values().forEach(out::addAll);
    return out;
  }

  // ---- the open target transaction -----------------------------------------------------------

  private SinkCheckpoint.TableProgress current(long tableId) {
    SinkCheckpoint.TableProgress p = staged.get(tableId);
    return p != null ? p : progress.table(tableId);
  }

  private Checkpoint positionOf(long tableId) {
    SinkCheckpoint.TableProgress p = current(tableId);
    return p == null ? Checkpoint.at(0) : p.applied();
  }

  private void stage(long tableId, SinkCheckpoint.TableProgress p) {
    staged.put(tableId, p);
  }

  /** Writes the staged progress and {@code checkpointTs}, and commits the open target transaction. */
  private void commitStaged(long checkpointTs) throws SQLException {
    flushRows();
    for (Map.Entry<Long, SinkCheckpoint.TableProgress> e : staged.entrySet()) {
      progress.writeTable(session.connection, e.getKey(), e.getValue());
    }
    progress.writeCheckpoint(session.connection, checkpointTs);
    session.connection.commit();
    if (fence != null) {
      fence.transactionEnded();
    }
    if (session.copyLoader != null) {
      session.copyLoader.transactionEnded();
    }
    progress.committed(staged, checkpointTs);
    staged.clear();
    appliedTransactions += stagedApplied;
    skippedTransactions += stagedSkipped;
    stagedApplied = 0;
    stagedSkipped = 0;
  }

  // ---- rows ----------------------------------------------------------------------------------

  /** Whether some row of {@code t} is not covered by the table's progress. */
  private boolean applies(Transaction t) {
    SinkCheckpoint.TableProgress p = current(t.tableId());
    return p == null || (!p.dropped() && !p.applied().coversAll(t.commitTs()));
  }

  private void writeRows(Transaction t) throws SQLException {
    SinkCheckpoint.TableProgress p = current(t.tableId());
    Checkpoint at = p == null ? Checkpoint.at(0) : p.applied();
    if (!applies(t)) {
      stagedSkipped++;
      return;
    }
    ensureTable(t.tableInfo(), t.commitTs());
    String target = target(t.tableInfo());
    String deferredKey = deferredKey(t, p, target);
    session.writer.at(t.commitTs());
    List<RowImage> chunk = copyable(t, at, target);
    if (deferredKey != null) {
      session.deferredKeys.write(target, t, at, chunk);
    } else if (chunk == null || !copied(target, t.tableInfo(), chunk)) {
      for (RowChangeView row : t.rows()) {
        if (!at.covers(t.commitTs(), row.rowSeq())) {
          write(target, targetSchema(t.tableInfo()), t.tableInfo(), t.commitTs(), row);
        }
      }
    }
    stage(t.tableId(), new SinkCheckpoint.TableProgress(t.tableName(), at.max(t.checkpoint()),
        p == null ? 0 : p.ddlTs(), 0, (p == null ? TableSnapshot.NONE : p.snapshot()).after(t), deferredKey));
    stagedApplied++;
    if (deferredKey != null && t.snapshot() != null && t.snapshot().last()) {
      finishDeferred(t.tableId(), false);   // the chunk that read the table to its end: the key goes back with it
    }
  }

  /**
   * The statement adding back the key of {@code t}'s table when its rows go the deferred way ({@link DeferredKeys}):
   * deferred already, or from this chunk on; else null, after finishing a deferral whose table info {@code t} no
   * longer follows.
   */
  private String deferredKey(Transaction t, SinkCheckpoint.TableProgress p, String target) throws SQLException {
    if (session.deferredKeys == null) {
      return null;
    }
    String key = p == null ? null : p.deferredKey();
    if (key != null && !session.deferredKeys.follows(t.tableId(), t.tableInfo())) {
      finishDeferred(t.tableId(), false);   // its shape changed without a DDL applied here
      return null;
    }
    if (key == null && DeferredKeys.mayDefer(t, p == null ? TableSnapshot.NONE : p.snapshot())) {
      session.writer.flush();   // the probe sees the rows before it
      key = session.deferredKeys.defer(target, t);
    }
    return key;
  }

  /**
   * Adds table {@code tableId}'s deferred key back and replays its logged changes, in the open target transaction
   * ({@link DeferredKeys#finish}); nothing when its key is not deferred.
   */
  private void finishDeferred(long tableId, boolean ifTableExists) throws SQLException {
    SinkCheckpoint.TableProgress p = current(tableId);
    if (session.deferredKeys == null || p == null || p.deferredKey() == null) {
      return;
    }
    session.writer.flush();
    session.deferredKeys.finish(tableId, p.tableName(), p.deferredKey(), ifTableExists, (info, commitTs, row) -> {
      session.writer.at(commitTs);
      write(target(info), targetSchema(info), info, commitTs, row);
    });
    stage(tableId, p.withDeferredKey(null));
  }

  /** Executes the rows batched for the open target transaction. */
  private void flushRows() throws SQLException {
    session.writer.flush();
    if (session.deferredKeys != null) {
      session.deferredKeys.flush();
    }
  }

  /**
   * The after images of {@code t} when it is a snapshot chunk the COPY path can load into PostgreSQL (READ rows
   * only, enough of them, none applied yet, no identity column the target generates ALWAYS; the loader
   * checks every value is present, and writes rows that came as COPY lines as they are), else null: the rows go
   * one by one.
   */
  private List<RowImage> copyable(Transaction t, Checkpoint at, String target) throws SQLException {
    if (session.copyLoader == null || t.rows().size() < PgCopyLoader.MIN_ROWS) {
      return null;
    }
    List<RowImage> images = new ArrayList<>(t.rows().size());
    for (RowChangeView row : t.rows()) {
      if (row.op() != RowOp.ROW_OP_READ || at.covers(t.commitTs(), row.rowSeq())) {
        return null;
      }
      images.add(row.after());
    }
    if (session.identity != null && !session.identity.always(target).isEmpty()) {
      return null;
    }
    return images;
  }

  /** Loads a chunk by COPY; false, with nothing written, when an image lacks a value (it goes row by row). */
  private boolean copied(String target, TableInfo info, List<RowImage> chunk) throws SQLException {
    session.writer.flush();   // rows batched before it keep their order
    return session.copyLoader.upsert(target, info, chunk);
  }

  private void write(String target, String schema, TableInfo info, long commitTs, RowChangeView row)
      throws SQLException {
    if (session.decimals != null && row.after().isPresent()) {   // the image an upsert binds
      try {
        session.decimals.check(schema, info, row.after());
      } catch (SQLException e) {
        throw RejectedRowException.of(e, List.of(new RejectedRowException.Row(info, 0, row.after(), null)));
      }
    }
    if (dialect == Dialect.MYSQL) {   // PostgreSQL holds every date, timestamp and float, infinity and BC included
      if (row.after().isPresent()) {
        MysqlValueRange.check(target, info, row.after(), false);
      }
      if (row.before().isPresent()) {   // a DELETE, or an UPDATE that moves the key, binds the old key
        MysqlValueRange.check(target, info, row.before(), true);
      }
    }
    if (info.getPrimaryKeyCount() == 0) {
      writeKeyless(target, info, commitTs, row);
      return;
    }
    Set<String> insertOnly = session.identity == null ? Set.of() : session.identity.always(target);
    switch (row.op()) {
      // a snapshot's READ row is the row as it stands: an upsert, like an insert
      case ROW_OP_INSERT, ROW_OP_READ -> session.writer.upsert(target, info, row.after(), insertOnly);
      case ROW_OP_UPDATE -> {
        List<Value> newKey = RowWriter.keyOf(info, row.after());
        List<Value> oldKey = row.before().isPresent() ? RowWriter.keyOf(info, row.before()) : null;
        if (oldKey != null && !oldKey.equals(newKey)) {
          session.writer.delete(target, info, oldKey);     // the key changed: the old row goes
        }
        session.writer.upsert(target, info, row.after(), insertOnly);
      }
      case ROW_OP_DELETE -> {
        List<Value> key = RowWriter.keyOf(info, row.before().isPresent() ? row.before() : row.after());
        if (key == null) {
          throw new SQLException("a DELETE without the key columns in its before image", "22000");
        }
        session.writer.delete(target, info, key);
      }
      case ROW_OP_UNSPECIFIED, UNRECOGNIZED -> throw new SQLException("row op " + row.op() + " at row seq "
          + row.rowSeq(), "22000");
    }
  }

  /** A table without a key: its rows are matched by their whole old image (REPLICA IDENTITY FULL). */
  private void writeKeyless(String target, TableInfo info, long commitTs, RowChangeView row) throws SQLException {
    switch (row.op()) {
      // a snapshot's READ row of a keyless table is appended, as an insert (docs/CAPTURE.md "Keyless tables")
      case ROW_OP_INSERT, ROW_OP_READ -> session.writer.insert(target, info, row.after());
      case ROW_OP_UPDATE, ROW_OP_DELETE -> {
        if (!row.before().isPresent() || row.before().size() < info.getColumnsCount()) {
          throw new RowIdentityMissingException(info, commitTs, row.op());
        }
        if (row.op() == dev.sluice.api.v1.RowOp.ROW_OP_UPDATE) {
          session.writer.updateMatching(target, info, row.before(), row.after());
        } else {
          session.writer.deleteMatching(target, info, row.before());
        }
      }
      case ROW_OP_UNSPECIFIED, UNRECOGNIZED -> throw new SQLException("row op " + row.op() + " at row seq "
          + row.rowSeq(), "22000");
    }
  }

  private void ensureTable(TableInfo info, long commitTs) throws SQLException {
    if (ensuredTables.contains(info.getTableId())) {
      return;
    }
    session.ddl.checkCreatable(info, commitTs);
    if (config.createTables()) {
      if (dialect == Dialect.MYSQL && !staged.isEmpty()) {
        commitStaged(progress.checkpointTs());   // a CREATE commits implicitly: the rows before it keep their progress
      }
      TableInfo mapped = forTarget(info);
      try (Statement st = session.connection.createStatement()) {
        session.ddl.ensureSchema(st, targetSchema(info));
        ensureTypes(mapped, TableInfo.getDefaultInstance(), info.getSchemaName() + "." + info.getTableName(), commitTs);
        session.ddl.createTable(st, target(info), mapped, session.tableOptions());
      }
    }
    ensuredTables.add(info.getTableId());
  }

  // ---- DDL -----------------------------------------------------------------------------------

  private void writeDdl(DdlChange change) throws SQLException {
    long id = change.tableId();
    SinkCheckpoint.TableProgress p = current(id);
    if (p != null && (p.dropped() || change.isCoveredBy(p.applied(), p.ddlTs()))) {
      stagedSkipped++;
      return;   // applied before a restart or a replay
    }
    if (change.ddlType() == DdlType.DDL_TYPE_DROP_TABLE && p != null && p.deferredKey() != null) {
      session.deferredKeys.discard(id, p.tableName());   // the table goes: its logged changes with it
    } else {
      finishDeferred(id, false);   // the statement finds the table as its source had it, key included
    }
    session.writer.flush();   // the rows before it run before it
    if (session.ddl.ensureTableBefore(change, ensuredTables)) {
      ensureTable(change.tableInfoBefore(), change.commitTs());
    }
    DdlChange mapped = change.withTableInfos(forTarget(change.tableInfoBefore()), forTarget(change.tableInfoAfter()));
    if (!config.skippedDdlTypes().contains(change.ddlType()) && change.ddlType() != DdlType.DDL_TYPE_DROP_TABLE) {
      ensureTypes(mapped.tableInfoAfter(), mapped.tableInfoBefore(), change.tableName(), change.commitTs());
    }
    List<String> statements = session.ddl.statementsFor(mapped);
    if (dialect == Dialect.MYSQL && !statements.isEmpty() && !staged.isEmpty()) {
      commitStaged(progress.checkpointTs());   // MySQL commits DDL implicitly: what came before keeps its progress
    }
    session.ddl.run(mapped, statements);
    session.writer.forgetStatements();
    ensuredTables.remove(id);
    if (session.decimals != null) {
      session.decimals.forget();
    }
    if (session.identity != null) {
      session.identity.forget();
    }
    Checkpoint position = change.position();
    SinkCheckpoint.TableProgress next = new SinkCheckpoint.TableProgress(change.tableName(),
        p == null ? position : p.applied().max(position), change.commitTs(), 0, p == null ? null : p.snapshot());
    stage(id, change.ddlType() == DdlType.DDL_TYPE_DROP_TABLE ? next.droppedAt(change.commitTs()) : next);
    stagedApplied++;
  }

  // ---- connection and errors -----------------------------------------------------------------

  /**
   * Where a table goes: {@code targetSchema} when set; else on PostgreSQL the source schema (a database has
   * schemas), on MySQL/MariaDB the URL's database (a database is what MySQL calls a schema: naming one after
   * the source schema would write outside the database the URL points at). Needs the connection.
   */
  private String targetSchema(TableInfo info) {
    if (config.targetSchema() != null) {
      return config.targetSchema();
    }
    return dialect == Dialect.MYSQL ? homeSchema : info.getSchemaName();
  }

  private String target(TableInfo info) {
    return dialect.qualified(targetSchema(info), info.getTableName());
  }

  /**
   * PostgreSQL: creates or updates the user-defined types {@code after}'s columns need (mapped to the
   * target, {@link TargetTypes}) before a CREATE, ALTER or the table's creation needs them.
   */
  private void ensureTypes(TableInfo after, TableInfo before, String table, long commitTs) throws SQLException {
    if (session.userTypes == null) {
      return;
    }
    for (String sql : session.userTypes.reconcile(after, before)) {
      LOG.atInfo().addKeyValue("changefeedId", config.changefeedId()).addKeyValue("table", table)
          .addKeyValue("commitTs", commitTs).log("type for the table: {}", sql);
    }
  }

  private TableInfo forTarget(TableInfo info) {
    return info.getTableName().isEmpty() ? info : TargetTypes.map(info, targetSchema(info));
  }

  /** The fence of this sink's changefeed in its home schema (known once connected). */
  private SinkFence fence() {
    if (fence == null) {
      fence = new SinkFence(config, dialect, homeSchema);
    }
    return fence;
  }

  /** Opens a session when there is none or its connection closed; what the sink staged for the old one is gone. */
  private void connection() throws SQLException {
    if (session != null && !session.closed()) {
      return;
    }
    staged.clear();
    if (fence != null) {
      fence.transactionEnded();
    }
    if (session != null) {
      session.close();
      session = null;
    }
    session = TargetSession.open(config, homeSchema);
    homeSchema = session.homeSchema;
    constraintsRelaxed = session.constraintsRelaxed;
    ensuredTables.clear();
  }

  private void rollbackQuietly() {
    staged.clear();
    stagedApplied = 0;
    stagedSkipped = 0;
    if (fence != null) {
      fence.transactionEnded();
    }
    ensuredTables.clear();   // a CREATE rolled back with the transaction is made again
    if (session != null) {
      session.rollback();
    }
  }

  private SluiceException rollbackAndClassify(SQLException e, String table, long ts) {
    if (session != null && session.decimals != null) {
      session.decimals.forget();   // the fix may be a wider target column: read it again on the retry
    }
    rollbackQuietly();
    return classify(e, table, ts);
  }

  /** The typed error for {@code e} ({@link TargetErrors}); a transient one closes the session first. */
  private SluiceException classify(SQLException e, String table, long ts) {
    SluiceException typed = TargetErrors.classify(e, table, ts, config, session == null || session.broken(),
        constraintsRelaxed);
    if (typed instanceof SinkUnavailableException) {
      close();
    }
    return typed;
  }
}
