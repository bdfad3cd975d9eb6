package dev.sluice.dispatcher.collector;

import dev.sluice.api.pgtext.CopyText;
import dev.sluice.api.v1.ColumnCodec;
import dev.sluice.api.v1.CopyRows;
import dev.sluice.api.v1.DmlBatch;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.CopyLine;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.RowImage;
import dev.sluice.dispatcher.SnapshotMark;
import dev.sluice.dispatcher.Transaction;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the DmlBatch fragments of one dispatcher into whole {@link Transaction}s, or into parts when a
 * transaction grows beyond {@code maxBytes} (so buffering never exceeds the dispatcher's credit).
 * Rows already delivered (covered by the dedup checkpoint) are dropped, which is what makes a resume
 * inside a fragmented transaction safe. A fragment's READ rows may come as {@code CopyRows} (feature copy-text):
 * each line becomes a READ row whose after image is backed by the line ({@link RowImage#ofCopyLine}), decoded
 * only when a reader asks for a value, never here. Used on the collector's context only.
 */
final class TxnAssembler {

  /** A transaction (or part) ready for the listener, with the bytes it occupies. */
  record Part(Transaction transaction, long bytes) {}

  private final long maxBytes;

  private long openCommitTs = -1;
  private long commitTimeMicros;
  private TableInfo table;
  private final List<RowChangeView> rows = new ArrayList<>();
  private long bufferedBytes;
  private boolean partEmitted;
  private boolean rowsSkipped;

  TxnAssembler(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** Commit ts of the transaction whose last fragment has not arrived yet, or -1. */
  long openCommitTs() {
    return openCommitTs;
  }

  long bufferedBytes() {
    return bufferedBytes;
  }

  /** Drops a half-received transaction (its epoch ended; the next epoch sends it again). */
  void clear() {
    openCommitTs = -1;
    rows.clear();
    bufferedBytes = 0;
    partEmitted = false;
    rowsSkipped = false;
    table = null;
  }

  /**
   * A DDL of the open transaction arrived: the rows buffered so far (before it, over the older table info)
   * become a part of their own, so that the listener gets them, the DDL, then the rows after it. Empty
   * when no row is buffered.
   */
  List<Part> partBeforeDdl() {
    if (openCommitTs < 0 || rows.isEmpty()) {
      return List.of();
    }
    Part part = new Part(new Transaction(openCommitTs, commitTimeMicros, table, rows, false, false), bufferedBytes);
    rows.clear();
    bufferedBytes = 0;
    partEmitted = true;
    return List.of(part);
  }

  /**
   * Adds one validated fragment read over {@code tableInfo}; returns the parts now ready, skipping rows
   * covered by {@code alreadyDelivered}.
   */
  List<Part> add(DmlBatch dml, TableInfo tableInfo, Checkpoint alreadyDelivered) {
    if (openCommitTs != dml.getCommitTs()) {
      clear();
      openCommitTs = dml.getCommitTs();
      commitTimeMicros = dml.getCommitTimeMicros();
    }
    table = tableInfo;
    for (RowChange row : dml.getRowsList()) {
      if (alreadyDelivered.covers(dml.getCommitTs(), row.getRowSeq())) {
        rowsSkipped = true;
        continue;
      }
      rows.add(RowChangeView.of(tableInfo, row));
      bufferedBytes += row.getSerializedSize();
    }
    if (dml.hasCopyRows()) {
      addLines(dml.getCommitTs(), dml.getCopyRows(), tableInfo, alreadyDelivered);
    }
    List<Part> ready = new ArrayList<>(1);
    if (dml.getLastFragment()) {
      // a snapshot chunk's last part goes out even without rows: its progress is what the sink records
      SnapshotMark mark = dml.hasSnapshot() ? SnapshotMark.fromProto(dml.getSnapshot()) : null;
      boolean anything = !rows.isEmpty() || partEmitted || mark != null;
      if (anything) {
        boolean complete = !partEmitted && !rowsSkipped;
        ready.add(new Part(new Transaction(openCommitTs, commitTimeMicros, table, rows, complete, true, mark),
            bufferedBytes));
      }
      clear();
    } else if (bufferedBytes > maxBytes && !rows.isEmpty()) {
      ready.add(new Part(new Transaction(openCommitTs, commitTimeMicros, table, rows, false, false), bufferedBytes));
      rows.clear();
      bufferedBytes = 0;
      partEmitted = true;
    }
    return ready;
  }

  /**
   * One READ row per line of {@code copy} (validated: {@link ReceiverRules#copyRowsWellFormed}), line i at row seq
   * {@code first_row_seq + i}; every image points into the array the parser copied the lines' bytes into, none is
   * copied again.
   */
  private void addLines(long commitTs, CopyRows copy, TableInfo tableInfo, Checkpoint alreadyDelivered) {
    int count = copy.getRowCount();
    long firstRowSeq = copy.getFirstRowSeq();
    if (count == 0) {
      return;
    }
    if (alreadyDelivered.covers(commitTs, firstRowSeq + count - 1)) {   // all delivered: not even copied
      rowsSkipped = true;
      return;
    }
    LineBytes bytes = LineBytes.of(copy.getLines());   // the parsed message's array, not a copy of it
    byte[] lines = bytes.array();
    List<ColumnCodec> columns = List.copyOf(copy.getColumnsList());   // one list for every image of the batch
    RowImage absent = RowImage.of(tableInfo, List.of());
    int offset = bytes.from();
    for (int i = 0; i < count; i++) {
      int end = CopyText.lineEnd(lines, offset, bytes.to());
      long rowSeq = firstRowSeq + i;
      if (alreadyDelivered.covers(commitTs, rowSeq)) {
        rowsSkipped = true;
      } else {
        rows.add(new RowChangeView(RowOp.ROW_OP_READ, rowSeq, copy.getKeyHashes(i), absent,
            RowImage.ofCopyLine(tableInfo, columns, new CopyLine(lines, offset, end), rowSeq)));
        bufferedBytes += end + 1 - offset;
      }
      offset = end + 1;
    }
  }
}
