package dev.sluice.broker.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.sluice.api.pgtext.CopyText;
import dev.sluice.api.v1.ColumnCodec;
import dev.sluice.api.v1.CopyRows;
import dev.sluice.api.v1.DmlBatch;
import dev.sluice.api.v1.SnapshotProgress;
import dev.sluice.api.v1.TextCodec;
import dev.sluice.api.v1.Value;
import dev.sluice.broker.snapshot.RowIdentity;
import dev.sluice.broker.snapshot.SnapshotRow;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CopyLinesTest {

  private static final List<ColumnCodec> CODECS = List.of(
      ColumnCodec.newBuilder().setCodec(TextCodec.TEXT_CODEC_INT).build(),
      ColumnCodec.newBuilder().setCodec(TextCodec.TEXT_CODEC_TEXT).build(),
      ColumnCodec.newBuilder().setCodec(TextCodec.TEXT_CODEC_ARRAY).setElementCodec(TextCodec.TEXT_CODEC_FALLBACK)
          .setElementDelimiter(";").build());

  private static SnapshotRow line(long key, String rest) {
    RowIdentity id = RowIdentity.of(List.of(Value.newBuilder().setInt64Value(key).build()));
    return SnapshotRow.line(id, id.keyHash(), (key + "\t" + rest + "\n").getBytes(StandardCharsets.UTF_8), CODECS);
  }

  @Test
  void linesWrittenAsBytesParseAsTheCopyRowsABuilderMakes() throws Exception {
    List<SnapshotRow> rows = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      rows.add(line(i * 7919L - 1000, (i % 5 == 0 ? "\\N" : "v\\t" + "ü".repeat(i)) + "\t{(1,1),(0,0);(2,2),(1,1)}"));
    }
    DmlBatch header = DmlBatch.newBuilder().setCommitTs(123456789L).setFragmentIndex(3).setLastFragment(true)
        .setTableInfoVersion(77).setSnapshot(SnapshotProgress.newBuilder().setRowsRead(300).setChunks(2)).build();
    for (int[] range : new int[][] {{0, rows.size()}, {5, 17}, {299, 300}}) {
      StringBuilder lines = new StringBuilder();
      CopyRows.Builder expected = CopyRows.newBuilder().setRowCount(range[1] - range[0]).setFirstRowSeq(range[0])
          .addAllColumns(CODECS);
      long sizes = 0;
      for (int i = range[0]; i < range[1]; i++) {
        lines.append(new String(rows.get(i).lineBytes(), StandardCharsets.UTF_8));
        expected.addKeyHashes(rows.get(i).keyHash());
        sizes += CopyLines.size(rows.get(i));
      }
      expected.setLines(ByteString.copyFromUtf8(lines.toString()));
      byte[] bytes = CopyLines.dmlBatch(header, rows, range[0], range[1]);
      DmlBatch parsed = DmlBatch.parseFrom(bytes);
      assertThat(parsed).isEqualTo(header.toBuilder().setCopyRows(expected).build());
      // the event an event batch writes the lines from holds the same bytes
      PendingEvent event = PendingEvent.lines(CopyLines.part(header, rows, range[0], range[1]), 123456789L);
      assertThat(event.payloadSize()).isEqualTo(bytes.length);
      assertThat(event.payload()).isEqualTo(bytes);
      assertThat(sizes).isLessThan(parsed.getSerializedSize());
      assertThat(CopyText.rowChanges(parsed.getCopyRows())).extracting(rc -> rc.getAfterList())
          .containsExactlyElementsOf(rows.subList(range[0], range[1]).stream().map(SnapshotRow::values).toList());
    }
  }

  @Test
  void aLineRowGivesTheValuesOfItsColumnsCodecs() {
    SnapshotRow row = line(42, "a\\\\b\t{(1,1),(0,0);(2,2),(1,1)}");
    assertThat(row.isLine()).isTrue();
    assertThat(row.values().get(1).getStringValue()).isEqualTo("a\\b");
    assertThat(row.values().get(2).getArrayValue().getElementsCount()).isEqualTo(2);
    assertThat(row.bytes()).isEqualTo(row.lineBytes().length + 24);
    assertThatThrownBy(() -> SnapshotRow.line(row.identity(), 1, "1\tx".getBytes(StandardCharsets.UTF_8), CODECS))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("newline");
  }
}
