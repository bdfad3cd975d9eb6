package dev.sluice.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.sluice.api.v1.ArrayValue;
import dev.sluice.api.v1.ColumnCodec;
import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.NullValue;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.TextCodec;
import dev.sluice.api.v1.Timestamp;
import dev.sluice.api.v1.Value;
import dev.sluice.api.v1.ValueKind;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A RowImage backed by a COPY text line (feature copy-text) reads, compares and prints exactly as the image of the
 * same values that came as values: every getter, NULL, COPY's escapes, arrays, bytea, timestamptz, a real widened
 * exactly; its size and line come without decoding, and a value that does not decode throws naming the table, the
 * column and the row seq only when read.
 */
class RowImageCopyLineTest {

  private static final UUID ID = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");

  private static final TableInfo TABLE = TableInfo.newBuilder().setTableId(7).setSchemaName("public")
      .setTableName("people").addPrimaryKey("id")
      .addColumns(col("id", "bigint", ValueKind.VALUE_KIND_INT64))
      .addColumns(col("name", "text", ValueKind.VALUE_KIND_STRING))
      .addColumns(col("note", "text", ValueKind.VALUE_KIND_STRING))
      .addColumns(col("tags", "text[]", ValueKind.VALUE_KIND_ARRAY))
      .addColumns(col("blob", "bytea", ValueKind.VALUE_KIND_BYTES))
      .addColumns(col("at", "timestamp with time zone", ValueKind.VALUE_KIND_TIMESTAMP_TZ))
      .addColumns(col("ratio", "real", ValueKind.VALUE_KIND_DOUBLE))
      .addColumns(col("amount", "numeric(10,2)", ValueKind.VALUE_KIND_DECIMAL))
      .addColumns(col("born", "date", ValueKind.VALUE_KIND_DATE))
      .addColumns(col("ok", "boolean", ValueKind.VALUE_KIND_BOOL))
      .addColumns(col("uid", "uuid", ValueKind.VALUE_KIND_UUID))
      .addColumns(col("doc", "jsonb", ValueKind.VALUE_KIND_JSON)).build();

  private static final List<ColumnCodec> CODECS = List.of(codec(TextCodec.TEXT_CODEC_INT),
      codec(TextCodec.TEXT_CODEC_TEXT), codec(TextCodec.TEXT_CODEC_TEXT),
      ColumnCodec.newBuilder().setCodec(TextCodec.TEXT_CODEC_ARRAY).setElementCodec(TextCodec.TEXT_CODEC_TEXT)
          .setElementDelimiter(",").build(),
      codec(TextCodec.TEXT_CODEC_BYTEA), codec(TextCodec.TEXT_CODEC_TIMESTAMPTZ), codec(TextCodec.TEXT_CODEC_FLOAT4),
      codec(TextCodec.TEXT_CODEC_NUMERIC), codec(TextCodec.TEXT_CODEC_DATE), codec(TextCodec.TEXT_CODEC_BOOL),
      codec(TextCodec.TEXT_CODEC_UUID), codec(TextCodec.TEXT_CODEC_JSON));

  /** Two lines as PostgreSQL's COPY TO writes them: escapes in text, bytea's backslash doubled, NULL as \N. */
  private static final String LINES =
      "1\tAda\t\\N\t{a,\"b c\",NULL}\t\\\\x0001ff\t2024-01-31 12:00:00.5+01\t1.1\t-12.30\t2024-02-29\tt\t" + ID
      + "\t{\"a\": 1}\n"
      + "2\ttab\\there\\nline\\\\back\\rcr\tGrüße 🙂\t{}\t\\\\x\t0044-03-15 12:00:00+00 BC\t-Infinity\tNaN\tinfinity\t"
      + "f\t\\N\t[]\n";

  private static ColumnInfo col(String name, String type, ValueKind kind) {
    return ColumnInfo.newBuilder().setName(name).setSourceType(type).setKind(kind).setNullable(true).build();
  }

  private static ColumnCodec codec(TextCodec c) {
    return ColumnCodec.newBuilder().setCodec(c).build();
  }

  /** Line {@code index} (from 0) of {@code text} as a line-backed image. */
  private static RowImage line(String text, int index) {
    byte[] buf = text.getBytes(StandardCharsets.UTF_8);
    int offset = 0;
    for (int i = 0; i < index; i++) {
      while (buf[offset] != '\n') {
        offset++;
      }
      offset++;
    }
    int end = offset;
    while (buf[end] != '\n') {
      end++;
    }
    return RowImage.ofCopyLine(TABLE, CODECS, new CopyLine(buf, offset, end), 10 + index);
  }

  private static Value s(String v) {
    return Value.newBuilder().setStringValue(v).build();
  }

  private static Value nul() {
    return Value.newBuilder().setNullValue(NullValue.NULL_VALUE).build();
  }

  @Test
  void gettersReadTheLineAsTheyReadValues() {
    RowImage row = line(LINES, 0);
    assertThat(row.isPresent()).isTrue();
    assertThat(row.getLong("id")).isEqualTo(1);
    assertThat(row.getString("name")).isEqualTo("Ada");
    assertThat(row.isNull("note")).isTrue();
    assertThat(row.getString("note")).isNull();
    assertThat(row.getArray("tags")).containsExactly(s("a"), s("b c"), nul());
    assertThat(row.getBytes("blob")).containsExactly(0x00, 0x01, 0xff);
    assertThat(row.getInstant("at")).isEqualTo(Instant.parse("2024-01-31T11:00:00.5Z"));
    assertThat(row.getDouble("ratio")).as("a real widened exactly, as capture does").isEqualTo((double) 1.1f);
    assertThat(row.getDecimal("amount")).isEqualTo(new BigDecimal("-12.30"));
    assertThat(row.getDate("born")).isEqualTo(LocalDate.of(2024, 2, 29));
    assertThat(row.getBoolean("ok")).isTrue();
    assertThat(row.getUuid("uid")).isEqualTo(ID);
    assertThat(row.getJson("doc")).isEqualTo("{\"a\": 1}");
  }

