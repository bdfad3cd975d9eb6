package dev.sluice.broker.data;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.broker.control.CollectorLink;
import dev.sluice.broker.snapshot.ReadChunk;
import dev.sluice.broker.snapshot.SnapshotRow;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One bounded delivery of a snapshot chunk for one dispatcher, run on a scan worker: the watermark merge
 * when {@code merged} is null (reading the table's changes between the watermarks from the event store),
 * then the READ rows from {@code nextRow} on, as DmlBatch parts at the chunk's high watermark, until
 * {@code budgetBytes} are used. Events are numbered from {@code firstSeq}. Immutable but for the cancel flag.
 */
record ChunkTask(DispatcherId id, CollectorLink link, long epoch, long firstSeq, TableSpan span, ReadChunk chunk,
    List<SnapshotRow> merged, int nextRow, int nextFragment, long budgetBytes, int fragmentBytes,
    AtomicBoolean cancelled) {

  static ChunkTask of(DispatcherStream s, SnapshotLane lane, long budgetBytes, int fragmentBytes,
      AtomicBoolean cancelled) {
    return new ChunkTask(s.id(), s.link, s.epoch, s.seq + 1, s.registration.span(), lane.head(), lane.merged,
        lane.nextRow, lane.nextFragment, budgetBytes, fragmentBytes, cancelled);
  }
}
