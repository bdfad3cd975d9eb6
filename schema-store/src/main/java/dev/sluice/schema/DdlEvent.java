package dev.sluice.schema;

import java.util.List;
import java.util.Objects;

/**
 * A schema change of one table, at its place inside its transaction: {@code (commitTs, rowSeq)} in the
 * sequence the transaction's rows are numbered in (the DDL takes a number of its own), so rows before it
 * have a lower row seq and rows after it a higher one.
 *
 * <pre>{@code
 * DdlEvent add = new DdlEvent(2000, DdlType.ADD_COLUMN, "ALTER TABLE orders ADD note text",
 *     ordersV2, "postgresql");
 * }</pre>
 *
 * @param commitTs       commit ts of the transaction that made the change
 * @param type           what kind of change
 * @param query          the statement as captured, or {@code ""} when the source does not give it
 * @param tableInfoAfter the table after the change; for {@link DdlType#DROP_TABLE}, the table as it was
 *                       before the drop. Its {@code version} equals {@code commitTs}.
 * @param dialect        SQL dialect of {@code query} ({@code "postgresql"}, {@code "mysql"}); {@code ""}
 *                       when the query is empty
 * @param rowSeq         the DDL's place inside its transaction; 0 at its start (and for DDL stored before
 *                       positions existed, which came before all rows). {@code tableInfoAfter.versionRowSeq()}
 *                       equals it.
 * @param volatileDefaultColumns columns the DDL added with a default that is not immutable ({@code now()},
 *                       {@code random()}): the rows the table had then differ downstream in them
 */
public record DdlEvent(long commitTs, DdlType type, String query, TableInfo tableInfoAfter, String dialect,
    long rowSeq, List<String> volatileDefaultColumns) {

  public DdlEvent {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(query, "query");
    Objects.requireNonNull(tableInfoAfter, "tableInfoAfter");
    Objects.requireNonNull(dialect, "dialect");
    volatileDefaultColumns = List.copyOf(volatileDefaultColumns);
    if (commitTs <= 0) {
      throw new IllegalArgumentException("DDL commit ts must be positive, got " + commitTs);
    }
    if (tableInfoAfter.version() != commitTs || tableInfoAfter.versionRowSeq() != rowSeq) {
      throw new IllegalArgumentException("table info version " + tableInfoAfter.version() + "/"
          + tableInfoAfter.versionRowSeq() + " must equal the DDL's commit ts and row seq " + commitTs + "/" + rowSeq);
    }
  }

  /** A DDL at the start of its transaction (row seq 0) that adds no volatile default. */
  public DdlEvent(long commitTs, DdlType type, String query, TableInfo tableInfoAfter, String dialect) {
    this(commitTs, type, query, tableInfoAfter, dialect, 0, List.of());
  }

  /** Whether this DDL comes before the one at {@code (otherTs, otherRowSeq)} in commit order. */
  public boolean isBefore(long otherTs, long otherRowSeq) {
    return commitTs < otherTs || (commitTs == otherTs && rowSeq < otherRowSeq);
  }

  public long tableId() {
    return tableInfoAfter.tableId();
  }

  public dev.sluice.api.v1.DdlEvent toProto() {
    return dev.sluice.api.v1.DdlEvent.newBuilder()
        .setCommitTs(commitTs).setDdlType(type.toProto()).setQuery(query)
        .setTableInfoAfter(tableInfoAfter.toProto()).setTableId(tableId()).setDialect(dialect)
        .setRowSeq(rowSeq).addAllVolatileDefaultColumns(volatileDefaultColumns)
        .build();
  }

  public static DdlEvent fromProto(dev.sluice.api.v1.DdlEvent p) {
    return new DdlEvent(p.getCommitTs(), DdlType.fromProto(p.getDdlType()), p.getQuery(),
        TableInfo.fromProto(p.getTableInfoAfter()), p.getDialect(), p.getRowSeq(), p.getVolatileDefaultColumnsList());
  }
}
