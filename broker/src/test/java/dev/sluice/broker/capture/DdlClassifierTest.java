package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.v1.ValueKind;
import dev.sluice.schema.ColumnInfo;
import dev.sluice.schema.DdlType;
import dev.sluice.schema.TableInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The kind of a schema change, from the table before and after it. */
class DdlClassifierTest {

  private static final TableInfo V1 = table("t", col("id", "integer"), col("a", "text"));

  static Stream<Arguments> changes() {
    return Stream.of(
        Arguments.of("new table is a create", null, V1, "CREATE TABLE", DdlType.CREATE_TABLE),
        Arguments.of("appended column is an add", V1, table("t", col("id", "integer"), col("a", "text"), col("b", "bigint")),
            "ALTER TABLE", DdlType.ADD_COLUMN),
        Arguments.of("missing column is a drop", V1, table("t", col("id", "integer")), "ALTER TABLE", DdlType.DROP_COLUMN),
        Arguments.of("same types, other name is a rename", V1, table("t", col("id", "integer"), col("b", "text")),
            "ALTER TABLE", DdlType.RENAME_COLUMN),
        Arguments.of("same names, other type is a type change", V1, table("t", col("id", "bigint"), col("a", "text")),
            "ALTER TABLE", DdlType.ALTER_COLUMN_TYPE),
        Arguments.of("other table name is a rename", V1, table("u", col("id", "integer"), col("a", "text")),
            "ALTER TABLE", DdlType.RENAME_TABLE),
        Arguments.of("no visible change on create index", V1, V1, "CREATE INDEX", DdlType.CREATE_INDEX),
        Arguments.of("no visible change on alter (defaults, not null)", V1, V1, "ALTER TABLE", DdlType.ALTER_TABLE),
        Arguments.of("rename and type change together is a generic alter", V1,
            table("t", col("id", "bigint"), col("b", "text")), "ALTER TABLE", DdlType.ALTER_TABLE),
        Arguments.of("derived from a Relation (no tag): appended column", V1,
            table("t", col("id", "integer"), col("a", "text"), col("c", "date")), "", DdlType.ADD_COLUMN));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("changes")
  void classifiesTheChange(String name, TableInfo before, TableInfo after, String tag, DdlType expected) {
    assertThat(DdlClassifier.classify(tag, before, after)).isEqualTo(expected);
  }

  @Test
  void shapeIgnoresNullabilityDefaultsAndKeysButNotTypes() {
    TableInfo relaxed = new TableInfo(1, "public", "t", List.of(
        new ColumnInfo("id", "integer", ValueKind.VALUE_KIND_INT64, true, "1", ValueKind.VALUE_KIND_UNSPECIFIED),
        ColumnInfo.of("a", "text", ValueKind.VALUE_KIND_STRING, true)), List.of(), 5);
    assertThat(DdlClassifier.sameShape(V1, relaxed)).isTrue();
    assertThat(DdlClassifier.sameShape(V1, table("t", col("id", "smallint"), col("a", "text")))).isFalse();
  }

  private static TableInfo table(String name, ColumnInfo... columns) {
    return new TableInfo(1, "public", name, new ArrayList<>(List.of(columns)), List.of("id"), 1);
  }

  private static ColumnInfo col(String name, String type) {
    ValueKind kind = type.equals("text") ? ValueKind.VALUE_KIND_STRING
        : type.equals("date") ? ValueKind.VALUE_KIND_DATE : ValueKind.VALUE_KIND_INT64;
    return ColumnInfo.of(name, type, kind, false);
  }
}
