package dev.sluice.broker.capture;

import dev.sluice.schema.ColumnInfo;
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
    JsonArray cols = def.getJsonArray("columns", new JsonArray());
    List<ColumnInfo> columns = new ArrayList<>(cols.size());
    for (int i = 0; i < cols.size(); i++) {
      JsonObject c = cols.getJsonObject(i);
      PgType type = types.resolve((int) c.getLong("type_oid").longValue());
      columns.add(new ColumnInfo(c.getString("name"), c.getString("type"), type.kind(),
          !c.getBoolean("not_null", false), c.getString("default"), type.elementKind()));
    }
    JsonArray key = def.getJsonArray("key", new JsonArray());
    List<String> primaryKey = new ArrayList<>(key.size());
    for (int i = 0; i < key.size(); i++) {
      primaryKey.add(key.getString(i));
    }
    return new TableInfo(tableOid, def.getString("schema"), def.getString("name"), columns, primaryKey, version);
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
