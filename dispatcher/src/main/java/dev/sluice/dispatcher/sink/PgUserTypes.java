package dev.sluice.dispatcher.sink;

import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.UserType;
import dev.sluice.api.v1.UserTypeField;
import dev.sluice.api.v1.UserTypeKind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Brings the user-defined types a table's columns need ({@code ColumnInfo.user_types}: enums, composites,
 * domains) into a PostgreSQL target before the table's DDL or rows need them: creates the missing ones
 * (with their schema), renames one the upstream renamed, and brings an existing one up to the captured
 * definition (enum labels added in their place or renamed, composite attributes added, dropped, renamed or
 * retyped, domain NOT NULL, default and constraints). Every statement is decided from the target's own
 * catalog, so running it again (a replay, several tables sharing the type) changes nothing. The types'
 * schemas are mapped as the sink maps tables ({@link TargetTypes}). One instance per connection.
 *
 * <pre>{@code
 * List<String> ran = types.reconcile(targetTypes.map(after), targetTypes.map(before));
 * }</pre>
 */
final class PgUserTypes {

  private final Connection connection;
  private final Ahead ahead;

  /** Opens (or returns) an autocommit connection to the same target. */
  @FunctionalInterface
  interface Ahead {
    Connection connection() throws SQLException;
  }

  /**
   * @param connection the target transaction's connection
   * @param ahead      where an enum label is added to a type committed before this transaction:
   *                   PostgreSQL refuses a label added in the transaction that uses it ("unsafe use of new
   *                   value"), and a target transaction may hold the upstream transaction that added the
   *                   label and a later one using it. Adding a label early is harmless (rows only use it later).
   */
  PgUserTypes(Connection connection, Ahead ahead) {
    this.connection = connection;
    this.ahead = ahead;
  }

  /**
   * Runs what makes the target's types match those {@code after}'s columns need, in dependency order.
   *
   * @param after  the table whose types must exist, its type schemas already mapped to the target
   * @param before the version before (for renames), mapped the same way; may be the default instance
   * @return the statements run, for the log
   */
  List<String> reconcile(TableInfo after, TableInfo before) throws SQLException {
    Map<Long, UserType> previous = new HashMap<>();
    for (ColumnInfo c : before.getColumnsList()) {
      c.getUserTypesList().forEach(t -> previous.putIfAbsent(t.getTypeId(), t));
    }
    Map<Long, UserType> needed = new LinkedHashMap<>();
    for (ColumnInfo c : after.getColumnsList()) {
      c.getUserTypesList().forEach(t -> needed.putIfAbsent(t.getTypeId(), t));
    }
    List<String> ran = new ArrayList<>();
    for (UserType t : needed.values()) {
      reconcile(t, previous.get(t.getTypeId()), ran);
    }
    return ran;
  }

  private void reconcile(UserType t, UserType was, List<String> ran) throws SQLException {
    String name = qualified(t.getSchemaName(), t.getTypeName());
    Existing found = find(t.getSchemaName(), t.getTypeName());
    if (found == null && was != null
        && !(was.getSchemaName().equals(t.getSchemaName()) && was.getTypeName().equals(t.getTypeName()))
        && find(was.getSchemaName(), was.getTypeName()) != null) {
      String old = qualified(was.getSchemaName(), was.getTypeName());
      if (!was.getSchemaName().equals(t.getSchemaName())) {
        run(ran, "CREATE SCHEMA IF NOT EXISTS " + quote(t.getSchemaName()));
        run(ran, "ALTER TYPE " + old + " SET SCHEMA " + quote(t.getSchemaName()));
        old = qualified(t.getSchemaName(), was.getTypeName());
      }
      if (!was.getTypeName().equals(t.getTypeName())) {
        run(ran, "ALTER TYPE " + old + " RENAME TO " + quote(t.getTypeName()));
      }
      found = find(t.getSchemaName(), t.getTypeName());
    }
    if (found == null) {
      if (t.getKind() == UserTypeKind.USER_TYPE_KIND_ENUM && !schemaMadeInThisTransaction(t.getSchemaName())) {
        // committed ahead, like its later labels: a label added to an enum this transaction created could
        // not be used in it ("unsafe use of new value"), and one target transaction may hold both
        runAhead(ran, "CREATE SCHEMA IF NOT EXISTS " + quote(t.getSchemaName()));
        runAhead(ran, create(t, name));
        return;
      }
      run(ran, "CREATE SCHEMA IF NOT EXISTS " + quote(t.getSchemaName()));
      run(ran, create(t, name));
      return;
    }
    switch (t.getKind()) {
      case USER_TYPE_KIND_ENUM -> reconcileEnum(t, name, found.oid, ran);
      case USER_TYPE_KIND_COMPOSITE -> reconcileComposite(t, name, found.relid, ran);
      case USER_TYPE_KIND_DOMAIN -> reconcileDomain(t, name, found, ran);
      case USER_TYPE_KIND_UNSPECIFIED, UNRECOGNIZED -> { }
    }
  }

