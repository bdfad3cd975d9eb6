package dev.sluice.broker.capture;

import dev.sluice.api.v1.UserType;
import java.util.List;
import java.util.Optional;

/** What capture asks the upstream catalog while streaming: type names and definitions, a table's current name. */
interface SourceCatalog {

  /** The source's name of a column type ({@code format_type(oid, typmod)} with search_path = pg_catalog). */
  String formatType(int typeOid, int typeModifier);

  /**
   * The user-defined types a column of type {@code typeOid} needs ({@link DdlCaptureSql#userTypesOf}), as
   * the catalog has them now; empty for built-in types.
   */
  List<UserType> userTypes(int typeOid);

  /** The table's current {@code {schema, name}}, or empty when no table has that oid (dropped). */
  Optional<String[]> currentName(long tableOid);
}
