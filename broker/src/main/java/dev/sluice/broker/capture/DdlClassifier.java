package dev.sluice.broker.capture;

import dev.sluice.schema.ColumnInfo;
import dev.sluice.schema.DdlType;
import dev.sluice.schema.TableInfo;
import java.util.List;

/**
 * Names the kind of a schema change from the table before and after it (and the command tag when the
 * event trigger gave one). Pure.
 *
 * <pre>{@code
 * DdlType t = DdlClassifier.classify("ALTER TABLE", v1, v2);   // ADD_COLUMN when v2 appends columns
 * }</pre>
 */
final class DdlClassifier {

  private DdlClassifier() {}

  /**
   * @param tag    the command tag ({@code "ALTER TABLE"}), or {@code ""} for a version derived from a
   *               Relation message
   * @param before the table before the change, {@code null} when it did not exist
   * @param after  the table after the change
   */
  static DdlType classify(String tag, TableInfo before, TableInfo after) {
    if (before == null) {
      return DdlType.CREATE_TABLE;
    }
    if (!before.qualifiedName().equals(after.qualifiedName())) {
      return DdlType.RENAME_TABLE;
    }
    if (tag.equals("ALTER TYPE") || tag.equals("ALTER DOMAIN")) {
      return DdlType.ALTER_TYPE;   // a type the table uses changed; the table itself did not
    }
    List<ColumnInfo> b = before.columns();
    List<ColumnInfo> a = after.columns();
    if (a.size() > b.size() && isSubsequence(b, a)) {
      return DdlType.ADD_COLUMN;
    }
    if (a.size() < b.size() && isSubsequence(a, b)) {
      return DdlType.DROP_COLUMN;
    }
    if (a.size() == b.size()) {
      boolean namesEqual = true;
      boolean typesEqual = true;
      for (int i = 0; i < a.size(); i++) {
        namesEqual &= a.get(i).name().equals(b.get(i).name());
        typesEqual &= sameType(a.get(i), b.get(i));
      }
      if (namesEqual && !typesEqual) {
        return DdlType.ALTER_COLUMN_TYPE;
      }
      if (!namesEqual && typesEqual) {
        return DdlType.RENAME_COLUMN;
      }
      if (namesEqual && tag.startsWith("CREATE INDEX")) {
        return DdlType.CREATE_INDEX;
      }
    }
    return DdlType.ALTER_TABLE;
  }

  /**
   * Same name and same columns (name, source type, kinds): what a Relation message can tell. Nullability,
   * defaults and keys are not compared, as Relation messages do not carry them reliably.
   */
  static boolean sameShape(TableInfo x, TableInfo y) {
    if (!x.qualifiedName().equals(y.qualifiedName()) || x.columns().size() != y.columns().size()) {
      return false;
    }
    for (int i = 0; i < x.columns().size(); i++) {
      ColumnInfo a = x.columns().get(i);
      ColumnInfo b = y.columns().get(i);
      if (!a.name().equals(b.name()) || !sameType(a, b)) {
        return false;
      }
    }
    return true;
  }

  private static boolean sameType(ColumnInfo a, ColumnInfo b) {
    return a.sourceType().equals(b.sourceType()) && a.kind() == b.kind() && a.elementKind() == b.elementKind();
  }

  /** Whether the names of {@code small} appear in {@code big} in order. */
  private static boolean isSubsequence(List<ColumnInfo> small, List<ColumnInfo> big) {
    int j = 0;
    for (ColumnInfo c : big) {
      if (j < small.size() && small.get(j).name().equals(c.name())) {
        j++;
      }
    }
    return j == small.size();
  }
}
