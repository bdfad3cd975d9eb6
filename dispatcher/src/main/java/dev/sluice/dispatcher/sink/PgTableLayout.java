package dev.sluice.dispatcher.sink;

import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.GeneratedColumn;
import dev.sluice.api.v1.PartitionAncestor;
import dev.sluice.api.v1.TableInfo;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The statements that create a table on a PostgreSQL target with the source's layout, which the table info records
 * beside its columns: STORED generated columns, each at its place among the columns and computed by the target from
 * its expression as the source spells it, a partitioned table's {@code PARTITION BY}, and a partition's place under
 * its parent. Other dialects have none of it (the expressions are PostgreSQL's). Stateless.
 *
 * <pre>{@code
 * String sql = PgTableLayout.createTable("\"public\".\"orders\"", info);
 * List<String> statements = PgTableLayout.createPartition("\"public\".\"orders_2025\"", partitionInfo, s -> s);
 * }</pre>
 */
final class PgTableLayout {

  private PgTableLayout() {}

  /** CREATE TABLE IF NOT EXISTS for {@code info} with its generated columns and, when it is partitioned, its key. */
  static String createTable(String table, TableInfo info) {
    Dialect pg = Dialect.POSTGRESQL;
    List<String> columns = new ArrayList<>();
    for (ColumnInfo c : info.getColumnsList()) {
      columns.add(pg.columnDefinition(c, info.getPrimaryKeyList().contains(c.getName())));
    }
    // in position order, so each lands where the source has it among the columns before it
    info.getGeneratedColumnsList().stream().sorted(Comparator.comparingInt(GeneratedColumn::getPosition))
        .forEach(g -> columns.add(Math.min(g.getPosition(), columns.size()), pg.quote(g.getName()) + " "
            + g.getSourceType() + " GENERATED ALWAYS AS (" + g.getExpression() + ") STORED"
            + (g.getNullable() ? "" : " NOT NULL")));
    return pg.createTable(table, columns, info.getPrimaryKeyList(),
        info.getPartitionBy().isEmpty() ? "" : " PARTITION BY " + info.getPartitionBy());
  }

  /**
   * The statements creating {@code table}, a partition ({@code info} has a bound and ancestors), as a partition of its
   * parent, with each partitioned table above it that the target lacks created first from the partition's own columns
   * (every level of a hierarchy has the same ones): the root in its own column order with its key, generated columns
   * and partition key, each level below it as a partition of the one above. A partition whose parent has no key gets
   * its own (once: the statements run again on every start).
   *
   * @param schemaOf the target schema of a source schema
   */
  static List<String> createPartition(String table, TableInfo info, UnaryOperator<String> schemaOf) {
    List<PartitionAncestor> up = info.getPartitionAncestorsList();   // parent first, root last
    List<String> out = new ArrayList<>();
    PartitionAncestor root = up.get(up.size() - 1);
    out.add(createTable(qualified(root, schemaOf), inOrderOf(info, root.getColumnNamesList()).toBuilder()
        .clearPrimaryKey().addAllPrimaryKey(root.getPrimaryKeyList()).setPartitionBy(root.getPartitionBy())
        .clearPartitionBound().clearPartitionAncestors().build()));
    for (int i = up.size() - 2; i >= 0; i--) {
      PartitionAncestor a = up.get(i);
      out.add(partitionOf(qualified(a, schemaOf), up.get(i + 1), schemaOf, a.getPartitionBound(), a.getPartitionBy()));
    }
    out.add(partitionOf(table, up.get(0), schemaOf, info.getPartitionBound(), info.getPartitionBy()));
    if (up.get(0).getPrimaryKeyCount() == 0 && info.getPrimaryKeyCount() > 0) {
      out.add("DO $sluice$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint WHERE conrelid = "
          + Dialect.tableLiteral(table) + "::regclass AND contype = 'p') THEN "
          + Dialect.POSTGRESQL.addPrimaryKey(table, info.getPrimaryKeyList()) + "; END IF; END $sluice$");
    }
    return out;
  }

  /**
   * {@code info}'s columns, generated ones included, in the order {@code names} gives (a partition attached after it
   * was created may have its parent's columns in another order); as they are when {@code names} is empty.
   */
  private static TableInfo inOrderOf(TableInfo info, List<String> names) {
    if (names.isEmpty()) {
      return info;
    }
    TableInfo.Builder b = info.toBuilder().clearColumns().clearGeneratedColumns();
    info.getColumnsList().stream().sorted(Comparator.comparingInt(c -> place(names, c.getName())))
        .forEach(b::addColumns);
    for (GeneratedColumn g : info.getGeneratedColumnsList()) {
      int at = names.indexOf(g.getName());
      b.addGeneratedColumns(at < 0 ? g : g.toBuilder().setPosition(at).build());
    }
    return b.build();
  }

  /** Where {@code name} stands in {@code names}; after all of them when it is not there. */
  private static int place(List<String> names, String name) {
    int at = names.indexOf(name);
    return at < 0 ? Integer.MAX_VALUE : at;
  }

  private static String partitionOf(String table, PartitionAncestor parent, UnaryOperator<String> schemaOf,
      String bound, String by) {
    return "CREATE TABLE IF NOT EXISTS " + table + " PARTITION OF " + qualified(parent, schemaOf) + " " + bound
        + (by.isEmpty() ? "" : " PARTITION BY " + by);
  }

  private static String qualified(PartitionAncestor a, UnaryOperator<String> schemaOf) {
    return Dialect.POSTGRESQL.qualified(schemaOf.apply(a.getSchemaName()), a.getTableName());
  }
}
