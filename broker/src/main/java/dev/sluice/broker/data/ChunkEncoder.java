package dev.sluice.broker.data;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.DmlBatch;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.SnapshotDone;
import dev.sluice.api.v1.SnapshotStatus;
import dev.sluice.api.v1.Value;
import dev.sluice.broker.snapshot.ReadChunk;
import dev.sluice.broker.snapshot.RowIdentity;
import dev.sluice.broker.snapshot.SnapshotRow;
import dev.sluice.broker.snapshot.WatermarkMerge;
import dev.sluice.broker.snapshot.WindowChange;
import dev.sluice.broker.store.EventStore;
import dev.sluice.broker.store.RowScan;
import dev.sluice.schema.DdlEvent;
import dev.sluice.schema.SchemaStore;
import dev.sluice.schema.TableInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one {@link ChunkTask} on a scan worker. First the watermark merge: the chunk is refused (read again)
 * when a DDL of its table came between its watermarks or the stream's table info at the high watermark is
 * not the one the chunk was read with, since its rows would not fit the stream; otherwise the table's
 * stored changes in {@code (windowFrom, high]} (windowFrom at or before low: {@link ReadChunk#windowFromTs}) are
 * fed to {@link WatermarkMerge} (the whole table, not just the
 * span: a key-changing update is stored under its new key's hash). Then the READ rows, as the parts of one
 * DmlBatch at the high watermark ({@code fragment_index} 0, 1, ..., the last with {@code last_fragment} and
 * the chunk's SnapshotProgress), and a SnapshotDone(COMPLETE) after the last chunk. Stateless apart from
 * its stores.
 */
final class ChunkEncoder {

  private final EventStore store;
  private final SchemaStore schema;

  ChunkEncoder(EventStore store, SchemaStore schema) {
    this.store = store;
    this.schema = schema;
  }

  /** The task's result, or null when it was cancelled while running. */
  ChunkResult run(ChunkTask t) {
    ReadChunk c = t.chunk();
    List<SnapshotRow> merged = t.merged();
    long bytesRead = 0;
    if (merged == null) {
      String why = schemaChange(c);
      if (why != null) {
        return ChunkResult.reread(why);
      }
      TableInfo table = c.table();
      int[] keys = keyIndexes(table);
      WatermarkMerge merge = keys.length == 0 ? WatermarkMerge.keyless(c.rows()) : WatermarkMerge.keyed(c.rows(), keys);
      try (RowScan scan = store.scan(TableSpan.wholeTable(table.tableId()), c.windowFromTs(), c.highTs(),
          null)) {
        int n = 0;
        while (scan.next()) {
          if (++n % 1024 == 0 && t.cancelled().get()) {
            return null;
          }
          byte[] row = scan.rowChange();
          bytesRead += row.length;
          merge.accept(windowChange(parse(row), keys));
        }
      }
      merged = merge.result();
    }
    return encode(t, merged, bytesRead);
  }

  /** Why the chunk's rows do not fit the stream at its high watermark, or null when they do. */
  private String schemaChange(ReadChunk c) {
    TableInfo read = c.table();
    try {
      List<DdlEvent> ddls = schema.ddlEvents(read.tableId(), c.lowTs(), c.highTs());
      if (!ddls.isEmpty()) {
        return "a schema change of " + read.qualifiedName() + " (" + ddls.get(0).type() + " at ts "
            + ddls.get(0).commitTs() + ") came between the chunk's watermarks";
      }
      TableInfo atHigh = schema.tableInfoAt(read.tableId(), c.highTs());
      if (atHigh.version() != read.version() || atHigh.versionRowSeq() != read.versionRowSeq()) {
        return "the chunk was read with the table info of ts " + read.version() + "/" + read.versionRowSeq()
            + ", the stream has that of ts " + atHigh.version() + "/" + atHigh.versionRowSeq()
            + " at the chunk's high watermark";
      }
      return null;
    } catch (RuntimeException e) {   // dropped, or not readable now: the reader finds out which
      return "the table info of " + read.qualifiedName() + " at the chunk's high watermark cannot be read: "
          + e.getMessage();
    }
  }

  private ChunkResult encode(ChunkTask t, List<SnapshotRow> merged, long bytesRead) {
    ReadChunk c = t.chunk();
    Batcher out = new Batcher(t);
    int i = t.nextRow();
    int fragment = t.nextFragment();
    boolean finished = false;
    while (true) {
      DmlBatch.Builder part = DmlBatch.newBuilder().setCommitTs(c.highTs()).setFragmentIndex(fragment)
          .setTableInfoVersion(c.table().version()).setTableInfoVersionRowSeq(c.table().versionRowSeq());
      int first = i;
      long partBytes = 0;
      // a part holds rows of one form: COPY text lines (copy-text streams) or RowChanges (a row the merge cut down)
      boolean lines = i < merged.size() && merged.get(i).isLine();
      while (i < merged.size() && partBytes < t.fragmentBytes() && merged.get(i).isLine() == lines) {
        partBytes += lines ? CopyLines.size(merged.get(i)) : ReadRows.size(merged.get(i), i) + 4;
        i++;
      }
      boolean last = i >= merged.size();
      if (last) {
        part.setLastFragment(true).setSnapshot(c.progress());
      }
      out.add(lines ? PendingEvent.lines(CopyLines.part(part.build(), merged, first, i), c.highTs())
          : PendingEvent.encoded(PendingEvent.DML, ReadRows.dmlBatch(part.build(), merged, first, i), c.highTs()));
      fragment++;
      if (last) {
        if (c.last()) {
          SnapshotDone done = SnapshotDone.newBuilder().setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)
              .setRowsRead(c.progress().getRowsRead()).setChunks(c.progress().getChunks()).build();
          out.add(PendingEvent.encoded(PendingEvent.SNAPSHOT_DONE, done.toByteArray(), c.highTs()));
        }
        finished = true;
        break;
      }
      if (out.bytes >= t.budgetBytes()) {
        break;
      }
    }
    out.flush();
    return new ChunkResult(out.messages, out.eventCount, out.creditBytes, merged, i, fragment, finished, null,
        bytesRead + out.bytes);
  }

  /** What a stored change between the watermarks means to the merge. */
  static WindowChange windowChange(RowChange rc, int[] keys) {
    RowIdentity before = rc.getBeforeCount() == 0 ? null : identity(rc.getBeforeList(), keys);
    RowIdentity after = rc.getAfterCount() == 0 ? null : identity(rc.getAfterList(), keys);
    if (after == null && before == null) {
      throw new IllegalStateException("a stored change without images (op " + rc.getOp() + ", row seq "
          + rc.getRowSeq() + ")");
    }
    boolean[] available = null;
    if (rc.getAfterCount() > 0) {
      available = new boolean[rc.getAfterCount()];
      for (int i = 0; i < available.length; i++) {
        available[i] = !rc.getAfter(i).hasUnavailable();
      }
    }
    return new WindowChange(rc.getOp(), before, after, available);
  }

  /** The identity of an image: its key columns, or all of it for a keyless table; null when the key is not in it. */
  private static RowIdentity identity(List<Value> image, int[] keys) {
    if (keys.length == 0) {
      return RowIdentity.of(image);
    }
    List<Value> key = new ArrayList<>(keys.length);
    for (int k : keys) {
      if (k >= image.size() || image.get(k).hasUnavailable()) {
        return null;   // a before image without the key (default replica identity, key unchanged)
      }
      key.add(image.get(k));
    }
    return RowIdentity.of(key);
  }

  static int[] keyIndexes(TableInfo table) {
    int[] keys = new int[table.primaryKey().size()];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = table.columnIndex(table.primaryKey().get(i));
    }
    return keys;
  }

  private static RowChange parse(byte[] row) {
    try {
      return RowChange.parseFrom(row);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("a stored row change does not parse: " + e.getMessage(), e);
    }
  }

  /** Numbers events and cuts them into EventBatch messages of about {@link WireEncoder#EVENT_BATCH_BYTES}. */
  private static final class Batcher {
    final ChunkTask t;
    final List<byte[]> messages = new ArrayList<>();
    final List<PendingEvent> batch = new ArrayList<>();
    long batchBytes;
    long nextSeq;
    int eventCount;
    long creditBytes;
    long bytes;

    Batcher(ChunkTask t) {
      this.t = t;
      this.nextSeq = t.firstSeq();
    }

    void add(PendingEvent e) {
      int size = WireEncoder.dataEventSize(nextSeq + batch.size(), e);
      if (!batch.isEmpty() && batchBytes + size > WireEncoder.EVENT_BATCH_BYTES) {
        flush();
        size = WireEncoder.dataEventSize(nextSeq, e);
      }
      batch.add(e);
      batchBytes += size;
      bytes += e.payloadSize();
      creditBytes += size;
      eventCount++;
    }

    void flush() {
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
