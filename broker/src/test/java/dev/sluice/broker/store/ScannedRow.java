package dev.sluice.broker.store;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** One row as a scan returned it, with the value as text so rows compare by value in assertions. */
record ScannedRow(long tableId, long commitTs, long rowSeq, int keyHash, String value) {

  /** Reads the scan to its end and closes it. */
  static List<ScannedRow> drain(RowScan scan) {
    List<ScannedRow> rows = new ArrayList<>();
    try (scan) {
      while (scan.next()) {
        rows.add(new ScannedRow(scan.tableId(), scan.commitTs(), scan.rowSeq(), scan.keyHash(),
            new String(scan.rowChange(), StandardCharsets.UTF_8)));
      }
    }
    return rows;
  }

  /** The value tests store for a row: unique per key, so a misplaced value shows. */
  static String valueOf(long tableId, long commitTs, long rowSeq) {
    return "t" + tableId + "/ts" + commitTs + "/seq" + rowSeq;
  }

  static ScannedRow of(long tableId, long commitTs, long rowSeq, int keyHash) {
    return new ScannedRow(tableId, commitTs, rowSeq, keyHash, valueOf(tableId, commitTs, rowSeq));
  }

  void putInto(StoreBatch batch) {
    batch.putRow(tableId, commitTs, rowSeq, keyHash, value.getBytes(StandardCharsets.UTF_8));
  }
}
