package dev.sluice.dispatcher;

import dev.sluice.api.v1.DdlType;
import dev.sluice.api.v1.TableInfo;
import java.util.List;
import java.util.Objects;

/**
 * A schema change of the subscribed table, with the table info before and after it, at its place in its
 * transaction: rows of the transaction with a lower row seq came before it (over
 * {@link #tableInfoBefore()}), rows with a higher one come after it (over {@link #tableInfoAfter()}), all
 * at the same {@link #commitTs()}.
 *
 * <pre>{@code
 * public void onDdl(DdlChange ddl) {
 *   if (ddl.ddlType() == DdlType.DDL_TYPE_ADD_COLUMN) addColumns(ddl.tableInfoBefore(), ddl.tableInfoAfter());
 *   handle.acknowledge(ddl.position());
 * }
 * }</pre>
 *
 * @param commitTs        commit ts of the change
 * @param ddlType         what kind of change
 * @param query           the statement as captured, or "" when the source does not give it; it may hold
 *                        other statements too (a multi-statement query): replay it only when it is one
 * @param dialect         SQL dialect of {@code query} ("postgresql", "mysql"), "" when the query is empty
 * @param tableInfoBefore the table info in force before the change
 * @param tableInfoAfter  the table after the change (for DROP TABLE, as it was before the drop)
 * @param rowSeq          its place in the transaction (DdlEvent.row_seq); 0 at the start of it, and for
 *                        DDL stored before places existed (those came before all rows)
 * @param volatileDefaultColumns columns it added with a default the target computes again (now(),
 *                        random(), ...): the rows the table had then differ downstream in them
 */
public record DdlChange(long commitTs, DdlType ddlType, String query, String dialect, TableInfo tableInfoBefore,
    TableInfo tableInfoAfter, long rowSeq, List<String> volatileDefaultColumns) {

  /** Checks that no component is null. */
  public DdlChange {
    Objects.requireNonNull(ddlType, "ddlType");
    Objects.requireNonNull(query, "query");
    Objects.requireNonNull(dialect, "dialect");
    Objects.requireNonNull(tableInfoBefore, "tableInfoBefore");
    Objects.requireNonNull(tableInfoAfter, "tableInfoAfter");
    volatileDefaultColumns = List.copyOf(volatileDefaultColumns);
    if (rowSeq < 0) {
      throw new IllegalArgumentException("row seq must be >= 0, got " + rowSeq);
    }
  }

  /** A change at the start of its transaction that adds no volatile default. */
  public DdlChange(long commitTs, DdlType ddlType, String query, String dialect, TableInfo tableInfoBefore,
      TableInfo tableInfoAfter) {
    this(commitTs, ddlType, query, dialect, tableInfoBefore, tableInfoAfter, 0, List.of());
  }

  /**
   * The position a subscriber has reached once it applied this change: inside its transaction, past the
   * change's row seq. A change at row seq 0 came before every row of its transaction (rows of DDL stored
   * before places existed start at 0 too), so its position is just before the transaction; a replay of it
   * is told apart by {@link #isCoveredBy} with the DDL progress a sink keeps.
   */
  public Checkpoint position() {
    return rowSeq == 0 ? Checkpoint.at(commitTs - 1) : Checkpoint.inside(commitTs, rowSeq + 1);
  }

  /**
   * Whether a subscriber whose progress is {@code applied}, and whose last applied change was at commit ts
   * {@code lastDdlTs} (0 when none), has applied this change already: a replay after a reset or a crash.
   */
  public boolean isCoveredBy(Checkpoint applied, long lastDdlTs) {
    return applied.covers(commitTs, rowSeq) || (rowSeq == 0 && lastDdlTs >= commitTs);
  }

  /** The same change with other table infos (a sink's view of them, e.g. with target schemas). */
  public DdlChange withTableInfos(TableInfo before, TableInfo after) {
    return new DdlChange(commitTs, ddlType, query, dialect, before, after, rowSeq, volatileDefaultColumns);
  }

  /** "schema.table" after the change. */
  public String tableName() {
    return tableInfoAfter.getSchemaName() + "." + tableInfoAfter.getTableName();
  }

  /** The upstream table id (its PostgreSQL oid). */
  public long tableId() {
    return tableInfoAfter.getTableId();
  }
}
