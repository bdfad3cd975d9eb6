package dev.sluice.schema;

import java.util.Objects;

/**
 * A schema change of one table at one commit ts.
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
 */
public record DdlEvent(long commitTs, DdlType type, String query, TableInfo tableInfoAfter, String dialect) {

  public DdlEvent {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(query, "query");
    Objects.requireNonNull(tableInfoAfter, "tableInfoAfter");
    Objects.requireNonNull(dialect, "dialect");
    if (commitTs <= 0) {
      throw new IllegalArgumentException("DDL commit ts must be positive, got " + commitTs);
    }
    if (tableInfoAfter.version() != commitTs) {
      throw new IllegalArgumentException("table info version " + tableInfoAfter.version()
          + " must equal the DDL commit ts " + commitTs);
    }
  }

  public long tableId() {
    return tableInfoAfter.tableId();
  }

  public dev.sluice.api.v1.DdlEvent toProto() {
    return dev.sluice.api.v1.DdlEvent.newBuilder()
        .setCommitTs(commitTs).setDdlType(type.toProto()).setQuery(query)
        .setTableInfoAfter(tableInfoAfter.toProto()).setTableId(tableId()).setDialect(dialect)
        .build();
  }

  public static DdlEvent fromProto(dev.sluice.api.v1.DdlEvent p) {
    return new DdlEvent(p.getCommitTs(), DdlType.fromProto(p.getDdlType()), p.getQuery(),
        TableInfo.fromProto(p.getTableInfoAfter()), p.getDialect());
  }
}
