package dev.sluice.schema;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The obvious in-memory schema store the property test compares {@link RocksSchemaStore} with: a list
 * of applied DDLs, every answer recomputed from it by a linear scan. GC only moves the GC point: above
 * it, a collected store must answer exactly as the uncollected history does.
 */
final class SchemaModel {

  private final List<DdlEvent> applied = new ArrayList<>();
  private long resolvedTs;
  private long gcTs;

  void apply(DdlEvent ddl) {
    applied.add(ddl);
  }

  void advanceResolvedTs(long ts) {
    resolvedTs = Math.max(resolvedTs, ts);
  }

  void gc(long ts) {
    gcTs = Math.max(gcTs, Math.min(ts, resolvedTs));
  }

  long resolvedTs() {
    return resolvedTs;
  }

  long gcTs() {
    return gcTs;
  }

  long lastDdlTs() {
    return applied.isEmpty() ? 0 : applied.get(applied.size() - 1).commitTs();
  }

  List<DdlEvent> applied() {
    return List.copyOf(applied);
  }

  /** Every table id ever created. */
  TreeSet<Long> tableIds() {
    TreeSet<Long> ids = new TreeSet<>();
    applied.forEach(d -> ids.add(d.tableId()));
    return ids;
  }

  /** Every (schema, table) name ever held. */
  List<TableName> names() {
    return applied.stream().map(d -> TableName.of(d.tableInfoAfter())).distinct().toList();
  }

  /** The latest version of a live table, empty when dropped or unknown. */
  Optional<TableInfo> latest(long tableId) {
    Answer a = tableInfoAt(tableId, Long.MAX_VALUE - 1);
    return Optional.ofNullable((TableInfo) a.value());
  }

  Answer tableInfoAt(long tableId, long ts) {
    if (ts < gcTs) {
      return Answer.belowGc(gcTs);
    }
    TableInfo found = null;
    for (DdlEvent d : applied) {
      if (d.tableId() != tableId || d.commitTs() > ts) {
        continue;
      }
      if (d.type() == DdlType.DROP_TABLE) {
        return Answer.dropped(d.commitTs());
      }
      found = d.tableInfoAfter();
    }
    return found == null ? Answer.unknown() : Answer.of(found);
  }

  /** The version in force just before {@code (ts, rowSeq)}: DDLs at or after it do not count. */
  Answer tableInfoBefore(long tableId, long ts, long rowSeq) {
    if (ts < gcTs || (ts == gcTs && rowSeq != Long.MAX_VALUE)) {   // GC at ts keeps only ts's last version
      return Answer.belowGc(gcTs);
    }
    TableInfo found = null;
    for (DdlEvent d : applied) {
      if (d.tableId() != tableId || !d.isBefore(ts, rowSeq)) {
        continue;
      }
      if (d.type() == DdlType.DROP_TABLE) {
        return Answer.dropped(d.commitTs());
      }
      found = d.tableInfoAfter();
    }
    return found == null ? Answer.unknown() : Answer.of(found);
  }

  Answer tableByName(TableName name, long ts) {
    long at = ts == 0 ? Long.MAX_VALUE : ts;
    if (at < gcTs) {
      return Answer.belowGc(gcTs);
    }
    for (long id : tableIds()) {
      Answer a = tableInfoAt(id, at);
      if (a.value() != null && TableName.of((TableInfo) a.value()).equals(name)) {
        return a;
      }
    }
    return Answer.unknown();
  }

  Answer ddlEvents(long tableId, long fromExclusive, long toInclusive) {
    if (fromExclusive < gcTs) {
      return Answer.belowGc(gcTs);
    }
    long upTo = Math.min(toInclusive, resolvedTs);
    return Answer.of(applied.stream()
        .filter(d -> d.tableId() == tableId && d.commitTs() > fromExclusive && d.commitTs() <= upTo).toList());
  }

  Answer allDdlEvents(long fromExclusive, long toInclusive) {
    if (fromExclusive < gcTs) {
      return Answer.belowGc(gcTs);
    }
    long upTo = Math.min(toInclusive, resolvedTs);
    return Answer.of(applied.stream().filter(d -> d.commitTs() > fromExclusive && d.commitTs() <= upTo).toList());
  }

  Answer tablesAt(long ts) {
    if (ts < gcTs) {
      return Answer.belowGc(gcTs);
    }
    List<TableInfo> tables = new ArrayList<>();
    for (long id : tableIds()) {
      Answer a = tableInfoAt(id, ts);
      if (a.value() != null) {
        tables.add((TableInfo) a.value());
      }
    }
    tables.sort(Comparator.comparingLong(TableInfo::tableId));
    return Answer.of(tables);
  }
}
