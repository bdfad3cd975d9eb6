package dev.sluice.broker.capture;

import java.util.List;

/**
 * A pgoutput Relation message: how the rows of one table that follow are laid out.
 *
 * <pre>{@code
 * PgRelation r = new PgRelation(16384, "public", "orders", 'd',
 *     List.of(new PgRelation.Column("id", 20, -1, true), new PgRelation.Column("note", 25, -1, false)));
 * String name = r.qualifiedName();   // "public.orders"
 * }</pre>
 *
 * @param oid              relation oid (the table id)
 * @param namespace        schema name
 * @param name             table name
 * @param replicaIdentity  {@code relreplident}: d(efault), n(othing), f(ull), i(ndex)
 * @param columns          published columns in attribute order (dropped and generated ones excluded)
 */
record PgRelation(long oid, String namespace, String name, char replicaIdentity, List<Column> columns) {

  PgRelation {
    columns = List.copyOf(columns);
  }

  String qualifiedName() {
    return namespace + "." + name;
  }

  /**
   * One published column.
   *
   * @param name         column name
   * @param typeOid      {@code atttypid}
   * @param typeModifier {@code atttypmod}, -1 when none
   * @param key          part of the replica identity
   */
  record Column(String name, int typeOid, int typeModifier, boolean key) {}
}
