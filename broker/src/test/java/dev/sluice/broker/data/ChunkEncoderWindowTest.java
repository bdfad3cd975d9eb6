package dev.sluice.broker.data;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.SnapshotProgress;
import dev.sluice.api.v1.Value;
import dev.sluice.broker.snapshot.ReadChunk;
import dev.sluice.broker.snapshot.RowIdentity;
import dev.sluice.broker.snapshot.SnapshotPosition;
import dev.sluice.broker.snapshot.SnapshotRow;
import dev.sluice.broker.testing.StoreFixture;
import dev.sluice.schema.TableInfo;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #17's kill -9 snapshot divergence: PostgreSQL makes a transaction visible a moment after its commit
 * record, so a chunk's SELECT, run after the low watermark, can still return a row that a change committed
 * just before that watermark deleted or rewrote. The merge takes the changes from the chunk's window start
 * (the previous chunk's low watermark) on, and drops that row, whose change the stream delivers before it.
 */
class ChunkEncoderWindowTest {

  private static final long TABLE = 16384;

  @TempDir
  Path dir;

  @Test
  void aRowAChangeBeforeTheLowWatermarkRewroteIsDroppedWhenTheSelectStillSawItsOldValue() {
    try (StoreFixture f = new StoreFixture(dir)) {
      TableInfo table = f.createTable(TABLE, "t");
      long windowFrom = f.heartbeat();
      f.commit(TABLE, List.of(StoreFixture.row(RowOp.ROW_OP_DELETE, 7, "v7")));
      f.commit(TABLE, List.of(StoreFixture.row(RowOp.ROW_OP_INSERT, 8, "new8")));
      long low = f.heartbeat();
      long high = f.heartbeat();
      // what the SELECT returned: 6 untouched, 7 and 8 as they were before the two changes became visible
      List<SnapshotRow> read = List.of(row(6, "v6"), row(7, "v7"), row(8, "v8"));
      ReadChunk chunk = new ReadChunk(null, 0, SnapshotPosition.start(), 1, windowFrom, low, high, table, read,
          SnapshotProgress.getDefaultInstance(), false, 0);

      ChunkResult result = new ChunkEncoder(f.events, f.schema).run(task(chunk));

      assertThat(result.merged()).as("READ rows at the high watermark").extracting(SnapshotRow::identity)
          .containsExactly(key(6));
    }
  }

  @Test
  void aChangeBeforeTheWindowLeavesTheRowAsRead() {
    try (StoreFixture f = new StoreFixture(dir)) {
      TableInfo table = f.createTable(TABLE, "t");
      f.commit(TABLE, List.of(StoreFixture.row(RowOp.ROW_OP_INSERT, 8, "v8")));
      long windowFrom = f.heartbeat();
      long low = f.heartbeat();
      long high = f.heartbeat();
      ReadChunk chunk = new ReadChunk(null, 0, SnapshotPosition.start(), 1, windowFrom, low, high, table,
          List.of(row(8, "v8")), SnapshotProgress.getDefaultInstance(), false, 0);

      ChunkResult result = new ChunkEncoder(f.events, f.schema).run(task(chunk));

      assertThat(result.merged()).extracting(SnapshotRow::identity).containsExactly(key(8));
    }
  }

  private static ChunkTask task(ReadChunk chunk) {
    return new ChunkTask(DispatcherId.random(), null, 1, 1, TableSpan.wholeTable(TABLE), chunk, null, 0, 0,
        Long.MAX_VALUE, 1 << 20, new AtomicBoolean());
  }

  private static RowIdentity key(long id) {
    return RowIdentity.of(List.of(Value.newBuilder().setInt64Value(id).build()));
  }

  private static SnapshotRow row(long id, String v) {
    RowIdentity key = key(id);
    return SnapshotRow.encoded(key, key.keyHash(), List.of(Value.newBuilder().setInt64Value(id).build(),
        Value.newBuilder().setStringValue(v).build()));
  }
}
