package dev.sluice.schema;

import java.util.List;
import java.util.Objects;

/**
 * A table as it was from one DDL's commit ts until the next. Row images of that period are
 * positional over {@link #columns()}.
 *
 * <pre>{@code
 * TableInfo orders = new TableInfo(16384, "public", "orders",
 *     List.of(ColumnInfo.of("id", "bigint", ValueKind.VALUE_KIND_INT64, false)), List.of("id"), 1000);
 * String name = orders.qualifiedName();   // "public.orders"
 * }</pre>
 *
 * @param tableId    the upstream table id (PostgreSQL relation oid), positive; stable across renames
 * @param schemaName schema (PostgreSQL) or database (MySQL) name
 * @param tableName  table name
 * @param columns    columns in source order
 * @param primaryKey names of the key columns in key order (primary key or replica identity); may be empty
 * @param version    commit ts of the DDL that produced this version
 * @param versionRowSeq the DDL's place inside its transaction ({@link DdlEvent#rowSeq()}): with
 *                   {@code version}, which of several versions of one commit ts; 0 for initial versions
 * @param generated  the STORED generated columns, which rows do not carry; empty for most tables
 * @param partitioning its place in a partition hierarchy; {@link Partitioning#NONE} for most tables
 */
public record TableInfo(long tableId, String schemaName, String tableName, List<ColumnInfo> columns,
    List<String> primaryKey, long version, long versionRowSeq, List<GeneratedColumn> generated,
    Partitioning partitioning) {

  public TableInfo {
    Objects.requireNonNull(schemaName, "schemaName");
    Objects.requireNonNull(tableName, "tableName");
    columns = List.copyOf(columns);
    primaryKey = List.copyOf(primaryKey);
    generated = List.copyOf(generated);
    Objects.requireNonNull(partitioning, "partitioning");
    if (tableId <= 0) {
      throw new IllegalArgumentException("table id must be positive, got " + tableId);
    }
    if (version < 0 || versionRowSeq < 0) {
      throw new IllegalArgumentException("version and its row seq must be >= 0, got " + version + "/" + versionRowSeq);
    }
    for (String key : primaryKey) {
      if (columns.stream().noneMatch(c -> c.name().equals(key))) {
        throw new IllegalArgumentException(
            "primary-key column " + key + " is not a column of " + schemaName + "." + tableName);
      }
    }
  }

  /** A version without generated columns, in no partition hierarchy. */
  public TableInfo(long tableId, String schemaName, String tableName, List<ColumnInfo> columns,
      List<String> primaryKey, long version, long versionRowSeq) {
    this(tableId, schemaName, tableName, columns, primaryKey, version, versionRowSeq, List.of(), Partitioning.NONE);
  }

  /** A version at the start of its transaction (row seq 0), without generated columns, in no hierarchy. */
  public TableInfo(long tableId, String schemaName, String tableName, List<ColumnInfo> columns,
      List<String> primaryKey, long version) {
    this(tableId, schemaName, tableName, columns, primaryKey, version, 0);
  }

  /** {@code schema.table}. */
  public String qualifiedName() {
    return schemaName + "." + tableName;
  }

  /** Position of the named column, or -1. */
  public int columnIndex(String name) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /** The same table at another version, at the start of its transaction. */
  public TableInfo withVersion(long newVersion) {
    return withVersion(newVersion, 0);
  }

  /** The same table at another version, produced by the DDL at {@code rowSeq} of that transaction. */
  public TableInfo withVersion(long newVersion, long rowSeq) {
    return new TableInfo(tableId, schemaName, tableName, columns, primaryKey, newVersion, rowSeq, generated,
        partitioning);
  }

  public dev.sluice.api.v1.TableInfo toProto() {
    var b = dev.sluice.api.v1.TableInfo.newBuilder()
        .setTableId(tableId).setSchemaName(schemaName).setTableName(tableName)
        .addAllPrimaryKey(primaryKey).setVersion(version).setVersionRowSeq(versionRowSeq);
    for (ColumnInfo c : columns) {
      b.addColumns(c.toProto());
    }
    for (GeneratedColumn g : generated) {
      b.addGeneratedColumns(g.toProto());
    }
    partitioning.writeTo(b);
    return b.build();
  }

  public static TableInfo fromProto(dev.sluice.api.v1.TableInfo p) {
    return new TableInfo(p.getTableId(), p.getSchemaName(), p.getTableName(),
        p.getColumnsList().stream().map(ColumnInfo::fromProto).toList(), p.getPrimaryKeyList(), p.getVersion(),
        p.getVersionRowSeq(), p.getGeneratedColumnsList().stream().map(GeneratedColumn::fromProto).toList(),
        Partitioning.of(p));
  }
}
