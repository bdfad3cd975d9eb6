package dev.sluice.schema;

import java.util.Objects;

/**
 * A table's qualified name, the key of the name index. A record rather than {@code "schema.table"}
 * so that a dot inside a name cannot make two names collide.
 *
 * @param schemaName schema (PostgreSQL) or database (MySQL) name
 * @param tableName  table name
 */
record TableName(String schemaName, String tableName) {

  TableName {
    Objects.requireNonNull(schemaName, "schemaName");
    Objects.requireNonNull(tableName, "tableName");
  }

  static TableName of(TableInfo info) {
    return new TableName(info.schemaName(), info.tableName());
  }

  String qualified() {
    return schemaName + "." + tableName;
  }
}
