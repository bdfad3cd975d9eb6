package dev.sluice.api.pgtext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.v1.ColumnCodec;
import dev.sluice.api.v1.TextCodec;
import dev.sluice.api.v1.Value;
import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class CopyTextTest {

  private static final ColumnCodec INT = ColumnCodec.newBuilder().setCodec(TextCodec.TEXT_CODEC_INT).build();
  private static final ColumnCodec TEXT = ColumnCodec.newBuilder().setCodec(TextCodec.TEXT_CODEC_TEXT).build();
  private static final ColumnCodec BYTEA = ColumnCodec.newBuilder().setCodec(TextCodec.TEXT_CODEC_BYTEA).build();
  private static final ColumnCodec BOX_ARRAY = ColumnCodec.newBuilder().setCodec(TextCodec.TEXT_CODEC_ARRAY)
      .setElementCodec(TextCodec.TEXT_CODEC_FALLBACK).setElementDelimiter(";").build();
  private static final ColumnCodec REAL = ColumnCodec.newBuilder().setCodec(TextCodec.TEXT_CODEC_FLOAT4).build();

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void fieldsAreSplitAtTabsAndReadByTheirColumnsCodec() {
    byte[] line = utf8("42\tAda Lovelace\t\\N\t1.3333334");
    List<Value> v = CopyText.values(line, 0, line.length, List.of(INT, TEXT, TEXT, REAL));
    assertThat(v.get(0).getInt64Value()).isEqualTo(42);
    assertThat(v.get(1).getStringValue()).isEqualTo("Ada Lovelace");
    assertThat(v.get(2).hasNullValue()).isTrue();
    assertThat(v.get(3).getDoubleValue()).isEqualTo((double) 1.3333334f);   // a real widened, as capture does
  }

  @Test
  void escapesAreUndoneAndAnEmptyStringIsNotNull() {
    byte[] line = utf8("a\\tb\\nc\\\\d\\re\\bf\\fg\\vh\t\t\\101\\x42\\q\tx\\\\N");
    List<Value> v = CopyText.values(line, 0, line.length, List.of(TEXT, TEXT, TEXT, TEXT));
    assertThat(v.get(0).getStringValue()).isEqualTo("a\tb\nc\\d\re\bf\fg\u000Bh");
    assertThat(v.get(1).getStringValue()).isEmpty();
    assertThat(v.get(2).getStringValue()).isEqualTo("ABq");
    assertThat(v.get(3).getStringValue()).isEqualTo("x\\N");
  }

  @Test
  void multiByteTextAndEscapedByteaRoundTrip() {
    byte[] line = utf8("Grüße, 世界 🙂\t\\\\x00ff");
    List<Value> v = CopyText.values(line, 0, line.length, List.of(TEXT, BYTEA));
    assertThat(v.get(0).getStringValue()).isEqualTo("Grüße, 世界 🙂");
    assertThat(v.get(1).getBytesValue().toByteArray()).containsExactly(0x00, 0xff);
  }

  @Test
  void anArrayOfBoxesSplitsAtItsDelimiter() {
    byte[] line = utf8("{(1,1),(0,0);(2,2),(1,1)}");
    Value v = CopyText.values(line, 0, line.length, List.of(BOX_ARRAY)).get(0);
    assertThat(v.getArrayValue().getElementsList()).extracting(Value::getStringValue)
        .containsExactly("(1,1),(0,0)", "(2,2),(1,1)");
  }

  @Test
  void aLineInsideABufferIsReadBetweenItsBounds() {
    byte[] buf = utf8("1\tx\n2\ty\n");
    int end = CopyText.lineEnd(buf, 4, buf.length);
    assertThat(CopyText.lineCount(buf, 0, buf.length)).isEqualTo(2);
    assertThat(CopyText.values(buf, 4, end, List.of(INT, TEXT))).extracting(Value::toString)
        .containsExactly(Value.newBuilder().setInt64Value(2).build().toString(),
            Value.newBuilder().setStringValue("y").build().toString());
    assertThat(CopyText.field(buf, 4, end, 1)).isEqualTo("y");
    assertThat(CopyText.value(buf, 0, 3, 0, INT).getInt64Value()).isEqualTo(1);
  }

  @Test
  void aLineWithAnotherNumberOfFieldsIsRefusedByCount() {
    byte[] shortLine = utf8("1");
    byte[] longLine = utf8("1\tx\ty");
    assertThatThrownBy(() -> CopyText.values(shortLine, 0, shortLine.length, List.of(INT, TEXT)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 fields");
    assertThatThrownBy(() -> CopyText.values(longLine, 0, longLine.length, List.of(INT, TEXT)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("more fields");
  }

  @Test
  void aValueItsCodecRefusesIsKeptAsTextAsCaptureKeepsIt() {
    byte[] line = utf8("x1	2024-13-45");
    ColumnCodec date = ColumnCodec.newBuilder().setCodec(TextCodec.TEXT_CODEC_DATE).build();
    assertThat(CopyText.values(line, 0, line.length, List.of(INT, date))).extracting(Value::getStringValue)
        .containsExactly("x1", "2024-13-45");
  }

  @Test
  void copyRowsReadAsTheRowChangesAStreamWithoutTheFeatureCarries() {
    dev.sluice.api.v1.CopyRows rows = dev.sluice.api.v1.CopyRows.newBuilder()
        .setLines(com.google.protobuf.ByteString.copyFromUtf8("7\tx\n8\t\\N\n")).setRowCount(2).setFirstRowSeq(3)
        .addKeyHashes(11).addKeyHashes(-5).addColumns(INT).addColumns(TEXT).build();
    List<dev.sluice.api.v1.RowChange> changes = CopyText.rowChanges(rows);
    assertThat(changes).hasSize(2);
    assertThat(changes.get(0)).isEqualTo(dev.sluice.api.v1.RowChange.newBuilder()
        .setOp(dev.sluice.api.v1.RowOp.ROW_OP_READ).setRowSeq(3).setKeyHash(11)
        .addAfter(Value.newBuilder().setInt64Value(7)).addAfter(Value.newBuilder().setStringValue("x")).build());
    assertThat(changes.get(1).getRowSeq()).isEqualTo(4);
    assertThat(changes.get(1).getKeyHash()).isEqualTo(-5);
    assertThat(changes.get(1).getAfter(1).hasNullValue()).isTrue();
    assertThatThrownBy(() -> CopyText.rowChanges(rows.toBuilder().setRowCount(3).build()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("row_count 3");
  }

  @Property
  void linesAreFoundAsAByteByByteScanFindsThem(@ForAll byte[] bytes) {
    int expected = 0;
    for (byte b : bytes) {
      expected += b == '\n' ? 1 : 0;
    }
    assertThat(CopyText.lineCount(bytes, 0, bytes.length)).isEqualTo(expected);
    assertThat(CopyText.lineCount(java.nio.ByteBuffer.wrap(bytes))).isEqualTo(expected);
    int off = 0;
    int found = 0;
    while (off < bytes.length) {
      int end = CopyText.lineEnd(bytes, off, bytes.length);
      int naive = off;
      while (naive < bytes.length && bytes[naive] != '\n') {
        naive++;
      }
      assertThat(end).isEqualTo(naive);
      found += end < bytes.length ? 1 : 0;
      off = end + 1;
    }
    assertThat(found).isEqualTo(expected);
  }

  @Test
  void aPlainIntegerFieldReadsWithoutAValueAndAnythingElseGivesTheFallback() {
    byte[] line = utf8("x\t-42\t123456789012345678\t1234567890123456789\t\\N\t+1\t1.5\t");
    int end = line.length;
    assertThat(CopyText.plainLong(line, 0, end, 1, 7)).isEqualTo(-42);
    assertThat(CopyText.plainLong(line, 0, end, 2, 7)).isEqualTo(123456789012345678L);
    for (int field : new int[] {0, 3, 4, 5, 6, 7}) {   // text, 19 digits, NULL, a sign PostgreSQL never prints, not
      assertThat(CopyText.plainLong(line, 0, end, field, 7)).as("field %d", field).isEqualTo(7);   // integral, empty
    }
  }

  @Test
  void aNewlineBesideBytesThatBorrowIsCountedOnce() {
    byte[] tricky = {'\n', 0x0B, '\n', 0x0A, 0x0B, 0x0B, (byte) 0x8A, '\n', 0x0B, '\n'};
    assertThat(CopyText.lineCount(tricky, 0, tricky.length)).isEqualTo(5);
    assertThat(CopyText.lineEnd(tricky, 1, tricky.length)).isEqualTo(2);
    assertThat(CopyText.lineEnd(tricky, 4, tricky.length)).isEqualTo(7);
  }

  @Property
  void escapedTextReadsBackAsItself(@ForAll String text) {
    StringBuilder line = new StringBuilder();
    CopyText.appendEscaped(line, text);
    byte[] bytes = utf8(line.toString());
    assertThat(CopyText.lineCount(bytes, 0, bytes.length)).isZero();
    assertThat(CopyText.field(bytes, 0, bytes.length, 0)).isEqualTo(new String(utf8(text), StandardCharsets.UTF_8));
  }
}
