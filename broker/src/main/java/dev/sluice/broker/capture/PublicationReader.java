package dev.sluice.broker.capture;

import dev.sluice.broker.publication.PublicationMembers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads which of the tables capture follows a publication leaves out. A {@code FOR ALL TABLES} publication
 * leaves none (it publishes every permanent table, as capture follows them); otherwise every ordinary table
 * missing from {@code pg_publication_tables} is out, whether the publication lists tables or schemas.
 * Partitioned tables are never counted: their rows are their partitions', each published or not on its own.
 *
 * <pre>{@code
 * PublicationMembers m = PublicationReader.read(catalog, "sluice_pub", System.currentTimeMillis());
 * }</pre>
 */
final class PublicationReader {

  private static final String ALL_TABLES = "SELECT p.puballtables FROM pg_catalog.pg_publication p WHERE p.pubname = ?";

  private static final String UNPUBLISHED = "SELECT c.oid, n.nspname || '.' || c.relname"
      + " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
      + " WHERE c.relkind = 'r' AND " + DdlCaptureSql.CAPTURED_TABLE_FILTER
      + " AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_publication_tables pt WHERE pt.pubname = ?"
      + " AND pt.schemaname = n.nspname AND pt.tablename = c.relname)"
      + " ORDER BY c.oid";

  private PublicationReader() {}

  /** The publication's members now, or null when it does not exist (the stream fails on that by itself). */
  static PublicationMembers read(Connection catalog, String publication, long nowMillis) throws SQLException {
    boolean allTables;
    try (PreparedStatement ps = catalog.prepareStatement(ALL_TABLES)) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        allTables = rs.getBoolean(1);
      }
    }
    Map<Long, String> out = new HashMap<>();
    if (!allTables) {
      try (PreparedStatement ps = catalog.prepareStatement(UNPUBLISHED)) {
        ps.setString(1, publication);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.put(rs.getLong(1), rs.getString(2));
          }
        }
      }
    }
    return PublicationMembers.read(publication, allTables, out, nowMillis);
  }
}