  private static String create(UserType t, String name) {
    return switch (t.getKind()) {
      case USER_TYPE_KIND_ENUM -> "CREATE TYPE " + name + " AS ENUM ("
          + t.getLabelsList().stream().map(PgUserTypes::literal).collect(Collectors.joining(", ")) + ")";
      case USER_TYPE_KIND_COMPOSITE -> "CREATE TYPE " + name + " AS (" + t.getFieldsList().stream()
          .map(f -> quote(f.getName()) + " " + f.getType()).collect(Collectors.joining(", ")) + ")";
      case USER_TYPE_KIND_DOMAIN -> "CREATE DOMAIN " + name + " AS " + t.getBaseType()
          + (t.getDefaultExpr().isEmpty() ? "" : " DEFAULT " + t.getDefaultExpr())
          + (t.getNotNull() ? " NOT NULL" : "")
          + t.getConstraintsList().stream().map(c -> " " + c).collect(Collectors.joining());
      case USER_TYPE_KIND_UNSPECIFIED, UNRECOGNIZED -> throw new IllegalArgumentException(
          "type " + name + " has no kind the sink can create");
    };
  }

  /** Adds missing labels where they sort; a label replaced in the same place is a rename. */
  private void reconcileEnum(UserType t, String name, long oid, List<String> ran) throws SQLException {
    List<String> have = strings("SELECT enumlabel FROM pg_catalog.pg_enum WHERE enumtypid = ? ORDER BY enumsortorder",
        oid);
    List<String> want = t.getLabelsList();
    List<String> gone = have.stream().filter(l -> !want.contains(l)).toList();
    List<String> added = want.stream().filter(l -> !have.contains(l)).toList();
    if (!gone.isEmpty() && gone.size() == added.size() && have.size() == want.size()) {
      for (int i = 0; i < gone.size(); i++) {
        run(ran, "ALTER TYPE " + name + " RENAME VALUE " + literal(gone.get(i)) + " TO " + literal(added.get(i)));
      }
      return;
    }
    List<String> now = new ArrayList<>(have);
    for (int i = 0; i < want.size(); i++) {
      String label = want.get(i);
      if (now.contains(label)) {
        continue;
      }
      String after = i > 0 && now.contains(want.get(i - 1)) ? want.get(i - 1) : null;
      String before = null;
      for (int j = i + 1; after == null && before == null && j < want.size(); j++) {
        before = now.contains(want.get(j)) ? want.get(j) : null;
      }
      String sql = "ALTER TYPE " + name + " ADD VALUE IF NOT EXISTS " + literal(label)
          + (after != null ? " AFTER " + literal(after) : before != null ? " BEFORE " + literal(before) : "");
      if (committed(oid)) {
        runAhead(ran, sql);
      } else {
        run(ran, sql);   // the type is created in this transaction: its new labels are usable at once
      }
      now.add(after != null ? now.indexOf(after) + 1 : before != null ? now.indexOf(before) : now.size(), label);
    }
  }

