package dev.sluice.schema;

import dev.sluice.api.v1.ValueKind;
import java.util.ArrayList;
import java.util.List;

/** Builders of table versions and DDL events for the tests: every table has a key column {@code id}. */
final class Tables {

  static final String SCHEMA = "public";

  private Tables() {
  }

  static ColumnInfo column(String name) {
    return name.equals("id") ? ColumnInfo.of(name, "bigint", ValueKind.VALUE_KIND_INT64, false)
        : new ColumnInfo(name, "text", ValueKind.VALUE_KIND_STRING, true, "'" + name + "'",
            ValueKind.VALUE_KIND_UNSPECIFIED);
  }

  /** {@code public.name} with columns {@code id} (the key) and {@code extraColumns}. */
  static TableInfo table(long tableId, String name, long version, String... extraColumns) {
    List<ColumnInfo> columns = new ArrayList<>();
    columns.add(column("id"));
    for (String c : extraColumns) {
      columns.add(column(c));
    }
    return new TableInfo(tableId, SCHEMA, name, columns, List.of("id"), version);
  }

  static DdlEvent create(long commitTs, long tableId, String name, String... extraColumns) {
    return change(commitTs, DdlType.CREATE_TABLE, table(tableId, name, commitTs, extraColumns));
  }

  /** A DDL of this type whose table after is {@code after} at version {@code commitTs}. */
  static DdlEvent change(long commitTs, DdlType type, TableInfo after) {
    return new DdlEvent(commitTs, type, "/* " + type + " */", after.withVersion(commitTs), "postgresql");
  }

  /** A DDL of this type at {@code rowSeq} of the transaction at {@code commitTs}. */
  static DdlEvent changeAt(long commitTs, long rowSeq, DdlType type, TableInfo after) {
    return new DdlEvent(commitTs, type, "/* " + type + " at " + rowSeq + " */", after.withVersion(commitTs, rowSeq),
        "postgresql", rowSeq, List.of());
  }

  static TableInfo withColumn(TableInfo t, String column) {
    List<ColumnInfo> columns = new ArrayList<>(t.columns());
    columns.add(column(column));
    return new TableInfo(t.tableId(), t.schemaName(), t.tableName(), columns, t.primaryKey(), t.version());
  }

  static TableInfo withoutColumn(TableInfo t, String column) {
    List<ColumnInfo> columns = new ArrayList<>(t.columns());
    columns.removeIf(c -> c.name().equals(column));
    return new TableInfo(t.tableId(), t.schemaName(), t.tableName(), columns, t.primaryKey(), t.version());
  }

  static TableInfo withColumnRenamed(TableInfo t, String from, String to) {
    List<ColumnInfo> columns = t.columns().stream().map(c -> c.name().equals(from) ? c.withName(to) : c).toList();
    List<String> key = t.primaryKey().stream().map(k -> k.equals(from) ? to : k).toList();
    return new TableInfo(t.tableId(), t.schemaName(), t.tableName(), columns, key, t.version());
  }

  static TableInfo renamed(TableInfo t, String newName) {
    return new TableInfo(t.tableId(), t.schemaName(), newName, t.columns(), t.primaryKey(), t.version());
  }
}