  @Test
  void escapesUnicodeEmptyValuesAndSpecialsReadBack() {
    RowImage row = line(LINES, 1);
    assertThat(row.getString("name")).isEqualTo("tab\there\nline\\back\rcr");
    assertThat(row.getString("note")).isEqualTo("Grüße 🙂");
    assertThat(row.getArray("tags")).isEmpty();
    assertThat(row.getBytes("blob")).isEmpty();
    assertThat(row.getInstant("at")).isEqualTo(Instant.parse("-0043-03-15T12:00:00Z"));
    assertThat(row.getDouble("ratio")).isEqualTo(Double.NEGATIVE_INFINITY);
    assertThat(row.value("amount").getDecimalValue()).isEqualTo("NaN");
    assertThat(row.isInfinite("born")).isTrue();
    assertThat(row.getBoolean("ok")).isFalse();
    assertThat(row.getUuid("uid")).isNull();
    assertThat(row.getJson("doc")).isEqualTo("[]");
  }

  @Test
  void aLineBackedImageEqualsHashesAndPrintsAsTheTypedImageOfItsValues() {
    RowImage typed = RowImage.of(TABLE, List.of(Value.newBuilder().setInt64Value(1).build(), s("Ada"), nul(),
        Value.newBuilder().setArrayValue(ArrayValue.newBuilder().addElements(s("a")).addElements(s("b c"))
            .addElements(nul())).build(),
        Value.newBuilder().setBytesValue(ByteString.copyFrom(new byte[] {0, 1, (byte) 0xff})).build(),
        Value.newBuilder().setTimestampValue(Timestamp.newBuilder().setMicros(1_706_698_800_500_000L)
            .setWithZone(true)).build(),
        Value.newBuilder().setDoubleValue(1.1f).build(), Value.newBuilder().setDecimalValue("-12.30").build(),
        Value.newBuilder().setDateValue((int) LocalDate.of(2024, 2, 29).toEpochDay()).build(),
        Value.newBuilder().setBoolValue(true).build(),
        Value.newBuilder().setUuidValue(ByteString.copyFrom(ByteBuffer.allocate(16)
            .putLong(ID.getMostSignificantBits()).putLong(ID.getLeastSignificantBits()).flip())).build(),
        Value.newBuilder().setJsonValue("{\"a\": 1}").build()));
    RowImage lined = line(LINES, 0);

    assertThat(lined).isEqualTo(typed);
    assertThat(typed).isEqualTo(lined);
    assertThat(lined.hashCode()).isEqualTo(typed.hashCode());
    assertThat(lined.toString()).isEqualTo(typed.toString());
    assertThat(lined.asMap()).isEqualTo(typed.asMap());
    assertThat(lined).isNotEqualTo(line(LINES, 1));
    assertThat(typed.copyLine()).isNull();
  }

  @Test
  void sizeAndLineNeedNoDecodingAndTheValuesAreDecodedOnce() {
    RowImage row = line(LINES, 1);
    assertThat(row.size()).isEqualTo(TABLE.getColumnsCount());
    assertThat(row.copyLine().toString()).startsWith("2\ttab\\there");
    assertThat(row.copyLine().lengthWithNewline()).isEqualTo(row.copyLine().end() - row.copyLine().offset() + 1);
    assertThat(row.values()).isSameAs(row.values()).hasSize(TABLE.getColumnsCount());
    assertThatThrownBy(() -> row.values().set(0, nul())).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void aValueItsCodecRefusesReadsAsTextAndALineOfOtherWidthThrowsNamingTableAndRowSeq() {
    RowImage odd = line("3\tx\t\\N\t{}\t\\\\x00\tyesterday\t1\t1\t2024-01-01\tt\t\\N\t1\n", 0);
    assertThat(odd.size()).isEqualTo(TABLE.getColumnsCount());   // nothing decoded yet
    assertThat(odd.copyLine()).isNotNull();
    assertThat(odd.getLong("id")).isEqualTo(3);
    assertThat(odd.value("at").getStringValue()).as("kept as its text, as capture keeps a value it cannot parse")
        .isEqualTo("yesterday");

    RowImage wide = line("3\tx\t\\N\t{}\t\\\\x00\t\\N\t1\t1\t2024-01-01\tt\t\\N\t1\textra\n", 0);
    assertThatThrownBy(wide::values).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("row seq 10").hasMessageContaining("more fields");
  }

  @Test
  void aLineNeedsOneCodecPerColumnAndItsNewline() {
    byte[] buf = "1\tx\n".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> RowImage.ofCopyLine(TABLE, CODECS.subList(0, 2), new CopyLine(buf, 0, 3), 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 codecs for 12 columns");
    assertThatThrownBy(() -> new CopyLine(buf, 0, 2)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CopyLine(buf, 0, 4)).isInstanceOf(IllegalArgumentException.class);
  }
}
