package dev.sluice.broker.capture;

import dev.sluice.schema.BelowGcPointException;
import dev.sluice.schema.ColumnInfo;
import dev.sluice.schema.DdlEvent;
import dev.sluice.schema.DdlType;
import dev.sluice.schema.InvalidDdlException;
import dev.sluice.schema.Partitioning;
import dev.sluice.schema.SchemaStore;
import dev.sluice.schema.TableDroppedException;
import dev.sluice.schema.TableInfo;
import dev.sluice.schema.UnknownTableException;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the schema changes of one transaction into {@link DdlEvent}s, each at its place among the
 * transaction's rows, and applies them to the schema store at commit, in commit order.
 *
 * <p><b>Sources.</b> Rows of {@code sluice.ddl_capture} written by the event trigger (exact statement
 * and definition), Truncate messages, and Relation messages whose shape differs from the version in
 * force (the only source in {@link DdlCaptureMode#RELATION_MESSAGES} mode, a safety net in trigger
 * mode). Each arrives where the upstream made it: the trigger's row is written at the end of its
 * statement, inside the transaction, between the rows before and after it.
 *
 * <p><b>Positions.</b> Rows and DDL events of a transaction are numbered in one sequence
 * ({@link TxnSequence}): each change takes the next number when it arrives, so a DDL's row seq tells
 * which rows came before it. One transaction may change one table several times (ADD COLUMN, rows,
 * SET NOT NULL): each change is its own event and version at the transaction's commit ts {@code C},
 * told apart by row seq. A TRUNCATE of several tables in one statement gives them one row seq.
 * Initial definitions all get the version just below the slot's start, at row seq 0.
 *
 * <p><b>Replay.</b> After a crash, transactions above the event store's position are replayed while the
 * schema store may already hold their DDL. A transaction's events are applied whole or not at all, so a
 * replayed transaction at or below {@link SchemaStore#lastDdlTs()} is skipped; its positions are the same
 * on every replay, as PostgreSQL sends the same changes in the same order. Capture thread only.
 *
 * <pre>{@code
 * tracker.begin(commitTs, previousCommitTs);           // the session resets the sequence
 * TableInfo t = tracker.tableFor(relation, types);     // may derive a version (takes a row seq)
 * tracker.onCapturedDdl("ALTER TABLE", oid, "ALTER TABLE t ADD c int", definitionJson);   // takes one
 * Set<Long> changed = tracker.applyPending();          // at Commit, before the event-store batch
 * }</pre>
 */
final class SchemaTracker {

  private static final Logger log = LoggerFactory.getLogger(SchemaTracker.class);

  private final SchemaStore store;
  private final TableDefinitions definitions;
  private final SourceCatalog catalog;
  private final CaptureMetrics metrics;
  private final TxnSequence sequence;
  /** The open transaction's changes, in the order they arrived (= row seq order). */
  private final List<Change> changes = new ArrayList<>();
  /** Each touched table's state after the changes so far; a dropped table maps to {@link #GONE}. */
  private final Map<Long, TableInfo> effective = new HashMap<>();
  private long commitTs;
  private long previousCommitTs;

  /** Stands for a table the open transaction dropped. */
  private static final TableInfo GONE = new TableInfo(Long.MAX_VALUE, "", "", List.of(), List.of(), 0);

  /**
   * One change of the open transaction.
   *
   * @param type     the event's type
   * @param after    the table after it; for a drop, the table as it was
   * @param query    the captured statement, or ""
   * @param rowSeq   its place in the transaction
   * @param volatileDefaults columns it added with a default that is not immutable
   */
  private record Change(DdlType type, TableInfo after, String query, long rowSeq, List<String> volatileDefaults) {
    long tableId() {
      return after.tableId();
    }
  }

  SchemaTracker(SchemaStore store, TableDefinitions definitions, SourceCatalog catalog, CaptureMetrics metrics,
      TxnSequence sequence) {
    this.store = store;
    this.definitions = definitions;
    this.catalog = catalog;
    this.metrics = metrics;
    this.sequence = sequence;
  }

  /**
   * @param txnCommitTs      commit ts of the transaction that starts
   * @param previousTs       commit ts of the transaction before it (or the stored position)
   */
  void begin(long txnCommitTs, long previousTs) {
    changes.clear();
    effective.clear();
    commitTs = txnCommitTs;
    previousCommitTs = previousTs;
  }

  /** Drops the open transaction's changes (skipped transaction, broken session). */
  void abort() {
    changes.clear();
    effective.clear();
  }

  /**
   * The version rows of {@code relation} in the open transaction follow. When the relation's shape
   * differs from the version in force, a version is derived from it here, before the row that needs it.
   */
  TableInfo tableFor(PgRelation relation, PgType[] types) {
    TableInfo current = effective(relation.oid());
    TableInfo derived = fromRelation(relation, types, current);
    if (current != null && DdlClassifier.sameShape(current, derived)) {
      return current;
    }
    if (current == null || !current.qualifiedName().equals(derived.qualifiedName())) {
      vacateName(derived);
    }
    long seq = sequence.take();
    TableInfo after = derived.withVersion(commitTs, seq);
    add(new Change(DdlClassifier.classify("", current, after), after, "", seq, List.of()));
    metrics.derivedDdlEvents.increment();
    return after;
  }

  /** A row of {@code sluice.ddl_capture} written by the event trigger in this transaction. */
  void onCapturedDdl(String tag, long tableOid, String statement, String definitionJson) {
    JsonObject def = new JsonObject(definitionJson);
    TableInfo before = effective(tableOid);
    long seq = sequence.take();
    String query = statement.strip();
    if (TableDefinitions.isDrop(def)) {
      if (before == null) {
        return;   // unknown table
      }
      if (changes.stream().anyMatch(c -> c.tableId() == tableOid && c.type() == DdlType.CREATE_TABLE)) {
        changes.removeIf(c -> c.tableId() == tableOid);   // created and dropped in this transaction: never visible
        effective.put(tableOid, GONE);
        return;
      }
      add(new Change(DdlType.DROP_TABLE, before.withVersion(commitTs, seq), query, seq, List.of()));
      effective.put(tableOid, GONE);
      return;
    }
    TableInfo after = definitions.fromJson(tableOid, def, commitTs).withVersion(commitTs, seq);
    List<String> volatileDefaults = definitions.volatileDefaultsAdded(def, before);
    if (!volatileDefaults.isEmpty()) {
      metrics.volatileDefaultColumns.increment(volatileDefaults.size());
      log.atWarn().addKeyValue("table", after.qualifiedName()).addKeyValue("commitTs", commitTs)
          .addKeyValue("columns", volatileDefaults)
          .log("columns added with a default that is not immutable: the rows the table has get values upstream "
              + "that the log does not carry, so they differ downstream in these columns until written again");
    }
    add(new Change(DdlClassifier.classify(tag, before, after), after, query, seq, volatileDefaults));
  }

  /** A Truncate message for these tables: one statement, one place. */
  void onTruncate(long[] tableOids) {
    long seq = -1;
    for (long oid : tableOids) {
      TableInfo t = effective(oid);
      if (t != null) {
        seq = seq < 0 ? sequence.take() : seq;
        add(new Change(DdlType.TRUNCATE_TABLE, t.withVersion(commitTs, seq), "", seq, List.of()));
      }
    }
  }

  /**
   * Applies the open transaction's events durably (skipping what a replay finds applied) and returns
   * the ids of the tables they touched, whose row layouts must be resolved again.
   */
  Set<Long> applyPending() {
    if (changes.isEmpty() && effective.isEmpty()) {
      return Set.of();
    }
    Set<Long> touched = new LinkedHashSet<>(effective.keySet());
    List<DdlEvent> events = new ArrayList<>(changes.size());
    for (Change c : changes) {
      events.add(new DdlEvent(commitTs, c.type(), c.query(), c.after(), c.query().isEmpty() ? "" : "postgresql",
          c.rowSeq(), c.volatileDefaults()));
    }
    changes.clear();
    effective.clear();
    if (events.isEmpty() || commitTs <= store.lastDdlTs()) {
      return touched; // replayed: the schema store applied the transaction's events before a crash
    }
    apply(events);
    return touched;
  }

  /**
   * Applies the initial definitions read at slot creation, all with version {@code version}, skipping
   * tables the schema store already knows.
   */
  void applyInitial(List<TableInfo> tables, long version) {
    List<DdlEvent> fresh = new ArrayList<>();
    for (TableInfo t : tables) {
      try {
        store.tableInfoAt(t.tableId(), Long.MAX_VALUE);
      } catch (UnknownTableException | TableDroppedException e) {
        fresh.add(new DdlEvent(version, DdlType.CREATE_TABLE, "", t.withVersion(version), ""));
      }
    }
    apply(fresh);
  }

  /** Applies one transaction's events at once, leaving out those the schema store rejects. */
  private void apply(List<DdlEvent> events) {
    List<DdlEvent> left = new ArrayList<>(events);
    while (!left.isEmpty()) {
      try {
        store.apply(left);
        metrics.ddlEvents.increment(left.size());
        return;
      } catch (InvalidDdlException e) { // a change capture could not see whole (fallback mode): keep capturing
        DdlEvent rejected = left.stream().filter(d -> d.tableId() == e.tableId() && d.commitTs() == e.commitTs()
            && d.rowSeq() == e.rowSeq()).findFirst().orElseThrow(() -> e);
        left.remove(rejected);
        metrics.rejectedDdlEvents.increment();
        log.atWarn().addKeyValue("tableId", e.tableId()).addKeyValue("commitTs", e.commitTs())
            .addKeyValue("rowSeq", rejected.rowSeq())
            .log("schema store rejected a captured schema change: " + e.getMessage());
      }
    }
  }

  private void add(Change c) {
    changes.add(c);
    effective.put(c.tableId(), c.type() == DdlType.DROP_TABLE ? GONE : c.after());
  }

  /**
   * Before a table takes a name (created or renamed): a live table still holding it was dropped or
   * renamed without capture seeing it (no event trigger; PostgreSQL names are unique), so an event for
   * that goes first, in its own place.
   */
  private void vacateName(TableInfo claimant) {
    long holderId = holderOf(claimant.schemaName(), claimant.tableName());
    if (holderId == 0 || holderId == claimant.tableId()) {
      return;
    }
    TableInfo holder = effective(holderId);
    if (holder == null) {
      return;
    }
    long seq = sequence.take();
    Optional<String[]> now = catalog.currentName(holderId);
    if (now.isEmpty()) {
      add(new Change(DdlType.DROP_TABLE, holder.withVersion(commitTs, seq), "", seq, List.of()));
    } else {
      add(new Change(DdlType.RENAME_TABLE, new TableInfo(holderId, now.get()[0], now.get()[1], holder.columns(),
          holder.primaryKey(), commitTs, seq, holder.generated(), holder.partitioning()), "", seq, List.of()));
    }
  }

  /** The live table holding the name as the open transaction's changes so far leave it, 0 when none. */
  private long holderOf(String schema, String table) {
    for (Map.Entry<Long, TableInfo> e : effective.entrySet()) {
      TableInfo t = e.getValue();
      if (t != GONE && t.schemaName().equals(schema) && t.tableName().equals(table)) {
        return e.getKey();
      }
    }
    try {
      long id = store.tableByName(schema, table, Math.max(previousCommitTs, 1)).tableId();
      TableInfo now = effective(id);   // it may have moved away in this transaction
      return now != null && now.schemaName().equals(schema) && now.tableName().equals(table) ? id : 0;
    } catch (UnknownTableException | BelowGcPointException e) {
      return 0;
    }
  }

  /** The version in force at this point of the open transaction: its own latest change, else the store's. */
  private TableInfo effective(long oid) {
    TableInfo t = effective.get(oid);
    if (t != null) {
      return t == GONE ? null : t;
    }
    return storeVersion(oid);
  }

  /** The table as of the previous transaction (the same answer on a replay). */
  private TableInfo storeVersion(long oid) {
    try {
      return store.tableInfoAt(oid, Math.max(previousCommitTs, 1));
    } catch (UnknownTableException | TableDroppedException | BelowGcPointException e) {
      return null;
    }
  }

  private TableInfo fromRelation(PgRelation relation, PgType[] types, TableInfo current) {
    List<ColumnInfo> columns = new ArrayList<>(types.length);
    List<String> relationKey = new ArrayList<>();
    for (int i = 0; i < types.length; i++) {
      PgRelation.Column c = relation.columns().get(i);
      String sourceType = catalog.formatType(c.typeOid(), c.typeModifier());
      ColumnInfo known = current == null ? null : column(current, c.name());
      boolean sameType = known != null && known.sourceType().equals(sourceType);
      columns.add(new ColumnInfo(c.name(), sourceType, types[i].kind(), !sameType || known.nullable(),
          sameType ? known.defaultExpr() : null, types[i].elementKind(),
          sameType ? known.userTypes() : catalog.userTypes(c.typeOid())));
      if (c.key()) {
        relationKey.add(c.name());
      }
    }
    List<String> key;
    if (current != null && !current.primaryKey().isEmpty()
        && current.primaryKey().stream().allMatch(k -> columns.stream().anyMatch(c -> c.name().equals(k)))) {
      key = current.primaryKey();
    } else if (relation.replicaIdentity() == 'd' || relation.replicaIdentity() == 'i') {
      key = relationKey;
    } else {
      key = List.of();
    }
    // the relation message has no generated columns (the log leaves them out) nor partitioning: the catalog's last
    // word stands
    return new TableInfo(relation.oid(), relation.namespace(), relation.name(), columns, key, commitTs, 0,
        current == null ? List.of() : current.generated(),
        current == null ? Partitioning.NONE : current.partitioning());
  }

  private static ColumnInfo column(TableInfo t, String name) {
    int i = t.columnIndex(name);
    return i < 0 ? null : t.columns().get(i);
  }
}
