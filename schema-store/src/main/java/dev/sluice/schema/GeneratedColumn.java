package dev.sluice.schema;

import java.util.Objects;

/**
 * A STORED generated column of a table version (PostgreSQL {@code GENERATED ALWAYS AS (...) STORED}): not among
 * {@link TableInfo#columns()}, since the log's rows leave it out; a target of the source's dialect computes it.
 *
 * <pre>{@code
 * GeneratedColumn weight = new GeneratedColumn("weight", "numeric(10,3)", "(qty * 0.125)", 3, true);
 * }</pre>
 *
 * @param name       column name as the source spells it
 * @param sourceType the source's type name ({@code "numeric(10,3)"})
 * @param expression the generation expression as source text, without {@code GENERATED ALWAYS AS}
 * @param position   its place among all of the table's columns, generated ones included, from 0
 * @param nullable   whether NULL is allowed
 */
public record GeneratedColumn(String name, String sourceType, String expression, int position, boolean nullable) {

  public GeneratedColumn {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(sourceType, "sourceType");
    Objects.requireNonNull(expression, "expression");
    if (name.isEmpty() || expression.isEmpty() || position < 0) {
      throw new IllegalArgumentException("generated column needs a name, an expression and a position >= 0, got "
          + name + " AS (" + expression + ") at " + position);
    }
  }

  public dev.sluice.api.v1.GeneratedColumn toProto() {
    return dev.sluice.api.v1.GeneratedColumn.newBuilder().setName(name).setSourceType(sourceType)
        .setExpression(expression).setPosition(position).setNullable(nullable).build();
  }

  public static GeneratedColumn fromProto(dev.sluice.api.v1.GeneratedColumn p) {
    return new GeneratedColumn(p.getName(), p.getSourceType(), p.getExpression(), p.getPosition(), p.getNullable());
  }
}
