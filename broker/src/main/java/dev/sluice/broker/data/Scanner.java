package dev.sluice.broker.data;

import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.SyncPoint;
import dev.sluice.broker.store.EventStore;
import dev.sluice.broker.store.RowScan;
import dev.sluice.broker.store.ScanCursor;
import dev.sluice.broker.store.TimeMark;
import dev.sluice.schema.DdlEvent;
import dev.sluice.schema.SchemaStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Runs one {@link ScanTask}: reads the span's rows from the event store and its DDL from the schema
 * store, and merges them with sync points into the order PROTOCOL.md fixes for one span:
 *
 * <ul>
 *   <li>by commit ts; a DDL at T after all DML below T and before the DML above T. Inside the transaction
 *       at T, with the ddl-in-txn feature, by row seq: a DDL at row seq S after the transaction's rows below
 *       S and before those above it, the rows split into parts (fragments) around it, and a DDL after the
 *       transaction's last row in the span followed by an empty last part, so the transaction stays open
 *       over it; without the feature, every DDL at T before all the rows at T;</li>
 *   <li>a sync point at S after every event at or below S and before every event above S, where S is
 *       one below the commit ts of the first transaction whose commit time crossed an interval
 *       boundary (so every dispatcher of a changefeed gets the same S);</li>
 *   <li>one DmlBatch per transaction, or fragments of it (fragment_index, last_fragment) when it is
 *       larger than the fragment size and the stream allows fragments.</li>
 * </ul>
 *
 * A scan stops at a transaction boundary once its byte budget is used (its progress is then that
 * transaction's commit ts), or inside a transaction after a fragment (progress stays, a cursor records
 * the next row). Runs on a worker thread; stateless apart from its stores.
 */
final class Scanner {

  private static final int CANCEL_CHECK_ROWS = 1024;
  /** Per stored row, what a scan is charged beyond the row bytes (key and framing). */
  private static final int ROW_OVERHEAD_BYTES = 28;

  private final EventStore store;
  private final SchemaStore schema;

  Scanner(EventStore store, SchemaStore schema) {
    this.store = store;
    this.schema = schema;
  }

  /** The scan's result, or null when the task was cancelled while running. */
  ScanResult run(ScanTask t) {
    long from = t.fromExclusive();
    long to = t.toInclusive();
    ScanCursor cursor = t.cursor();
    // events at or below the cursor's transaction were sent before the fragment that set the cursor
    long sentThrough = cursor == null ? from : cursor.commitTs();
    List<DdlEvent> ddls = new ArrayList<>();
    for (DdlEvent d : schema.ddlEvents(t.span().tableId(), from, to)) {
      // the cursor's rows and DDL below its row seq went out; without ddl-in-txn all DDL of its ts did
      boolean sent = cursor == null ? d.commitTs() <= from : t.ddlInTxn() ? d.isBefore(cursor.commitTs(),
          cursor.nextRowSeq()) : d.commitTs() <= sentThrough;
      if (!sent) {
        ddls.add(d);
      }
    }
    Merge m = new Merge(t, ddls, new MarkWindow(store, from, to), sentThrough);
    if (m.lastMarkTime < 0 && t.syncPointIntervalS() > 0) {
      // a new epoch: where the stream starts in upstream time, so a boundary right after it counts
      store.timeMarkAtOrBefore(sentThrough).ifPresent(mark -> m.lastMarkTime = mark.commitTimeMicros());
    }

    long txTs = -1;
    int rowsSeen = 0;
    boolean stoppedEarly = false;
    try (RowScan rows = store.scan(t.span(), from, to, cursor)) {
      if (cursor != null) {
        txTs = cursor.commitTs();
        m.openTxn(txTs, t.nextFragmentIndex());
        m.resumed = true;
      }
      while (true) {
        if (++rowsSeen % CANCEL_CHECK_ROWS == 0 && t.cancelled().get()) {
          return null;
        }
        boolean has = rows.next();
        long ts = has ? rows.commitTs() : Long.MAX_VALUE;
        if (txTs != -1 && ts != txTs) {
          m.closeTxn();
          txTs = -1;
          if (has && m.bytes >= t.budgetBytes()) {
            stoppedEarly = true;
            break;
          }
        }
        if (!has) {
          break;
        }
        if (txTs == -1) {
          m.flushBefore(ts, t.ddlInTxn() ? rows.rowSeq() : Long.MAX_VALUE, true);
          txTs = ts;
          m.openTxn(ts, 0);
        } else if (t.ddlInTxn()) {
          m.splitAt(rows.rowSeq());
        }
        byte[] row = rows.rowChange();
        m.bytesRead += row.length + ROW_OVERHEAD_BYTES;
        if (!isIgnored(row, t.ignoredOps())) {
          m.addRow(row);
        }
        m.nextRowSeq = rows.rowSeq() + 1;
        if (t.fragments() && m.txnBytes >= t.fragmentBytes()) {
          m.emitFragment(false);
          if (m.bytes >= t.budgetBytes()) {
            m.cursor = new ScanCursor(txTs, m.nextRowSeq);
            stoppedEarly = true;
            break;
          }
        }
      }
    }
    if (!stoppedEarly) {
      m.flushBefore(to, Long.MAX_VALUE, false);
      m.progress = to;
    }
    m.flushBatch();
    return new ScanResult(m.messages, m.eventCount, m.creditBytes, m.dmlCount, m.ddlCount, m.syncCount, m.progress,
        m.cursor, m.fragmentIndex, m.version, m.versionRowSeq, m.lastMarkTime, m.bytesRead, !stoppedEarly);
  }

