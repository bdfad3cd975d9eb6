package dev.sluice.dispatcher.sink;

import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.DdlType;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.dispatcher.DdlChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Derives target statements for a DDL from the table info before and after it, for targets of another
 * dialect (or captured DDL without a query, or whose text holds several statements): CREATE TABLE,
 * ADD/DROP/RENAME COLUMN (an added column with its NOT NULL and, on PostgreSQL, its default), column type
 * changes, SET/DROP NOT NULL, SET/DROP DEFAULT (PostgreSQL), a primary key added, moved to other columns or
 * dropped (with the columns that enter or leave it retyped where their type depends on it: a key-sized VARCHAR for
 * a text column on MySQL), RENAME/TRUNCATE/DROP TABLE, and an
 * index created or dropped without changing the key as nothing. Anything else is an
 * {@link UnsupportedDdlException}. The forms use IF [NOT] EXISTS where the target has them, so replaying a DDL
 * after a crash is harmless.
 */
final class DdlTranslator {

  private final Dialect dialect;

  DdlTranslator(Dialect dialect) {
    this.dialect = dialect;
  }

  /**
   * @param table        the quoted target table as it was before the DDL
   * @param targetSchema the target schema of the table
   * @param tableOptions for a table it creates ({@link KeyCollation#tableOptions})
   */
  List<String> derive(DdlChange ddl, String table, String targetSchema, String tableOptions) {
    TableInfo before = ddl.tableInfoBefore();
    TableInfo after = ddl.tableInfoAfter();
    DdlType type = ddl.ddlType();
    return switch (type) {
      case DDL_TYPE_CREATE_TABLE -> List.of(createTable(ddl, dialect.qualified(targetSchema, after.getTableName()),
          tableOptions));
      case DDL_TYPE_TRUNCATE_TABLE -> List.of(dialect.truncate(table));
      case DDL_TYPE_DROP_TABLE -> List.of(dialect.dropTable(table));
      case DDL_TYPE_RENAME_TABLE -> {
        if (before.getTableName().equals(after.getTableName())) {
          throw unsupported(ddl, "RENAME TABLE with the same name before and after");
        }
        yield List.of(dialect.renameTable(table, targetSchema, after.getTableName()));
      }
      case DDL_TYPE_ADD_COLUMN, DDL_TYPE_DROP_COLUMN, DDL_TYPE_RENAME_COLUMN, DDL_TYPE_ALTER_COLUMN_TYPE,
          DDL_TYPE_ALTER_TABLE -> alterColumns(ddl, table);
      // the type changed, not the table: PostgreSQL targets update the type itself (PgUserTypes), other
      // targets store the values by what the type is built from (enum labels as text) and need nothing
      case DDL_TYPE_ALTER_TYPE -> List.of();
      // a derived copy has the columns and the key, no other index: an index that leaves the key as it was
      // changes nothing here (the rows a unique one admits upstream are the rows that arrive); one that moves it
      // (a replica identity index dropped, or a primary key made by an index) moves the copy's key
      case DDL_TYPE_CREATE_INDEX, DDL_TYPE_DROP_INDEX -> {
        if (before.getTableName().isEmpty()) {
          throw unsupported(ddl, type + " without the table info before it cannot be derived" + captured(ddl));
        }
        yield before.getPrimaryKeyList().equals(after.getPrimaryKeyList()) ? List.of()
            : dialect.changeKey(table, after.getPrimaryKeyList(), movedInKey(before, after, byName(before)));
      }
      case DDL_TYPE_OTHER, DDL_TYPE_UNSPECIFIED, UNRECOGNIZED ->
          throw unsupported(ddl, type + " cannot be derived from the table info" + captured(ddl));
    };
  }

  /** CREATE TABLE IF NOT EXISTS for {@code info} at {@code table}. */
  String createTable(DdlChange ddl, String table, String tableOptions) {
    TableInfo info = ddl.tableInfoAfter();
    checkCreatable(info, ddl.commitTs());
    return dialect.createTable(table, info, tableOptions);
  }

  /** Refuses a table with a column whose kind has no type on this target (a table without a key is fine). */
  void checkCreatable(TableInfo info, long commitTs) {
    String name = info.getSchemaName() + "." + info.getTableName();
    for (ColumnInfo c : info.getColumnsList()) {
      if (dialect.columnType(c, false) == null) {
        throw new UnsupportedDdlException(name, commitTs, "column " + c.getName() + " has no known kind ("
            + c.getSourceType() + ")");
      }
    }
  }

