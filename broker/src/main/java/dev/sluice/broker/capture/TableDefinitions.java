package dev.sluice.broker.capture;

import dev.sluice.api.v1.UserType;
import dev.sluice.api.v1.UserTypeField;
import dev.sluice.api.v1.UserTypeKind;
import dev.sluice.schema.ColumnInfo;
import dev.sluice.schema.GeneratedColumn;
import dev.sluice.schema.Partitioning;
import dev.sluice.schema.TableInfo;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the jsonb table definitions of {@link DdlCaptureSql} (from the event trigger or the catalog)
 * into {@link TableInfo}s, with each column's value kind resolved through {@link PgTypes}.
 *
 * <pre>{@code
 * TableInfo t = definitions.fromJson(16384, new JsonObject(definitionJson), 5000);
 * }</pre>
 */
final class TableDefinitions {

  private final PgTypes types;

  TableDefinitions(PgTypes types) {
    this.types = types;
  }

  /** True when the definition records a dropped table ({@code "dropped": true}). */
  static boolean isDrop(JsonObject definition) {
    return definition.getBoolean("dropped", false);
  }

  /** The table of a (non-drop) definition at {@code version}. */
  TableInfo fromJson(long tableOid, JsonObject def, long version) {
    JsonArray cols = array(def, "columns");
    List<ColumnInfo> columns = new ArrayList<>(cols.size());
    for (int i = 0; i < cols.size(); i++) {
      JsonObject c = cols.getJsonObject(i);
      PgType type = types.resolve((int) c.getLong("type_oid").longValue());
      columns.add(new ColumnInfo(c.getString("name"), c.getString("type"), type.kind(),
          !c.getBoolean("not_null", false), c.getString("default"), type.elementKind(),
          userTypes(array(c, "user_types"))));
    }
    JsonArray key = def.getJsonArray("key", new JsonArray());
    List<String> primaryKey = new ArrayList<>(key.size());
    for (int i = 0; i < key.size(); i++) {
      primaryKey.add(key.getString(i));
    }
    return new TableInfo(tableOid, def.getString("schema"), def.getString("name"), columns, primaryKey, version, 0,
        generated(array(def, "generated")), partitioning(def));
  }

  /** Where the table stands in a partition hierarchy; none in definitions captured before that was recorded. */
  private static Partitioning partitioning(JsonObject def) {
    String by = text(def, "partition_by");
    String bound = text(def, "partition_bound");
    JsonArray above = array(def, "partition_ancestors");
    if (by.isEmpty() && bound.isEmpty()) {
      return Partitioning.NONE;
    }
    List<Partitioning.Ancestor> ancestors = new ArrayList<>(above.size());
    for (int i = 0; i < above.size(); i++) {
      JsonObject a = above.getJsonObject(i);
      List<String> key = new ArrayList<>();
      array(a, "key").forEach(k -> key.add((String) k));
      List<String> names = new ArrayList<>();
      array(a, "columns").forEach(k -> names.add((String) k));
      ancestors.add(new Partitioning.Ancestor(a.getString("schema"), a.getString("name"), text(a, "partition_by"),
          text(a, "partition_bound"), key, names));
    }
    // a bound without a parent (or the reverse) cannot come from one catalog snapshot; never fail capture over it
    return bound.isEmpty() != ancestors.isEmpty() ? new Partitioning(by, "", List.of())
        : new Partitioning(by, bound, ancestors);
  }

  /** The string at {@code key}; empty when absent or JSON null (a CASE without a match). */
  private static String text(JsonObject o, String key) {
    Object v = o.getValue(key);
    return v == null ? "" : v.toString();
  }

  /** The STORED generated columns of a definition; none in definitions captured before they were recorded. */
  private static List<GeneratedColumn> generated(JsonArray cols) {
    List<GeneratedColumn> out = new ArrayList<>(cols.size());
    for (int i = 0; i < cols.size(); i++) {
      JsonObject c = cols.getJsonObject(i);
      out.add(new GeneratedColumn(c.getString("name"), c.getString("type"), c.getString("expression"),
          c.getInteger("position"), !c.getBoolean("not_null", false)));
    }
    return out;
  }

  /**
   * The columns of {@code def} that {@code before} did not have and whose default is not immutable
   * ({@code default_volatile} of {@link DdlCaptureSql}): their existing rows got values the log does not carry.
   */
  List<String> volatileDefaultsAdded(JsonObject def, TableInfo before) {
    List<String> out = new ArrayList<>();
    JsonArray cols = array(def, "columns");
    for (int i = 0; i < cols.size(); i++) {
      JsonObject c = cols.getJsonObject(i);
      if (c.getBoolean("default_volatile", false) && (before == null || before.columnIndex(c.getString("name")) < 0)) {
        out.add(c.getString("name"));
      }
    }
    return before == null ? List.of() : out;   // a CREATE has no rows yet
  }

  /** The user types of {@link DdlCaptureSql#userTypesOf} as protos, in their order. */
  static List<UserType> userTypes(JsonArray types) {
    List<UserType> out = new ArrayList<>(types.size());
    for (int i = 0; i < types.size(); i++) {
      JsonObject t = types.getJsonObject(i);
      UserType.Builder b = UserType.newBuilder().setTypeId(t.getLong("oid")).setSchemaName(t.getString("schema"))
          .setTypeName(t.getString("name")).setKind(switch (t.getString("kind")) {
            case "e" -> UserTypeKind.USER_TYPE_KIND_ENUM;
            case "c" -> UserTypeKind.USER_TYPE_KIND_COMPOSITE;
            case "d" -> UserTypeKind.USER_TYPE_KIND_DOMAIN;
            default -> UserTypeKind.USER_TYPE_KIND_UNSPECIFIED;
          });
      for (Object label : array(t, "labels")) {
        b.addLabels((String) label);
      }
      for (Object field : array(t, "fields")) {
        JsonObject f = (JsonObject) field;
        b.addFields(UserTypeField.newBuilder().setName(f.getString("name")).setType(f.getString("type")));
      }
      if (t.getString("base") != null) {
        b.setBaseType(t.getString("base"));
      }
      b.setNotNull(t.getBoolean("not_null", false));
      if (t.getString("default") != null) {
        b.setDefaultExpr(t.getString("default"));
      }
      for (Object constraint : array(t, "constraints")) {
        b.addConstraints((String) constraint);
      }
      out.add(b.build());
    }
    return out;
  }

  /** The array at {@code key}; empty when absent or JSON null (jsonb_agg over no rows). */
  private static JsonArray array(JsonObject o, String key) {
    JsonArray a = o.getJsonArray(key);
    return a == null ? new JsonArray() : a;
  }

  /**
   * Every captured table as the connection's snapshot sees it, at {@code version}. Run it inside the
   * transaction that imported the slot's exported snapshot.
   */
  List<TableInfo> readAll(Connection connection, long version) throws SQLException {
    List<TableInfo> tables = new ArrayList<>();
    try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(DdlCaptureSql.ALL_DEFINITIONS)) {
      while (rs.next()) {
        tables.add(fromJson(rs.getLong(1), new JsonObject(rs.getString(2)), version));
      }
    }
    return tables;
  }
}
