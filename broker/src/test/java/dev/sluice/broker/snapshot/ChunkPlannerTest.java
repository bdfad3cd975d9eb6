package dev.sluice.broker.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.v1.Value;
import dev.sluice.api.v1.ValueKind;
import dev.sluice.schema.ColumnInfo;
import dev.sluice.schema.TableInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChunkPlannerTest {

  private static final TableInfo TABLE = new TableInfo(16384, "public", "odd \"names\"",
      List.of(ColumnInfo.of("k", "text", ValueKind.VALUE_KIND_STRING, false),
          ColumnInfo.of("n", "integer", ValueKind.VALUE_KIND_INT64, false),
          ColumnInfo.of("v", "text", ValueKind.VALUE_KIND_STRING, true)), List.of("k", "n"), 1000);

  private static Value text(String s) {
    return Value.newBuilder().setStringValue(s).build();
  }

  @Test
  void aCopyOfTheFirstChunkReadsFromTheFirstKey() {
    assertThat(ChunkPlanner.keyedCopy(TABLE, List.of(), 100)).isEqualTo("COPY (SELECT t0.\"k\", t0.\"n\", t0.\"v\""
        + " FROM ONLY \"public\".\"odd \"\"names\"\"\" AS t0 ORDER BY t0.\"k\", t0.\"n\" LIMIT 100) TO STDOUT");
  }

  @Test
  void aCopyAfterAKeyHasItsValuesAsEscapedLiteralsCastToTheColumnTypes() {
    String sql = ChunkPlanner.keyedCopy(TABLE, List.of(text("it's a \\ back'slash"),
        Value.newBuilder().setInt64Value(-7).build()), 8192);
    assertThat(sql).isEqualTo("COPY (SELECT t0.\"k\", t0.\"n\", t0.\"v\" FROM ONLY \"public\".\"odd \"\"names\"\"\" AS t0"
        + " WHERE (t0.\"k\", t0.\"n\") > (CAST(E'it''s a \\\\ back''slash' AS text), CAST(E'-7' AS integer))"
        + " ORDER BY t0.\"k\", t0.\"n\" LIMIT 8192) TO STDOUT");
    assertThat(ChunkPlanner.keyed(TABLE, List.of(text("x"), Value.newBuilder().setInt64Value(1).build()), 5)
        .parameters()).as("the cursor's query keeps them as parameters").containsExactly("x", "1");
  }
}
