package dev.sluice.schema;

import dev.sluice.api.v1.UserType;
import dev.sluice.api.v1.ValueKind;
import java.util.List;
import java.util.Objects;

/**
 * One column of a table version.
 *
 * <pre>{@code
 * ColumnInfo id = ColumnInfo.of("id", "bigint", ValueKind.VALUE_KIND_INT64, false);
 * }</pre>
 *
 * @param name        column name as the source spells it
 * @param sourceType  the source's type name ({@code "character varying(20)"})
 * @param kind        which {@code Value} kind its values use
 * @param nullable    whether NULL is allowed
 * @param defaultExpr default expression as source text, or {@code null} when none
 * @param elementKind for arrays, the kind of the elements; {@code VALUE_KIND_UNSPECIFIED} otherwise
 * @param userTypes   the user-defined types the column's type needs, dependencies first and the column's
 *                    own (or element) type last; empty for built-in types
 */
public record ColumnInfo(String name, String sourceType, ValueKind kind, boolean nullable,
    String defaultExpr, ValueKind elementKind, List<UserType> userTypes) {

  public ColumnInfo {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(sourceType, "sourceType");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(elementKind, "elementKind");
    userTypes = List.copyOf(userTypes);
    if (name.isEmpty()) {
      throw new IllegalArgumentException("column name must not be empty");
    }
  }

  /** A column of a built-in type. */
  public ColumnInfo(String name, String sourceType, ValueKind kind, boolean nullable, String defaultExpr,
      ValueKind elementKind) {
    this(name, sourceType, kind, nullable, defaultExpr, elementKind, List.of());
  }

  /** A column without default and without element kind. */
  public static ColumnInfo of(String name, String sourceType, ValueKind kind, boolean nullable) {
    return new ColumnInfo(name, sourceType, kind, nullable, null, ValueKind.VALUE_KIND_UNSPECIFIED);
  }

  public ColumnInfo withName(String newName) {
    return new ColumnInfo(newName, sourceType, kind, nullable, defaultExpr, elementKind, userTypes);
  }

  public dev.sluice.api.v1.ColumnInfo toProto() {
    var b = dev.sluice.api.v1.ColumnInfo.newBuilder()
        .setName(name).setSourceType(sourceType).setKind(kind).setNullable(nullable).setElementKind(elementKind)
        .addAllUserTypes(userTypes);
    if (defaultExpr != null) {
      b.setHasDefault(true).setDefaultExpr(defaultExpr);
    }
    return b.build();
  }

  public static ColumnInfo fromProto(dev.sluice.api.v1.ColumnInfo p) {
    return new ColumnInfo(p.getName(), p.getSourceType(), p.getKind(), p.getNullable(),
        p.getHasDefault() ? p.getDefaultExpr() : null, p.getElementKind(), p.getUserTypesList());
  }
}
