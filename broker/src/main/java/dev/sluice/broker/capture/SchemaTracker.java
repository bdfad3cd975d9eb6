package dev.sluice.broker.capture;

import dev.sluice.schema.BelowGcPointException;
import dev.sluice.schema.ColumnInfo;
import dev.sluice.schema.DdlEvent;
import dev.sluice.schema.DdlType;
import dev.sluice.schema.InvalidDdlException;
import dev.sluice.schema.SchemaStore;
import dev.sluice.schema.TableDroppedException;
import dev.sluice.schema.TableInfo;
import dev.sluice.schema.UnknownTableException;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the schema changes of one transaction into {@link DdlEvent}s and applies them to the schema
 * store at commit, in commit order.
 *
 * <p><b>Sources.</b> Rows of {@code sluice.ddl_capture} written by the event trigger (exact statement
 * and definition), Truncate messages, and Relation messages whose shape differs from the version in
 * force (the only source in {@link DdlCaptureMode#RELATION_MESSAGES} mode, a safety net in trigger
 * mode). Several changes of one table in one transaction merge into one event (the table's last
 * definition, the statements joined).
 *
 * <p><b>Timestamps.</b> A transaction's events all get its commit ts {@code C}, however many tables it
 * changed, and go to the schema store in one atomic apply (commit ts are only one commit record,
 * a few dozen bytes, apart: there is no room for one ts per table below {@code C}). The store keeps one
 * DDL per table per ts, so a table truncated <em>and</em> changed in shape gets its TRUNCATE at
 * {@code C-1}, before the change at {@code C}. This is exact for every reader: commit ts values are WAL
 * positions of commit records, and the previous commit record starts at least one WAL record (24 bytes
 * and more) below {@code C}, so no transaction has a commit ts in {@code (previous, C)}. Initial
 * definitions all get the version just below the slot's start.
 *
 * <p><b>Replay.</b> After a crash, transactions above the event store's position are replayed while the
 * schema store may already hold their DDL. A transaction's events are applied whole or not at all, so a
 * replayed transaction at or below {@link SchemaStore#lastDdlTs()} is skipped. Capture thread only.
 *
 * <pre>{@code
 * tracker.begin(commitTs, previousCommitTs);
 * TableInfo t = tracker.tableFor(relation, types);     // may derive a version
 * tracker.onCapturedDdl("ALTER TABLE", oid, "ALTER TABLE t ADD c int", definitionJson);
 * Set<Long> changed = tracker.applyPending();          // at Commit, before the event-store batch
 * }</pre>
 */
final class SchemaTracker {

  private static final Logger log = LoggerFactory.getLogger(SchemaTracker.class);

  private final SchemaStore store;
  private final TableDefinitions definitions;
  private final SourceCatalog catalog;
  private final CaptureMetrics metrics;
  private final Map<Long, Pending> pending = new LinkedHashMap<>();
  private long commitTs;
  private long previousCommitTs;

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

  /** An event of the open transaction, at {@code commitTs - offset}. */
  private record Planned(DdlType type, TableInfo info, String query, int offset) {

    Planned(DdlType type, TableInfo info, String query) {
      this(type, info, query, 0);
    }
  }

  SchemaTracker(SchemaStore store, TableDefinitions definitions, SourceCatalog catalog, CaptureMetrics metrics) {
    this.store = store;
    this.definitions = definitions;
    this.catalog = catalog;
    this.metrics = metrics;
  }

  /**
   * @param txnCommitTs      commit ts of the transaction that starts
   * @param previousTs       commit ts of the transaction before it (or the stored position)
   */
  void begin(long txnCommitTs, long previousTs) {
    pending.clear();
    commitTs = txnCommitTs;
    previousCommitTs = previousTs;
  }

  /** Drops the open transaction's changes (skipped transaction, broken session). */
  void abort() {
    pending.clear();
  }

  /**
   * The version rows of {@code relation} in the open transaction follow. When the relation's shape
   * differs from the version in force, a version is derived from it for this transaction.
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
      if (effective(oid) != null) {
        pendingFor(oid).truncated = true;
      }
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
    List<Planned> planned = plan();
    Set<Long> touched = new LinkedHashSet<>(pending.keySet());
    planned.forEach(p -> touched.add(p.info().tableId()));
    pending.clear();
    if (commitTs <= store.lastDdlTs()) {
      return touched; // replayed: the schema store applied the transaction's events before a crash
    }
    planned.sort(Comparator.comparingInt(Planned::offset).reversed()); // stable: statement order within a ts
    List<DdlEvent> events = new ArrayList<>(planned.size());
    for (Planned p : planned) {
      long ts = commitTs - p.offset();
      events.add(new DdlEvent(ts, p.type(), p.query(), p.info().withVersion(ts), p.query().isEmpty() ? "" : "postgresql"));
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
        DdlEvent rejected = left.stream().filter(d -> d.tableId() == e.tableId() && d.commitTs() == e.commitTs())
            .findFirst().orElseThrow(() -> e);
        left.remove(rejected);
        metrics.rejectedDdlEvents.increment();
        log.atWarn().addKeyValue("tableId", e.tableId()).addKeyValue("commitTs", e.commitTs())
            .log("schema store rejected a captured schema change: " + e.getMessage());
      }
    }
  }

  /**
   * The transaction's events in statement order, with a drop or rename first for a name still held: the
   * holder's own change when this transaction has one (one event per table and ts), else one derived.
   */
  private List<Planned> plan() {
    List<Planned> planned = new ArrayList<>();
    Map<String, Long> claims = new HashMap<>();
    Set<Long> done = new HashSet<>();
    for (Map.Entry<Long, Pending> entry : pending.entrySet()) {
      if (!done.add(entry.getKey())) {
        continue;
      }
      Pending p = entry.getValue();
      List<Planned> own = toPlanned(p);
      if (own.isEmpty()) {
        continue;
      }
      Planned e = own.get(own.size() - 1);
      String name = e.info().qualifiedName();
      if (e.type() != DdlType.DROP_TABLE) {
        long holder = claims.containsKey(name) ? claims.get(name) : holderOf(e.info());
        if (holder != 0 && holder != e.info().tableId()) {
          Pending holderChange = pending.get(holder);
          List<Planned> vacated = holderChange != null && done.add(holder) ? toPlanned(holderChange) : List.of();
          if (vacated.isEmpty()) {
            vacated = vacate(holder);
          }
          if (!vacated.isEmpty()) {
            planned.addAll(vacated);
            if (holderChange != null) {
              claim(holderChange, vacated.get(vacated.size() - 1), claims);
            }
            claims.put(name, 0L);
          }
        }
      }
      claim(p, e, claims);
      planned.addAll(own);
    }
    return planned;
  }

  /** Records the names a table's last event frees and takes. */
  private static void claim(Pending p, Planned last, Map<String, Long> claims) {
    String name = last.info().qualifiedName();
    if (last.type() == DdlType.DROP_TABLE) {
      claims.put(name, 0L);
      return;
    }
    if (p.before != null && !p.before.qualifiedName().equals(name)) {
      claims.put(p.before.qualifiedName(), 0L); // renamed away: the old name is free
    }
    claims.put(name, last.info().tableId());
  }

  /** The live table holding the name before this transaction, 0 when none. */
  private long holderOf(TableInfo t) {
    try {
      return store.tableByName(t.schemaName(), t.tableName(), Math.max(previousCommitTs, 1)).tableId();
    } catch (UnknownTableException | BelowGcPointException e) {
      return 0;
    }
  }

  /**
   * A table the schema store still has under a name another table now takes: PostgreSQL names are
   * unique, so it was dropped or renamed without capture seeing it (no event trigger).
   */
  private List<Planned> vacate(long holderId) {
    TableInfo holder = storeVersion(holderId);
    if (holder == null) {
      return List.of();
    }
    Optional<String[]> now = catalog.currentName(holderId);
    if (now.isEmpty()) {
      return List.of(new Planned(DdlType.DROP_TABLE, holder, ""));
    }
    return List.of(new Planned(DdlType.RENAME_TABLE, new TableInfo(holderId, now.get()[0], now.get()[1],
        holder.columns(), holder.primaryKey(), holder.version()), ""));
  }

  /**
   * A table's events: none, one, or a TRUNCATE at {@code C-1} and then the shape change at {@code C}
   * when it was truncated and changed (the sink empties the table before altering it, so no row the
   * transaction removed has to be converted, and the transaction's rows at {@code C} follow both).
   */
  private List<Planned> toPlanned(Pending p) {
    String query = String.join(";\n", p.queries);
    if (p.dropped) {
      return List.of(new Planned(DdlType.DROP_TABLE, p.before, query));
    }
    if (p.after == null) {
      return List.of();
    }
    boolean unchanged = p.before != null && DdlClassifier.sameShape(p.before, p.after)
        && p.before.primaryKey().equals(p.after.primaryKey());
    if (p.truncated && unchanged) {
      return List.of(new Planned(DdlType.TRUNCATE_TABLE, p.after, query));
    }
    if (unchanged && p.tag.isEmpty()) {
      return List.of();
    }
    Planned change = new Planned(DdlClassifier.classify(p.tag, p.before, p.after), p.after, query);
    if (p.truncated && p.before != null) {
      // no query: the statements are the change's, and a sink of the same dialect runs a query verbatim
      return List.of(new Planned(DdlType.TRUNCATE_TABLE, p.before, "", 1), change);
    }
    return List.of(change);
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
          sameType ? known.defaultExpr() : null, types[i].elementKind()));
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
    return new TableInfo(relation.oid(), relation.namespace(), relation.name(), columns, key, commitTs);
  }

  private static ColumnInfo column(TableInfo t, String name) {
    int i = t.columnIndex(name);
    return i < 0 ? null : t.columns().get(i);
  }
}
