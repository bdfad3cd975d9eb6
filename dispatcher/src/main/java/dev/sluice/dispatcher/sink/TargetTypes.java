package dev.sluice.dispatcher.sink;

import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.UserType;
import dev.sluice.api.v1.UserTypeField;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a table's user-defined types go in the target: a type in the table's own source schema goes to
 * the table's target schema (as the table does, and as a captured statement's {@code schema.} qualifiers
 * are mapped), any other type keeps its schema. {@link #map} rewrites a table info's user types (their
 * schema, and the schema qualifiers in composite field and domain base types) accordingly. Pure.
 *
 * <pre>{@code
 * TableInfo forTarget = TargetTypes.map(info, "replica");   // types.mood stays, app.status -> replica.status
 * }</pre>
 */
final class TargetTypes {

  private TargetTypes() {}

  /** {@code info} with the schemas of its columns' user types mapped for a table going to {@code targetSchema}. */
  static TableInfo map(TableInfo info, String targetSchema) {
    String source = info.getSchemaName();
    if (source.isEmpty() || source.equals(targetSchema)
        || info.getColumnsList().stream().allMatch(c -> c.getUserTypesCount() == 0)) {
      return info;
    }
    Pattern qualifier = Pattern.compile("^(\"" + Pattern.quote(source.replace("\"", "\"\"")) + "\"|"
        + Pattern.quote(source) + ")\\.");
    String replacement = Matcher.quoteReplacement(Dialect.POSTGRESQL.quote(targetSchema) + ".");
    TableInfo.Builder b = info.toBuilder();
    for (int i = 0; i < b.getColumnsCount(); i++) {
      ColumnInfo.Builder c = b.getColumns(i).toBuilder();
      for (int j = 0; j < c.getUserTypesCount(); j++) {
        UserType.Builder t = c.getUserTypes(j).toBuilder();
        if (t.getSchemaName().equals(source)) {
          t.setSchemaName(targetSchema);
        }
        t.setBaseType(qualifier.matcher(t.getBaseType()).replaceFirst(replacement));
        for (int k = 0; k < t.getFieldsCount(); k++) {
          UserTypeField f = t.getFields(k);
          t.setFields(k, f.toBuilder().setType(qualifier.matcher(f.getType()).replaceFirst(replacement)));
        }
        c.setUserTypes(j, t);
      }
      b.setColumns(i, c);
    }
    return b.build();
  }
}
