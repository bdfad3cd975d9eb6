package dev.sluice.broker.capture;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import dev.sluice.api.v1.UserType;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Catalog look-ups capture needs while streaming ({@code pg_type} rows, {@code format_type}), through
 * the session's catalog connection (search_path = pg_catalog), cached. Capture thread only.
 */
final class PgCatalog implements PgTypes.Lookup, SourceCatalog {

  private final Connection connection;
  /** Oids below this are built into PostgreSQL (FirstNormalObjectId). */
  private static final long FIRST_NORMAL_OID = 16384;

  private final Map<Long, String> formatted = new HashMap<>();
  private final Map<Long, List<UserType>> userTypes = new HashMap<>();

  PgCatalog(Connection connection) {
    this.connection = connection;
  }

  @Override
  public Optional<PgTypes.CatalogType> find(int oid) {
    try (PreparedStatement ps = connection.prepareStatement(
        "SELECT typname, typtype, typcategory, typelem, typbasetype, typdelim FROM pg_catalog.pg_type WHERE oid = ?")) {
      ps.setLong(1, oid & 0xFFFF_FFFFL);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(new PgTypes.CatalogType(oid, rs.getString(1), rs.getString(2).charAt(0),
            rs.getString(3).charAt(0), (int) rs.getLong(4), (int) rs.getLong(5), rs.getString(6).charAt(0)));
      }
    } catch (SQLException e) {
      throw UpstreamChecks.classify(e, "upstream", "reading pg_type for oid " + oid);
    }
  }

  @Override
  public String formatType(int typeOid, int typeModifier) {
    long key = (long) typeOid << 32 | (typeModifier & 0xFFFF_FFFFL);
    String cached = formatted.get(key);
    if (cached != null) {
      return cached;
    }
    try (PreparedStatement ps = connection.prepareStatement("SELECT pg_catalog.format_type(?::oid, ?)")) {
      ps.setLong(1, typeOid & 0xFFFF_FFFFL);
      ps.setInt(2, typeModifier);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        String name = rs.getString(1);
        formatted.put(key, name);
        return name;
      }
    } catch (SQLException e) {
      throw UpstreamChecks.classify(e, "upstream", "formatting type " + typeOid);
    }
  }

  @Override
  public List<UserType> userTypes(int typeOid) {
    long oid = typeOid & 0xFFFF_FFFFL;
    if (oid < FIRST_NORMAL_OID) {
      return List.of();
    }
    List<UserType> cached = userTypes.get(oid);
    if (cached != null) {
      return cached;
    }
    try (PreparedStatement ps = connection.prepareStatement("SELECT (" + DdlCaptureSql.userTypesOf("?::int8") + ")::text")) {
      ps.setLong(1, oid);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        List<UserType> types = TableDefinitions.userTypes(new io.vertx.core.json.JsonArray(rs.getString(1)));
        userTypes.put(oid, types);
        return types;
      }
    } catch (SQLException e) {
      throw UpstreamChecks.classify(e, "upstream", "reading the definition of type " + oid);
    }
  }

  /** Forgets the type definitions read so far (a type may have changed since). */
  void forgetUserTypes() {
    userTypes.clear();
  }

  @Override
  public Optional<String[]> currentName(long tableOid) {
    try (PreparedStatement ps = connection.prepareStatement("SELECT n.nspname, c.relname FROM pg_catalog.pg_class c"
        + " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = ?")) {
      ps.setLong(1, tableOid);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(new String[] {rs.getString(1), rs.getString(2)}) : Optional.empty();
      }
    } catch (SQLException e) {
      throw UpstreamChecks.classify(e, "upstream", "reading pg_class for oid " + tableOid);
    }
  }
}
