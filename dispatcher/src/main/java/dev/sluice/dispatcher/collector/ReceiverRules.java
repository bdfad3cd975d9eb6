package dev.sluice.dispatcher.collector;

import dev.sluice.api.pgtext.CopyText;
import com.google.protobuf.ByteString;
import dev.sluice.api.v1.CopyRows;
import dev.sluice.api.v1.DataEvent;
import dev.sluice.api.v1.DmlBatch;
import dev.sluice.api.v1.EventBatch;
import java.nio.ByteBuffer;

/**
 * PROTOCOL.md's receiver rules for the data events of one epoch, as a pure check: seq numbers follow
 * {@code last_seq + 1} without a gap, fragments of a transaction are consecutive and not interleaved
 * with anything else (but, with the ddl-in-txn feature, the transaction's own DDL at its commit ts), and
 * commit ts never go back. A DmlBatch's {@code CopyRows} are shaped as events.proto says: no RowChange beside
 * them, {@code row_count} lines each ending with a newline, a key hash per line, a codec per column of the table
 * info in force. The epoch and handshake rules are checked by {@link EpochReceiver} before this.
 *
 * <pre>{@code
 * String v = ReceiverRules.firstViolation(batch, lastSeq, -1, 0, lastTs, lastDmlTs, 0, true, columns);   // null: fine
 * }</pre>
 */
final class ReceiverRules {

  private ReceiverRules() {}

  /**
   * The first violation in {@code batch}, as a metric-friendly reason ("seq_gap", "fragment_gap", ...), or
   * null when every event follows the rules.
   *
   * @param lastSeq        seq of the last accepted event of the epoch (1 after the handshake)
   * @param openCommitTs   commit ts of a transaction whose last fragment is still to come, or -1
   * @param nextFragment   the fragment index expected next for that transaction
   * @param lastEventTs    commit ts of the last accepted event (the start ts at first)
   * @param lastDmlTs      commit ts of the last complete transaction (the start ts at first)
   * @param resumeCommitTs commit ts of the transaction a resume cursor points into, or 0
   * @param ddlInTxn       whether the stream negotiated ddl-in-txn: a DDL may come between the parts of its
   *                       own transaction
   * @param columnCount    columns of the table info in force before the batch (a DDL in it brings its own)
   */
  static String firstViolation(EventBatch batch, long lastSeq, long openCommitTs, int nextFragment, long lastEventTs,
      long lastDmlTs, long resumeCommitTs, boolean ddlInTxn, int columnCount) {
    int columns = columnCount;
    long seq = lastSeq;
    long open = openCommitTs;
    long ts = lastEventTs;
    long dmlTs = lastDmlTs;
    int fragment = open >= 0 ? nextFragment : 0;
    for (DataEvent e : batch.getEventsList()) {
      if (e.getSeq() != seq + 1) {
        return "seq_gap";
      }
      seq++;
      switch (e.getPayloadCase()) {
        case DML -> {
          DmlBatch d = e.getDml();
          long c = d.getCommitTs();
          if (open >= 0) {
            if (c != open) {
              return "fragment_interleaved";
            }
            if (d.getFragmentIndex() != fragment) {
              return "fragment_gap";
            }
          } else {
            if (c <= dmlTs && c != resumeCommitTs) {
              return "commit_ts_order";
            }
            if (d.getFragmentIndex() != 0 && c != resumeCommitTs) {
              return "fragment_gap";
            }
          }
          if (c < ts) {
            return "commit_ts_order";
          }
          if (d.hasCopyRows() && !copyRowsWellFormed(d, columns)) {
            return "copy_rows_malformed";
          }
          ts = c;
          if (d.getLastFragment()) {
            open = -1;
            dmlTs = c;
          } else {
            open = c;
            fragment = d.getFragmentIndex() + 1;
          }
        }
        case DDL, SYNC_POINT -> {
          long c = e.hasDdl() ? e.getDdl().getCommitTs() : e.getSyncPoint().getTs();
          if (open >= 0 && !(ddlInTxn && e.hasDdl() && c == open)) {
            return "event_inside_transaction";
          }
          if (c < ts) {
            return "commit_ts_order";
          }
          ts = c;
          if (e.hasDdl()) {
            columns = e.getDdl().getTableInfoAfter().getColumnsCount();   // the rows after it follow this one
          }
        }
        case SNAPSHOT_DONE -> {
          if (open >= 0) {
            return "event_inside_transaction";
          }
        }
        case PAYLOAD_NOT_SET -> {
          return "empty_event";
        }
      }
    }
    return null;
  }

  /**
   * Whether {@code d}'s CopyRows can be read line by line: no RowChange beside them, {@code row_count} lines each
   * ending with a newline (so nothing trails the last), one key hash per line, and one codec per column of the
   * table info in force. Empty CopyRows (no line, no key hash) pass whatever their codecs: there is nothing to read.
   */
  static boolean copyRowsWellFormed(DmlBatch d, int columnCount) {
    CopyRows copy = d.getCopyRows();
    long rowCount = Integer.toUnsignedLong(copy.getRowCount());
    ByteString lines = copy.getLines();
    if (d.getRowsCount() > 0 || copy.getKeyHashesCount() != rowCount) {
      return false;
    }
    if (rowCount == 0) {
      return lines.isEmpty();
    }
    return copy.getColumnsCount() == columnCount && lines.byteAt(lines.size() - 1) == '\n'
        && newlines(lines) == rowCount;
  }

  private static long newlines(ByteString bytes) {
    long n = 0;
    for (ByteBuffer b : bytes.asReadOnlyByteBufferList()) {
      n += CopyText.lineCount(b);
    }
    return n;
  }
}