  /** Whether the stored row's operation is filtered out; reads the op without parsing the row. */
  static boolean isIgnored(byte[] row, Set<RowOp> ignored) {
    if (ignored.isEmpty()) {
      return false;
    }
    // RowChange.op is field 1 (varint), written first when set: tag 0x08, then the value
    int op = row.length >= 2 && row[0] == 0x08 ? row[1] : 0;
    return ignored.contains(RowOp.forNumber(op));
  }

  /** The merge state of one scan. */
  private static final class Merge {
    final ScanTask t;
    final List<DdlEvent> ddls;
    final MarkWindow marks;
    /** Commit time of the open transaction, from its time mark. */
    long txnTime;
    final long intervalMicros;
    /** Events of the message being built. */
    final List<PendingEvent> batch = new ArrayList<>();
    long batchBytes;
    final List<byte[]> messages = new ArrayList<>();
    long nextSeq;
    int eventCount;
    long creditBytes;
    int dmlCount;
    int ddlCount;
    int syncCount;
    int ddlIdx;
    long bytes;
    long bytesRead;
    long progress;
    ScanCursor cursor;
    long version;
    long versionRowSeq;
    long lastMarkTime;
    // the open transaction
    long txTs = -1;
    int fragmentIndex;
    List<byte[]> txnRows = new ArrayList<>();
    long txnBytes;
    long nextRowSeq;
    /** The open transaction continues one whose first rows went out before this scan. */
    boolean resumed;

    Merge(ScanTask t, List<DdlEvent> ddls, MarkWindow marks, long sentThrough) {
      this.t = t;
      this.ddls = ddls;
      this.marks = marks;
      this.intervalMicros = t.syncPointIntervalS() * 1_000_000L;
      this.progress = t.fromExclusive();
      this.version = t.tableInfoVersion();
      this.versionRowSeq = t.tableInfoVersionRowSeq();
      this.lastMarkTime = t.lastMarkTimeMicros();
      this.nextSeq = t.firstSeq();
      while (marks.nextTs() <= sentThrough) {
        TimeMark mark = marks.next();
        lastMarkTime = mark.commitTimeMicros();
        if (mark.commitTs() == sentThrough) {
          txnTime = mark.commitTimeMicros(); // the transaction a cursor resumes
        }
      }
    }

    /**
     * Emits the DDLs and sync points that come before the DML at {@code (ts, rowSeq)} (beforeDml=true: DDL
     * at ts with a row seq up to rowSeq included; Long.MAX_VALUE: every DDL at ts) or up to and including
     * {@code ts} at the end of the range (beforeDml=false, ts = range end, where everything at or below it
     * is due).
     */
    void flushBefore(long ts, long rowSeq, boolean beforeDml) {
      if (beforeDml) {
        txnTime = 0; // set from the transaction's own mark below
      }
      while (true) {
        long ddlTs = ddlIdx < ddls.size() ? ddls.get(ddlIdx).commitTs() : Long.MAX_VALUE;
        // a DDL at ts placed after the row at rowSeq waits inside the transaction (splitAt, closeTxn)
        boolean ddlDue = ddlTs < ts || (ddlTs == ts && (rowSeq == Long.MAX_VALUE || ddls.get(ddlIdx).rowSeq() <= rowSeq));
        long markTs = marks.nextTs();
        // a mark at M yields a sync point at M-1: it sorts before a DDL at M
        if (markTs <= ddlTs && markTs <= ts) {
          TimeMark mark = marks.next();
          onMark(mark);
          if (beforeDml && mark.commitTs() == ts) {
            txnTime = mark.commitTimeMicros();
          }
        } else if (ddlDue) {
          DdlEvent d = ddls.get(ddlIdx++);
          addDdl(d);
          progressAfterNonDml(d.commitTs(), beforeDml, ts);
        } else {
          return;
        }
      }
    }

