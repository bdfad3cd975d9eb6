package dev.sluice.dispatcher.sink;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The {@code GENERATED ALWAYS AS IDENTITY} columns of PostgreSQL target tables (as a captured CREATE
 * makes them), read once per table from the catalog. Inserts write them with {@code OVERRIDING SYSTEM
 * VALUE}; an upsert's {@code DO UPDATE} leaves them out, because PostgreSQL lets such a column be updated
 * to DEFAULT only (upstream too: their value is set once, when the row is inserted). One instance per
 * connection; {@link #forget()} after DDL.
 */
final class IdentityColumns {

  private final Connection connection;
  private final Map<String, Set<String>> tables = new HashMap<>();

  IdentityColumns(Connection connection) {
    this.connection = connection;
  }

  /** The identity ALWAYS columns of {@code quotedTable} ("schema"."table"); empty when it has none. */
  Set<String> always(String quotedTable) throws SQLException {
    Set<String> known = tables.get(quotedTable);
    if (known != null) {
      return known;
    }
    Set<String> columns = new HashSet<>();
    try (PreparedStatement ps = connection.prepareStatement("SELECT attname FROM pg_catalog.pg_attribute "
        + "WHERE attrelid = to_regclass(?) AND attidentity = 'a' AND attnum > 0 AND NOT attisdropped")) {
      ps.setString(1, quotedTable);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          columns.add(rs.getString(1));
        }
      }
    }
    tables.put(quotedTable, Set.copyOf(columns));
    return tables.get(quotedTable);
  }

  void forget() {
    tables.clear();
  }
}
