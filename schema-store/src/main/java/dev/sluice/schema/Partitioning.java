package dev.sluice.schema;

import java.util.List;
import java.util.Objects;

/**
 * Where a table stands in a PostgreSQL partition hierarchy: its own partition key when it is partitioned, its bound
 * and the tables above it when it is a partition. {@link #NONE} for every other table.
 *
 * <pre>{@code
 * Partitioning p2025 = new Partitioning("", "FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')",
 *     List.of(new Partitioning.Ancestor("public", "measurements", "RANGE (logdate)", "", List.of("city", "logdate"),
 *         List.of("city", "logdate", "peak"))));
 * }</pre>
 *
 * @param by        the partition key as {@code pg_get_partkeydef} prints it ({@code "RANGE (logdate)"}); empty unless
 *                  the table is partitioned
 * @param bound     the table's bound as a partition ({@code "FOR VALUES IN (1)"}); empty unless it is a partition
 * @param ancestors the partitioned tables above it, its parent first and the root last
 */
public record Partitioning(String by, String bound, List<Ancestor> ancestors) {

  /** Not partitioned, not a partition. */
  public static final Partitioning NONE = new Partitioning("", "", List.of());

  public Partitioning {
    Objects.requireNonNull(by, "by");
    Objects.requireNonNull(bound, "bound");
    ancestors = List.copyOf(ancestors);
    if (bound.isEmpty() != ancestors.isEmpty()) {   // a partition has a bound and a parent, and only a partition
      throw new IllegalArgumentException("a partition needs both its bound and its parent, got bound '" + bound
          + "' and " + ancestors.size() + " ancestors");
    }
  }

  /**
   * A partitioned table above a partition.
   *
   * @param by         its partition key, as {@link Partitioning#by()}
   * @param bound      its own bound when it is a partition itself; empty for the root
   * @param primaryKey its primary key columns in key order; empty when it has none
   * @param columnNames its columns' names in its own order, generated ones included (a partition attached after it
   *                   was created may have them in another order); empty when not recorded
   */
  public record Ancestor(String schemaName, String tableName, String by, String bound, List<String> primaryKey,
      List<String> columnNames) {

    public Ancestor {
      Objects.requireNonNull(schemaName, "schemaName");
      Objects.requireNonNull(tableName, "tableName");
      Objects.requireNonNull(by, "by");
      Objects.requireNonNull(bound, "bound");
      primaryKey = List.copyOf(primaryKey);
      columnNames = List.copyOf(columnNames);
    }
  }

  void writeTo(dev.sluice.api.v1.TableInfo.Builder b) {
    b.setPartitionBy(by).setPartitionBound(bound);
    for (Ancestor a : ancestors) {
      b.addPartitionAncestors(dev.sluice.api.v1.PartitionAncestor.newBuilder().setSchemaName(a.schemaName())
          .setTableName(a.tableName()).setPartitionBy(a.by()).setPartitionBound(a.bound())
          .addAllPrimaryKey(a.primaryKey()).addAllColumnNames(a.columnNames()));
    }
  }

  static Partitioning of(dev.sluice.api.v1.TableInfo p) {
    if (p.getPartitionBy().isEmpty() && p.getPartitionBound().isEmpty() && p.getPartitionAncestorsCount() == 0) {
      return NONE;
    }
    return new Partitioning(p.getPartitionBy(), p.getPartitionBound(), p.getPartitionAncestorsList().stream()
        .map(a -> new Ancestor(a.getSchemaName(), a.getTableName(), a.getPartitionBy(), a.getPartitionBound(),
            a.getPrimaryKeyList(), a.getColumnNamesList())).toList());
  }
}