    private void progressAfterNonDml(long eventTs, boolean beforeDml, long ts) {
      // a DDL at the DML's own ts is not a boundary: the transaction still follows
      if (!(beforeDml && eventTs == ts)) {
        progress = Math.max(progress, eventTs);
      }
    }

    private void onMark(TimeMark mark) {
      long time = mark.commitTimeMicros();
      if (intervalMicros > 0 && lastMarkTime >= 0
          && Math.floorDiv(time, intervalMicros) > Math.floorDiv(lastMarkTime, intervalMicros)) {
        long syncTs = mark.commitTs() - 1;
        if (syncTs > t.syncPointFirstTs() && syncTs > t.fromExclusive()) {
          add(PendingEvent.encoded(PendingEvent.SYNC_POINT, SyncPoint.newBuilder().setTs(syncTs).build().toByteArray(),
              syncTs));
          progress = Math.max(progress, syncTs);
        }
      }
      lastMarkTime = time;
    }

    private void addDdl(DdlEvent d) {
      add(PendingEvent.encoded(PendingEvent.DDL, d.toProto().toByteArray(), d.commitTs()));
      version = d.tableInfoAfter().version();
      versionRowSeq = d.tableInfoAfter().versionRowSeq();
    }

    /** Whether a DDL of the open transaction comes before its row at {@code rowSeq}. */
    private boolean ddlInsideBefore(long rowSeq) {
      return ddlIdx < ddls.size() && ddls.get(ddlIdx).commitTs() == txTs && ddls.get(ddlIdx).rowSeq() < rowSeq;
    }

    /**
     * The open transaction's DDLs placed before its row at {@code rowSeq}: the part so far ends (not last)
     * and each DDL follows it; rows after them form the next part, over the version they produced.
     */
    void splitAt(long rowSeq) {
      if (!ddlInsideBefore(rowSeq)) {
        return;
      }
      if (!txnRows.isEmpty()) {
        emitFragment(false);
      }
      while (ddlInsideBefore(rowSeq)) {
        addDdl(ddls.get(ddlIdx++));
      }
    }

    void openTxn(long ts, int firstFragment) {
      txTs = ts;
      fragmentIndex = firstFragment;
      txnRows = new ArrayList<>();
      txnBytes = 0;
    }

    void addRow(byte[] row) {
      txnRows.add(row);
      txnBytes += row.length;
    }

    void emitFragment(boolean last) {
      add(new PendingEvent.Dml(txTs, fragmentIndex, last, txnRows, version, versionRowSeq, txnTime));
      fragmentIndex++;
      txnRows = new ArrayList<>();
      txnBytes = 0;
    }

    void closeTxn() {
      if (t.ddlInTxn()) {
        splitAt(Long.MAX_VALUE);   // DDL after the span's last row: inside, an empty last part closes over it
      }
      // a transaction whose rows were all filtered out sends nothing, unless part of it went out already
      if (!txnRows.isEmpty() || fragmentIndex > 0 || resumed) {
        emitFragment(true);
      }
      resumed = false;
      progress = txTs;
      cursor = null;
      fragmentIndex = 0;
      txTs = -1;
    }

    /** Numbers the event and puts it in the message being built, cutting messages at the target size. */
    private void add(PendingEvent e) {
      int size = WireEncoder.dataEventSize(nextSeq + batch.size(), e);
      if (!batch.isEmpty() && batchBytes + size > WireEncoder.EVENT_BATCH_BYTES) {
        flushBatch();
        size = WireEncoder.dataEventSize(nextSeq, e);
      }
      batch.add(e);
      batchBytes += size;
      bytes += e.payloadSize();
      creditBytes += size;
      eventCount++;
      switch (e.field()) {
        case PendingEvent.DML -> dmlCount++;
        case PendingEvent.DDL -> ddlCount++;
        default -> syncCount++;
      }
    }

    void flushBatch() {
      if (batch.isEmpty()) {
        return;
      }
      messages.add(WireEncoder.eventBatch(t.id(), t.epoch(), batch, 0, batch.size(), nextSeq));
      nextSeq += batch.size();
      batch.clear();
      batchBytes = 0;
    }

  }
}
