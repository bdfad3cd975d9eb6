package dev.sluice.broker.capture;

import dev.sluice.schema.BelowGcPointException;
import dev.sluice.schema.ColumnInfo;
import dev.sluice.schema.DdlEvent;
import dev.sluice.schema.DdlType;
import dev.sluice.schema.SchemaStore;
import dev.sluice.schema.TableDroppedException;
import dev.sluice.schema.TableInfo;
import dev.sluice.schema.UnknownTableException;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns the schema changes of one transaction into {@link DdlEvent}s at its commit ts and applies
 * them to the schema store at commit, in commit order.
 *
 * <p>Sources of changes: rows of {@code sluice.ddl_capture} written by the event trigger (exact
 * statement and definition), Truncate messages, and Relation messages whose shape differs from the
 * version in force (the only source in {@link DdlCaptureMode#RELATION_MESSAGES} mode, a safety net in
 * trigger mode). Several changes of one table in one transaction merge into one event (the table's
 * last definition, the statements joined), since a table has one version per commit ts.
 *
 * <p><b>Replay.</b> After a crash, transactions above the event store's position are replayed while
 * the schema store may already hold their DDL: events at or below {@link SchemaStore#lastDdlTs()} are
 * skipped (at equal ts, per table, so a transaction that changed several tables and crashed half-way
 * is completed). Capture thread only.
 *
 * <pre>{@code
 * tracker.begin(commitTs);
 * TableInfo t = tracker.tableFor(relation, types);     // may derive a version
 * tracker.onCapturedDdl("ALTER TABLE", oid, "ALTER TABLE t ADD c int", definitionJson);
 * Set<Long> changed = tracker.applyPending();          // at Commit, before the event-store batch
 * }</pre>
 */
final class SchemaTracker {

  private final SchemaStore store;
  private final TableDefinitions definitions;
  private final SourceTypeNames typeNames;
  private final CaptureMetrics metrics;
  private final Map<Long, Pending> pending = new LinkedHashMap<>();
  private long commitTs;

  /** One table's changes within the open transaction. */
  private static final class Pending {
    final TableInfo before;
    TableInfo after;
    boolean dropped;
    boolean truncated;
    String tag = "";
    final Set<String> queries = new LinkedHashSet<>();

    Pending(TableInfo before) {
      this.before = before;
      this.after = before;
    }
  }

  SchemaTracker(SchemaStore store, TableDefinitions definitions, SourceTypeNames typeNames, CaptureMetrics metrics) {
    this.store = store;
    this.definitions = definitions;
    this.typeNames = typeNames;
    this.metrics = metrics;
  }

  void begin(long txnCommitTs) {
    pending.clear();
    commitTs = txnCommitTs;
  }

  /** Drops the open transaction's changes (skipped transaction, broken session). */
  void abort() {
    pending.clear();
  }

  /**
   * The version rows of {@code relation} in the open transaction follow. When the relation's shape
   * differs from the version in force, a version is derived from it at this commit ts.
   */
  TableInfo tableFor(PgRelation relation, PgType[] types) {
    TableInfo current = effective(relation.oid());
    TableInfo derived = fromRelation(relation, types, current);
    if (current != null && DdlClassifier.sameShape(current, derived)) {
      return current;
    }
    Pending p = pendingFor(relation.oid());
    p.after = derived;
    p.dropped = false;
    metrics.derivedDdlEvents.increment();
    return derived;
  }

  /** A row of {@code sluice.ddl_capture} written by the event trigger in this transaction. */
  void onCapturedDdl(String tag, long tableOid, String statement, String definitionJson) {
    JsonObject def = new JsonObject(definitionJson);
    Pending p = pendingFor(tableOid);
    if (TableDefinitions.isDrop(def)) {
      if (p.before == null) {
        pending.remove(tableOid); // unknown table, or created and dropped in this transaction: never visible
        return;
      }
      p.dropped = true;
      p.after = null;
    } else {
      p.after = definitions.fromJson(tableOid, def, commitTs);
      p.dropped = false;
    }
    p.tag = tag;
    if (!statement.isBlank()) {
      p.queries.add(statement.strip());
    }
  }

  /** A Truncate message for these tables. */
  void onTruncate(long[] tableOids) {
    for (long oid : tableOids) {
      if (effective(oid) == null) {
        continue;
      }
      pendingFor(oid).truncated = true;
    }
  }

  /**
   * Applies the open transaction's events durably (skipping what a replay finds applied) and returns
   * the ids of the tables they touched, whose row layouts must be resolved again.
   */
  Set<Long> applyPending() {
    if (pending.isEmpty()) {
      return Set.of();
    }
    List<DdlEvent> events = new ArrayList<>(pending.size());
    for (Map.Entry<Long, Pending> e : pending.entrySet()) {
      DdlEvent event = toEvent(e.getValue());
      if (event != null) {
        events.add(event);
      }
    }
    Set<Long> touched = Set.copyOf(pending.keySet());
    pending.clear();
    long lastDdlTs = store.lastDdlTs();
    for (DdlEvent event : events) {
      if (commitTs < lastDdlTs || (commitTs == lastDdlTs && hasVersionAt(event.tableId(), commitTs))) {
        continue; // replayed: the schema store applied it before a crash
      }
      store.apply(event);
      metrics.ddlEvents.increment();
    }
    return touched;
  }

  /** Applies the initial definitions read at slot creation, skipping tables already known identically. */
  void applyInitial(List<TableInfo> tables, long version) {
    for (TableInfo t : tables) {
      if (hasVersionAt(t.tableId(), version)) {
        continue;
      }
      store.apply(new DdlEvent(version, DdlType.CREATE_TABLE, "", t.withVersion(version), ""));
      metrics.ddlEvents.increment();
    }
  }

  private DdlEvent toEvent(Pending p) {
    if (p.dropped) {
      return event(DdlType.DROP_TABLE, p, p.before);
    }
    if (p.after == null) {
      return null;
    }
    boolean unchanged = p.before != null && DdlClassifier.sameShape(p.before, p.after)
        && p.before.primaryKey().equals(p.after.primaryKey());
    if (p.truncated && unchanged) {
      return event(DdlType.TRUNCATE_TABLE, p, p.after);
    }
    return event(DdlClassifier.classify(p.tag, p.before, p.after), p, p.after);
  }

  private DdlEvent event(DdlType type, Pending p, TableInfo info) {
    String query = String.join(";\n", p.queries);
    return new DdlEvent(commitTs, type, query, info.withVersion(commitTs), query.isEmpty() ? "" : "postgresql");
  }

  private Pending pendingFor(long oid) {
    Pending p = pending.get(oid);
    if (p == null) {
      p = new Pending(storeVersion(oid));
      pending.put(oid, p);
    }
    return p;
  }

  /** The version in force for the open transaction: its own pending change, else the store's. */
  private TableInfo effective(long oid) {
    Pending p = pending.get(oid);
    if (p != null) {
      return p.dropped ? null : p.after;
    }
    return storeVersion(oid);
  }

  private TableInfo storeVersion(long oid) {
    try {
      return store.tableInfoAt(oid, commitTs);
    } catch (UnknownTableException | TableDroppedException | BelowGcPointException e) {
      return null;
    }
  }

  private boolean hasVersionAt(long oid, long ts) {
    try {
      return store.tableInfoAt(oid, ts).version() == ts;
    } catch (TableDroppedException e) {
      return e.dropTs() == ts;
    } catch (UnknownTableException | BelowGcPointException e) {
      return false;
    }
  }

  private TableInfo fromRelation(PgRelation relation, PgType[] types, TableInfo current) {
    List<ColumnInfo> columns = new ArrayList<>(types.length);
    List<String> relationKey = new ArrayList<>();
    for (int i = 0; i < types.length; i++) {
      PgRelation.Column c = relation.columns().get(i);
      String sourceType = typeNames.format(c.typeOid(), c.typeModifier());
      ColumnInfo known = current == null ? null : column(current, c.name());
      boolean nullable = known == null || !known.sourceType().equals(sourceType) || known.nullable();
      String defaultExpr = known != null && known.sourceType().equals(sourceType) ? known.defaultExpr() : null;
      columns.add(new ColumnInfo(c.name(), sourceType, types[i].kind(), nullable, defaultExpr, types[i].elementKind()));
      if (c.key()) {
        relationKey.add(c.name());
      }
    }
    List<String> key;
    if (current != null && current.primaryKey().stream().allMatch(k -> columns.stream().anyMatch(c -> c.name().equals(k)))
        && !current.primaryKey().isEmpty()) {
      key = current.primaryKey();
    } else if (relation.replicaIdentity() == 'd' || relation.replicaIdentity() == 'i') {
      key = relationKey;
    } else {
      key = List.of();
    }
    return new TableInfo(relation.oid(), relation.namespace(), relation.name(), columns, key, commitTs);
  }

  private static ColumnInfo column(TableInfo t, String name) {
    int i = t.columnIndex(name);
    return i < 0 ? null : t.columns().get(i);
  }
}