  private void reconcileComposite(UserType t, String name, long relid, List<String> ran) throws SQLException {
    Map<String, String> have = new LinkedHashMap<>();
    try (PreparedStatement ps = connection.prepareStatement("SELECT attname, pg_catalog.format_type(atttypid, atttypmod)"
        + " FROM pg_catalog.pg_attribute WHERE attrelid = ? AND attnum > 0 AND NOT attisdropped ORDER BY attnum")) {
      ps.setLong(1, relid);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          have.put(rs.getString(1), rs.getString(2));
        }
      }
    }
    List<String> haveNames = new ArrayList<>(have.keySet());
    List<String> wantNames = t.getFieldsList().stream().map(UserTypeField::getName).toList();
    List<String> gone = haveNames.stream().filter(n -> !wantNames.contains(n)).toList();
    List<String> added = wantNames.stream().filter(n -> !haveNames.contains(n)).toList();
    if (gone.size() == 1 && added.size() == 1 && haveNames.indexOf(gone.get(0)) == wantNames.indexOf(added.get(0))) {
      run(ran, "ALTER TYPE " + name + " RENAME ATTRIBUTE " + quote(gone.get(0)) + " TO " + quote(added.get(0)));
      have.put(added.get(0), have.remove(gone.get(0)));
    } else {
      for (String g : gone) {
        run(ran, "ALTER TYPE " + name + " DROP ATTRIBUTE IF EXISTS " + quote(g));
        have.remove(g);
      }
    }
    for (UserTypeField f : t.getFieldsList()) {
      String current = have.get(f.getName());
      if (current == null) {
        run(ran, "ALTER TYPE " + name + " ADD ATTRIBUTE " + quote(f.getName()) + " " + f.getType());
      } else if (!sameTypeText(current, f.getType())) {
        run(ran, "ALTER TYPE " + name + " ALTER ATTRIBUTE " + quote(f.getName()) + " TYPE " + f.getType());
      }
    }
  }

  private void reconcileDomain(UserType t, String name, Existing found, List<String> ran) throws SQLException {
    if (found.notNull != t.getNotNull()) {
      run(ran, "ALTER DOMAIN " + name + (t.getNotNull() ? " SET NOT NULL" : " DROP NOT NULL"));
    }
    if (!Objects.equals(emptyToNull(found.defaultExpr), emptyToNull(t.getDefaultExpr()))) {
      run(ran, "ALTER DOMAIN " + name + (t.getDefaultExpr().isEmpty() ? " DROP DEFAULT" : " SET DEFAULT "
          + t.getDefaultExpr()));
    }
    Map<String, String> have = new LinkedHashMap<>();
    try (PreparedStatement ps = connection.prepareStatement("SELECT conname, 'CONSTRAINT ' || pg_catalog.quote_ident("
        + "conname) || ' ' || pg_catalog.pg_get_constraintdef(oid) FROM pg_catalog.pg_constraint WHERE contypid = ?"
        + " AND contype = 'c'")) {
      ps.setLong(1, found.oid);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          have.put(rs.getString(1), rs.getString(2));
        }
      }
    }
    Set<String> want = new LinkedHashSet<>(t.getConstraintsList());
    for (Map.Entry<String, String> h : have.entrySet()) {
      if (!want.contains(h.getValue())) {
        run(ran, "ALTER DOMAIN " + name + " DROP CONSTRAINT IF EXISTS " + quote(h.getKey()));
      }
    }
    for (String c : want) {
      if (!have.containsValue(c)) {
        run(ran, "ALTER DOMAIN " + name + " ADD " + c);
      }
    }
  }

  /** A type of the target: its oid, the relation of a composite, a domain's NOT NULL and default. */
  private record Existing(long oid, long relid, boolean notNull, String defaultExpr) {}

  private Existing find(String schema, String type) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("SELECT t.oid, t.typrelid, t.typnotnull, t.typdefault"
        + " FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace"
        + " WHERE n.nspname = ? AND t.typname = ?")) {
      ps.setString(1, schema);
      ps.setString(2, type);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new Existing(rs.getLong(1), rs.getLong(2), rs.getBoolean(3), rs.getString(4)) : null;
      }
    }
  }

  private List<String> strings(String sql, long oid) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      ps.setLong(1, oid);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  /** Whether the type {@code oid} is visible outside the target transaction (committed before it). */
  /**
   * Whether the target transaction created {@code schema} (it sees the schema, the autocommit connection does
   * not): then what goes into it must be made in the transaction too, or the other connection would wait on it.
   */
  private boolean schemaMadeInThisTransaction(String schema) throws SQLException {
    String sql = "SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = ?";
    return exists(connection, sql, schema) && !exists(ahead.connection(), sql, schema);
  }

  private static boolean exists(Connection c, String sql, String parameter) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, parameter);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  private boolean committed(long oid) throws SQLException {
    try (PreparedStatement ps = ahead.connection().prepareStatement("SELECT 1 FROM pg_catalog.pg_type WHERE oid = ?")) {
      ps.setLong(1, oid);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  private void runAhead(List<String> ran, String sql) throws SQLException {
    try (var st = ahead.connection().createStatement()) {
      st.execute(sql);
    }
    ran.add(sql + " (committed ahead of the rows)");
  }

  private void run(List<String> ran, String sql) throws SQLException {
    try (var st = connection.createStatement()) {
      st.execute(sql);
    }
    ran.add(sql);
  }

  /** format_type output compared loosely: the target may print a schema the source left implicit. */
  private static boolean sameTypeText(String target, String source) {
    return target.equals(source) || target.endsWith("." + source) || source.endsWith("." + target);
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  private static String qualified(String schema, String name) {
    return quote(schema) + "." + quote(name);
  }

  private static String quote(String identifier) {
    return Dialect.POSTGRESQL.quote(identifier);
  }

  private static String literal(String text) {
    return "'" + text.replace("'", "''") + "'";
  }
}
