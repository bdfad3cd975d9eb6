package dev.sluice.broker.capture;

import dev.sluice.broker.capture.PgType.Codec;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Resolves type oids to {@link PgType}s: built-in types from a fixed table, everything else (enums,
 * domains, arrays of those, extension types) once through the catalog, then cached. A type the
 * catalog does not know (dropped since) is captured as fallback text.
 *
 * <pre>{@code
 * PgTypes types = new PgTypes(oid -> catalog.findType(oid));
 * PgType t = types.resolve(23);   // int4 -> Codec.INT
 * }</pre>
 */
final class PgTypes {

  /** One {@code pg_type} row, as much of it as resolution needs. */
  record CatalogType(int oid, String name, char typtype, char category, int elementOid, int baseTypeOid,
      char delimiter) {

    /** A row with the usual array delimiter {@code ','}. */
    CatalogType(int oid, String name, char typtype, char category, int elementOid, int baseTypeOid) {
      this(oid, name, typtype, category, elementOid, baseTypeOid, ',');
    }
  }

  /** Reads one {@code pg_type} row; empty when the oid is unknown. */
  @FunctionalInterface
  interface Lookup {
    Optional<CatalogType> find(int oid);
  }

  private static final Map<Integer, PgType> BUILTIN = builtins();

  private final Lookup lookup;
  private final Map<Integer, PgType> resolved = new ConcurrentHashMap<>();

  PgTypes(Lookup lookup) {
    this.lookup = lookup;
  }

  /** The type of {@code oid}; never null. */
  PgType resolve(int oid) {
    PgType b = BUILTIN.get(oid);
    if (b != null) {
      return b;
    }
    PgType cached = resolved.get(oid);
    if (cached != null) {
      return cached;
    }
    PgType t = resolveFromCatalog(oid, 0);
    resolved.put(oid, t);
    return t;
  }

  private PgType resolveFromCatalog(int oid, int depth) {
    PgType b = BUILTIN.get(oid);
    if (b != null) {
      return b;
    }
    Optional<CatalogType> row = depth > 8 ? Optional.empty() : lookup.find(oid);
    if (row.isEmpty()) {
      return PgType.builtin(oid, "oid " + oid, Codec.FALLBACK);
    }
    CatalogType c = row.get();
    if (c.typtype() == 'e') {
      return new PgType(oid, c.name(), Codec.ENUM, null, c.delimiter());
    }
    if (c.typtype() == 'd' && c.baseTypeOid() != 0) {
      PgType base = resolveFromCatalog(c.baseTypeOid(), depth + 1);
      return new PgType(oid, c.name(), base.codec(), base.element(), c.delimiter());
    }
    if (c.category() == 'A' && c.elementOid() != 0) {
      return new PgType(oid, c.name(), Codec.ARRAY, resolveFromCatalog(c.elementOid(), depth + 1), c.delimiter());
    }
    return new PgType(oid, c.name(), Codec.FALLBACK, null, c.delimiter()); // box: ';'
  }

  private static Map<Integer, PgType> builtins() {
    Map<Integer, PgType> m = new HashMap<>();
    scalar(m, 16, "bool", Codec.BOOL, 1000);
    scalar(m, 17, "bytea", Codec.BYTEA, 1001);
    scalar(m, 19, "name", Codec.TEXT, 1003);
    scalar(m, 20, "int8", Codec.INT, 1016);
    scalar(m, 21, "int2", Codec.INT, 1005);
    scalar(m, 23, "int4", Codec.INT, 1007);
    scalar(m, 25, "text", Codec.TEXT, 1009);
    scalar(m, 114, "json", Codec.JSON, 199);
    scalar(m, 700, "float4", Codec.FLOAT4, 1021);
    scalar(m, 701, "float8", Codec.FLOAT8, 1022);
    scalar(m, 1042, "bpchar", Codec.TEXT, 1014);
    scalar(m, 1043, "varchar", Codec.TEXT, 1015);
    scalar(m, 1082, "date", Codec.DATE, 1182);
    scalar(m, 1083, "time", Codec.TIME, 1183);
    scalar(m, 1114, "timestamp", Codec.TIMESTAMP, 1115);
    scalar(m, 1184, "timestamptz", Codec.TIMESTAMPTZ, 1185);
    scalar(m, 1700, "numeric", Codec.NUMERIC, 1231);
    scalar(m, 2950, "uuid", Codec.UUID, 2951);
    scalar(m, 3802, "jsonb", Codec.JSON, 3807);
    return Map.copyOf(m);
  }

  private static void scalar(Map<Integer, PgType> m, int oid, String name, Codec codec, int arrayOid) {
    PgType t = PgType.builtin(oid, name, codec);
    m.put(oid, t);
    m.put(arrayOid, PgType.array(arrayOid, "_" + name, t));
  }
}
