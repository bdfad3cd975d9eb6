package dev.sluice.broker.control;

import dev.sluice.schema.DdlEvent;
import dev.sluice.schema.DdlType;
import dev.sluice.schema.SchemaStore;
import dev.sluice.schema.TableInfo;
import dev.sluice.schema.UnknownTableException;
import java.util.List;

/**
 * The table info a dispatcher starting at a ts gets, for REGISTER's check, RESET's Handshake and
 * {@code GetTableSchema} alike: the version in force at the ts, or, for a table created after it (up to
 * the schema store's resolved ts), its definition as created. A dispatcher may start just before a CREATE
 * so that it also gets the rows of the creating transaction, and a client asking for the schema at that
 * ts gets the one its Handshake will carry.
 *
 * <pre>{@code
 * TableInfo info = StartTableInfo.byId(schemaStore, 100, startTs);
 * TableInfo named = StartTableInfo.byName(schemaStore, "public", "orders", startTs);
 * }</pre>
 */
public final class StartTableInfo {

  private StartTableInfo() {}

  /**
   * @throws UnknownTableException when the table neither exists at {@code ts} nor is created after it
   * @throws dev.sluice.schema.TableDroppedException when it was dropped at or before {@code ts}
   */
  public static TableInfo byId(SchemaStore schema, long tableId, long ts) {
    return byId(schema, tableId, ts, Long.MAX_VALUE);
  }

  /**
   * As {@link #byId(SchemaStore, long, long)}, before the place {@code rowSeq} of the transaction at
   * {@code ts} ({@code Long.MAX_VALUE}: after all of it); a CREATE inside that transaction counts as after.
   */
  public static TableInfo byId(SchemaStore schema, long tableId, long ts, long rowSeq) {
    try {
      return rowSeq == Long.MAX_VALUE ? schema.tableInfoAt(tableId, ts) : schema.tableInfoBefore(tableId, ts, rowSeq);
    } catch (UnknownTableException e) {
      TableInfo created = createdAfter(schema, tableId, rowSeq == Long.MAX_VALUE ? ts : ts - 1);
      if (created == null) {
        throw e;
      }
      return created;
    }
  }

  /**
   * By name: the live table of that name at {@code ts}, else the table that has the name at the resolved
   * ts if it was created after {@code ts}.
   *
   * @throws UnknownTableException when neither
   */
  public static TableInfo byName(SchemaStore schema, String schemaName, String tableName, long ts) {
    try {
      return schema.tableByName(schemaName, tableName, ts);
    } catch (UnknownTableException e) {
      long resolved = schema.resolvedTs();
      if (ts >= resolved) {
        throw e;
      }
      TableInfo now;
      try {
        now = schema.tableByName(schemaName, tableName, resolved);
      } catch (UnknownTableException gone) {
        throw e;
      }
      TableInfo created = createdAfter(schema, now.tableId(), ts);
      if (created == null) {
        throw e;
      }
      return created;
    }
  }

  /**
   * By {@code "schema.table"}, names as created upstream: a name with several dots (a dot inside a quoted schema or
   * table name, {@code public."a.b"} is {@code "public.a.b"}) is the one table that one of its dots parts it into.
   *
   * <pre>{@code
   * TableInfo t = StartTableInfo.byQualifiedName(schemaStore, "public.order.items", startTs);   // public."order.items"
   * }</pre>
   *
   * @throws IllegalArgumentException when no dot has a name on both sides, or two of its dots part it into tables
   *     that both exist (ask by table id then)
   * @throws UnknownTableException when no way of parting it names a table
   */
  public static TableInfo byQualifiedName(SchemaStore schema, String name, long ts) {
    TableInfo found = null;
    UnknownTableException unknown = null;
    boolean parted = false;
    for (int dot = name.indexOf('.'); dot >= 0; dot = name.indexOf('.', dot + 1)) {
      String schemaName = name.substring(0, dot);
      String tableName = name.substring(dot + 1);
      if (schemaName.isBlank() || tableName.isBlank()) {
        continue;
      }
      parted = true;
      try {
        TableInfo t = byName(schema, schemaName, tableName, ts);
        if (found != null) {
          throw new IllegalArgumentException("table_name \"" + name + "\" names two tables, \"" + found.schemaName()
              + "\".\"" + found.tableName() + "\" and \"" + schemaName + "\".\"" + tableName + "\": ask by table_id");
        }
        found = t;
      } catch (UnknownTableException e) {
        unknown = unknown == null ? e : unknown;
      }
    }
    if (!parted) {
      throw new IllegalArgumentException("table_name must be \"schema.table\", got \"" + name + "\"");
    }
    if (found == null) {
      throw unknown;
    }
    return found;
  }

  /** The table as its CREATE after {@code ts} made it, or null when its first DDL after ts is no CREATE. */
  private static TableInfo createdAfter(SchemaStore schema, long tableId, long ts) {
    List<DdlEvent> later = schema.ddlEvents(tableId, ts, schema.resolvedTs());
    return !later.isEmpty() && later.get(0).type() == DdlType.CREATE_TABLE ? later.get(0).tableInfoAfter() : null;
  }
}
