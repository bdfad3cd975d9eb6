package dev.sluice.broker.capture;

import dev.sluice.schema.TableInfo;

/**
 * How rows of one relation are encoded: the relation's column types and which columns form the key
 * whose hash routes the row, resolved against the {@link TableInfo} in force.
 *
 * @param relation     the Relation message
 * @param types        the type of each published column
 * @param keyIndexes   positions of the key columns (TableInfo primary key), in key order; empty: no key
 * @param tableInfo    the schema version rows of this layout follow
 */
record RelationLayout(PgRelation relation, PgType[] types, int[] keyIndexes, TableInfo tableInfo) {

  static RelationLayout of(PgRelation relation, PgType[] types, TableInfo tableInfo) {
    int[] keys = new int[tableInfo.primaryKey().size()];
    for (int k = 0; k < keys.length; k++) {
      keys[k] = indexOf(relation, tableInfo.primaryKey().get(k));
      if (keys[k] < 0) {
        keys = new int[0]; // key column not published (cannot happen for a consistent version): no routing key
        break;
      }
    }
    return new RelationLayout(relation, types, keys, tableInfo);
  }

  private static int indexOf(PgRelation relation, String column) {
    for (int i = 0; i < relation.columns().size(); i++) {
      if (relation.columns().get(i).name().equals(column)) {
        return i;
      }
    }
    return -1;
  }
}
