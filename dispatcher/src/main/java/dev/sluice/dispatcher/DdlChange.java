package dev.sluice.dispatcher;

import dev.sluice.api.v1.DdlType;
import dev.sluice.api.v1.TableInfo;
import java.util.Objects;

/**
 * A schema change of the subscribed table, with the table info before and after it. Rows after the
 * change follow {@link #tableInfoAfter()}.
 *
 * <pre>{@code
 * public void onDdl(DdlChange ddl) {
 *   if (ddl.ddlType() == DdlType.DDL_TYPE_ADD_COLUMN) addColumns(ddl.tableInfoBefore(), ddl.tableInfoAfter());
 * }
 * }</pre>
 *
 * @param commitTs        commit ts of the change
 * @param ddlType         what kind of change
 * @param query           the statement as captured, or "" when the source does not give it
 * @param dialect         SQL dialect of {@code query} ("postgresql", "mysql"), "" when the query is empty
 * @param tableInfoBefore the table info in force before the change
 * @param tableInfoAfter  the table after the change (for DROP TABLE, as it was before the drop)
 */
public record DdlChange(long commitTs, DdlType ddlType, String query, String dialect, TableInfo tableInfoBefore,
    TableInfo tableInfoAfter) {

  public DdlChange {
    Objects.requireNonNull(ddlType, "ddlType");
    Objects.requireNonNull(query, "query");
    Objects.requireNonNull(dialect, "dialect");
    Objects.requireNonNull(tableInfoBefore, "tableInfoBefore");
    Objects.requireNonNull(tableInfoAfter, "tableInfoAfter");
  }

  /** "schema.table" after the change. */
  public String tableName() {
    return tableInfoAfter.getSchemaName() + "." + tableInfoAfter.getTableName();
  }

  public long tableId() {
    return tableInfoAfter.getTableId();
  }
}