  private List<String> alterColumns(DdlChange ddl, String table) {
    TableInfo before = ddl.tableInfoBefore();
    TableInfo after = ddl.tableInfoAfter();
    Map<String, ColumnInfo> was = byName(before);
    Map<String, ColumnInfo> is = byName(after);
    List<ColumnInfo> added = after.getColumnsList().stream().filter(c -> !was.containsKey(c.getName())).toList();
    List<ColumnInfo> dropped = before.getColumnsList().stream().filter(c -> !is.containsKey(c.getName())).toList();
    List<String> out = new ArrayList<>();
    if (ddl.ddlType() == DdlType.DDL_TYPE_RENAME_COLUMN) {
      if (added.size() != 1 || dropped.size() != 1) {
        throw unsupported(ddl, "RENAME COLUMN must change exactly one column name, found added " + names(added)
            + " and dropped " + names(dropped));
      }
      out.add(dialect.renameColumn(table, dropped.get(0).getName(), added.get(0).getName()));
    } else {
      if (!added.isEmpty() && !dropped.isEmpty() && ddl.ddlType() != DdlType.DDL_TYPE_ALTER_TABLE) {
        throw unsupported(ddl, ddl.ddlType() + " both adds " + names(added) + " and drops " + names(dropped));
      }
      for (ColumnInfo c : dropped) {   // one of the key's: the key changes too, below
        out.add(dialect.dropColumn(table, c.getName()));
      }
      for (ColumnInfo c : added) {
        String type = dialect.columnType(c, false);
        if (type == null) {
          throw unsupported(ddl, "column " + c.getName() + " has no known kind (" + c.getSourceType() + ")");
        }
        out.add(dialect.addColumn(table, c));
      }
    }
    boolean keyChanged = !after.getPrimaryKeyList().equals(before.getPrimaryKeyList());
    if (keyChanged) {
      out.addAll(dialect.changeKey(table, after.getPrimaryKeyList(), movedInKey(before, after, was)));
    }
    for (ColumnInfo c : after.getColumnsList()) {
      ColumnInfo old = was.get(c.getName());
      boolean moved = old != null && before.getPrimaryKeyList().contains(c.getName())
          != after.getPrimaryKeyList().contains(c.getName());
      if (old != null && !moved && (old.getKind() != c.getKind() || old.getElementKind() != c.getElementKind()
          || !old.getSourceType().equals(c.getSourceType()))) {
        String type = dialect.columnType(c, after.getPrimaryKeyList().contains(c.getName()));
        if (type == null) {
          throw unsupported(ddl, "column " + c.getName() + " changes to an unknown kind (" + c.getSourceType() + ")");
        }
        if (!type.equals(dialect.columnType(old, before.getPrimaryKeyList().contains(c.getName())))) {
          out.add(dialect.alterColumnType(table, c, type));
          if (dialect == Dialect.MYSQL) {
            continue;   // MODIFY COLUMN restated the NULL-ness with the type
          }
        }
      }
      if (old != null) {
        out.addAll(nullabilityAndDefault(table, old, c, after.getPrimaryKeyList().contains(c.getName())));
      }
    }
    return out;
  }

  /**
   * The columns of {@code after} that enter or leave the key, each with its target type now; a column added by
   * this DDL was added with its type outside the key.
   */
  private List<Dialect.KeyColumn> movedInKey(TableInfo before, TableInfo after, Map<String, ColumnInfo> was) {
    List<Dialect.KeyColumn> out = new ArrayList<>();
    for (ColumnInfo c : after.getColumnsList()) {
      ColumnInfo old = was.get(c.getName());
      boolean inBefore = old != null && before.getPrimaryKeyList().contains(c.getName());
      boolean inAfter = after.getPrimaryKeyList().contains(c.getName());
      if (inBefore != inAfter) {
        String type = dialect.columnType(c, inAfter);
        if (type == null) {
          continue;   // no known kind: refused where the column's type is checked
        }
        String had = old == null ? dialect.columnType(c, false) : dialect.columnType(old, inBefore);
        out.add(new Dialect.KeyColumn(c, type, !type.equals(had)));
      }
    }
    return out;
  }

  /**
   * SET / DROP NOT NULL and SET / DROP DEFAULT of a column both versions have: what a migration's
   * {@code ALTER ... SET NOT NULL} after its backfill, or a changed default, is in the table info.
   */
  private List<String> nullabilityAndDefault(String table, ColumnInfo old, ColumnInfo c, boolean key) {
    List<String> out = new ArrayList<>();
    if (old.getNullable() != c.getNullable() && !key) {   // key columns are NOT NULL in the target already
      out.add(dialect.setNullable(table, c, dialect.columnType(c, false)));
    }
    boolean defaultChanged = old.getHasDefault() != c.getHasDefault()
        || !old.getDefaultExpr().equals(c.getDefaultExpr());
    String setDefault = defaultChanged ? dialect.setDefault(table, c) : null;
    if (setDefault != null) {
      out.add(setDefault);
    }
    return out;
  }

  private static Map<String, ColumnInfo> byName(TableInfo info) {
    return info.getColumnsList().stream().collect(Collectors.toMap(ColumnInfo::getName, Function.identity()));
  }

  private static List<String> names(List<ColumnInfo> cs) {
    return cs.stream().map(ColumnInfo::getName).toList();
  }

  /** " (captured dialect: text)" of a DDL that came with its text, for the message; empty without. */
  private static String captured(DdlChange ddl) {
    return ddl.query().isEmpty() ? "" : " (captured " + ddl.dialect() + ": " + ddl.query() + ")";
  }

  private static UnsupportedDdlException unsupported(DdlChange ddl, String what) {
    return new UnsupportedDdlException(ddl.tableName(), ddl.commitTs(), what);
  }
}
