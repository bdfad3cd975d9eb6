package dev.sluice.broker.capture;

import java.util.Optional;

/** What capture asks the upstream catalog while streaming: type names and a table's current name. */
interface SourceCatalog {

  /** The source's name of a column type ({@code format_type(oid, typmod)} with search_path = pg_catalog). */
  String formatType(int typeOid, int typeModifier);

  /** The table's current {@code {schema, name}}, or empty when no table has that oid (dropped). */
  Optional<String[]> currentName(long tableOid);
}
