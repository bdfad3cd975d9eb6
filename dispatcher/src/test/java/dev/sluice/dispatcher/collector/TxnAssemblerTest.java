package dev.sluice.dispatcher.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.api.pgtext.CopyText;
import dev.sluice.api.v1.ColumnCodec;
import dev.sluice.api.v1.CopyRows;
import dev.sluice.api.v1.DmlBatch;
import dev.sluice.api.v1.NullValue;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.SnapshotProgress;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.TextCodec;
import dev.sluice.api.v1.Value;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.SnapshotMark;
import dev.sluice.dispatcher.Transaction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A snapshot chunk's READ rows as CopyRows parts (feature copy-text) assemble into the same transaction as the
 * same rows sent as RowChanges: same row seqs, key hashes and values, same snapshot mark; a resume checkpoint
 * inside the chunk skips the lines it covers, parts of both forms keep row-seq order, and the buffered bytes are
 * the lines' bytes.
 */
class TxnAssemblerTest {

  private static final TableInfo ORDERS = TestEvents.ORDERS;
  private static final List<ColumnCodec> CODECS = List.of(
      ColumnCodec.newBuilder().setCodec(TextCodec.TEXT_CODEC_INT).build(),
      ColumnCodec.newBuilder().setCodec(TextCodec.TEXT_CODEC_TEXT).build());
  private static final long TS = 500;
  private static final SnapshotProgress PROGRESS = SnapshotProgress.newBuilder()
      .addLastKey(Value.newBuilder().setInt64Value(7)).setRowsRead(8).setChunks(1).build();
  private static final long NO_LIMIT = Long.MAX_VALUE;

  /** Row {@code seq}'s note: awkward for COPY text every few rows (tab, newline, backslash, NULL, unicode). */
  private static String note(long seq) {
    return switch ((int) (seq % 5)) {
      case 0 -> "plain " + seq;
      case 1 -> "tab\tnew\nline\\back " + seq;
      case 2 -> null;
      case 3 -> "Grüße 🙂 " + seq;
      default -> "\\N";
    };
  }

  private static int keyHash(long seq) {
    return (int) (seq * 2_654_435_761L);
  }

  /** Rows {@code from..to} (inclusive) as one CopyRows part. */
  private static DmlBatch copyPart(int fragment, boolean last, long from, long to) {
    StringBuilder text = new StringBuilder();
    CopyRows.Builder copy = CopyRows.newBuilder().setFirstRowSeq(from).setRowCount((int) (to - from + 1))
        .addAllColumns(CODECS);
    for (long seq = from; seq <= to; seq++) {
      text.append(seq).append('\t');
      CopyText.appendEscaped(text, note(seq));
      text.append('\n');
      copy.addKeyHashes(keyHash(seq));
    }
    copy.setLines(ByteString.copyFrom(text.toString(), StandardCharsets.UTF_8));
    return part(fragment, last).setCopyRows(copy).build();
  }

  /** Rows {@code from..to} (inclusive) as one part of RowChanges. */
  private static DmlBatch rowPart(int fragment, boolean last, long from, long to) {
    DmlBatch.Builder b = part(fragment, last);
    for (long seq = from; seq <= to; seq++) {
      String note = note(seq);
      b.addRows(RowChange.newBuilder().setOp(RowOp.ROW_OP_READ).setRowSeq(seq).setKeyHash(keyHash(seq))
          .addAfter(Value.newBuilder().setInt64Value(seq))
          .addAfter(note == null ? Value.newBuilder().setNullValue(NullValue.NULL_VALUE)
              : Value.newBuilder().setStringValue(note)));
    }
    return b.build();
  }

  private static DmlBatch.Builder part(int fragment, boolean last) {
    DmlBatch.Builder b = DmlBatch.newBuilder().setCommitTs(TS).setFragmentIndex(fragment).setLastFragment(last);
    return last ? b.setSnapshot(PROGRESS) : b;
  }

  /** Adds every part and returns the parts ready, in order. */
  private static List<Transaction> assemble(TxnAssembler assembler, Checkpoint delivered, DmlBatch... parts) {
    List<Transaction> out = new ArrayList<>();
    for (DmlBatch d : parts) {
      assembler.add(d, ORDERS, delivered).forEach(p -> out.add(p.transaction()));
    }
    return out;
  }

  private static List<Transaction> assemble(Checkpoint delivered, DmlBatch... parts) {
    return assemble(new TxnAssembler(NO_LIMIT), delivered, parts);
  }

