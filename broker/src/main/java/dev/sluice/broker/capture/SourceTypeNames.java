package dev.sluice.broker.capture;

/** The source's name of a column type ({@code format_type(oid, typmod)} with search_path = pg_catalog). */
@FunctionalInterface
interface SourceTypeNames {
  String format(int typeOid, int typeModifier);
}