  @Test
  void aChunkOfCopyRowsPartsIsTheTransactionItsRowChangesMake() {
    List<Transaction> lines = assemble(Checkpoint.at(TS - 1), copyPart(0, false, 0, 4), copyPart(1, true, 5, 11));
    List<Transaction> typed = assemble(Checkpoint.at(TS - 1), rowPart(0, false, 0, 4), rowPart(1, true, 5, 11));

    assertThat(lines).hasSize(1);
    Transaction t = lines.get(0);
    assertThat(t.complete()).isTrue();
    assertThat(t.snapshot()).isEqualTo(SnapshotMark.fromProto(PROGRESS));
    assertThat(t.rows()).extracting(RowChangeView::rowSeq).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L,
        10L, 11L);
    assertThat(t.rows()).allSatisfy(r -> {
      assertThat(r.op()).isEqualTo(RowOp.ROW_OP_READ);
      assertThat(r.before().isPresent()).isFalse();
      assertThat(r.after().copyLine()).isNotNull();
    });
    assertThat(t.rows()).extracting(r -> r.after().values())
        .containsExactlyElementsOf(typed.get(0).rows().stream().map(r -> r.after().values()).toList());
    assertThat(t.rows()).extracting(RowChangeView::keyHash)
        .containsExactlyElementsOf(typed.get(0).rows().stream().map(RowChangeView::keyHash).toList());
    assertThat(lines).isEqualTo(typed);
  }

  @Test
  void linesInsideALargerArrayAreReadInPlaceFromTheirOffset() {
    DmlBatch plain = copyPart(0, true, 0, 6);
    ByteString padded = ByteString.copyFromUtf8("padding\n").concat(plain.getCopyRows().getLines())
        .concat(ByteString.copyFromUtf8("more\n"));
    ByteString inside = ByteString.copyFrom(padded.toByteArray()).substring(8, 8 + plain.getCopyRows().getLines().size());
    DmlBatch shifted = plain.toBuilder().setCopyRows(plain.getCopyRows().toBuilder().setLines(inside)).build();

    Transaction t = assemble(Checkpoint.at(TS - 1), shifted).get(0);

    assertThat(t.rows().get(0).after().copyLine().offset()).isEqualTo(8);
    assertThat(t).isEqualTo(assemble(Checkpoint.at(TS - 1), rowPart(0, true, 0, 6)).get(0));
  }

  @Test
  void aResumeCheckpointInsideTheChunkSkipsTheLinesItCovers() {
    List<Transaction> lines = assemble(Checkpoint.inside(TS, 7), copyPart(1, false, 5, 9), copyPart(2, true, 10, 11));

    assertThat(lines).hasSize(1);
    assertThat(lines.get(0).complete()).as("rows were skipped").isFalse();
    assertThat(lines.get(0).lastPart()).isTrue();
    assertThat(lines.get(0).rows()).extracting(RowChangeView::rowSeq).containsExactly(7L, 8L, 9L, 10L, 11L);
    assertThat(lines.get(0).rows()).extracting(r -> r.after().getLong("id")).containsExactly(7L, 8L, 9L, 10L, 11L);
    assertThat(lines.get(0).rows().get(2).after().getString("note")).isEqualTo(note(9));

    List<Transaction> allCovered = assemble(Checkpoint.inside(TS, 10), copyPart(1, false, 5, 9),
        copyPart(2, true, 10, 11));
    assertThat(allCovered.get(0).rows()).extracting(RowChangeView::rowSeq).containsExactly(10L, 11L);
  }

  @Test
  void partsOfBothFormsKeepRowSeqOrder() {
    List<Transaction> mixed = assemble(Checkpoint.at(TS - 1), copyPart(0, false, 0, 2), rowPart(1, false, 3, 4),
        copyPart(2, true, 5, 7));
    List<Transaction> typed = assemble(Checkpoint.at(TS - 1), rowPart(0, false, 0, 2), rowPart(1, false, 3, 4),
        rowPart(2, true, 5, 7));

    List<RowChangeView> rows = mixed.get(0).rows();
    assertThat(rows).extracting(RowChangeView::rowSeq).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L);
    assertThat(rows).extracting(r -> r.after().copyLine() != null)
        .containsExactly(true, true, true, false, false, true, true, true);
    assertThat(mixed).isEqualTo(typed);
  }

  @Test
  void theLinesBytesAreBufferedAndAPartGoesOutPastTheLimit() {
    DmlBatch first = copyPart(0, false, 0, 4);
    TxnAssembler assembler = new TxnAssembler(NO_LIMIT);
    assertThat(assembler.add(first, ORDERS, Checkpoint.at(TS - 1))).isEmpty();
    assertThat(assembler.bufferedBytes()).isEqualTo(first.getCopyRows().getLines().size());

    TxnAssembler small = new TxnAssembler(10);
    List<Transaction> parts = assemble(small, Checkpoint.at(TS - 1), first, copyPart(1, true, 5, 11));
    assertThat(parts).hasSize(2);
    assertThat(parts.get(0).lastPart()).isFalse();
    assertThat(parts.get(0).rows()).extracting(RowChangeView::rowSeq).containsExactly(0L, 1L, 2L, 3L, 4L);
    assertThat(parts.get(1).rows()).extracting(RowChangeView::rowSeq).containsExactly(5L, 6L, 7L, 8L, 9L, 10L, 11L);
  }
}
