package dev.sluice.broker.data;

import dev.sluice.broker.snapshot.SnapshotRow;
import java.util.List;

/**
 * What a {@link ChunkTask} produced.
 *
 * @param messages     encoded {@code BrokerMessage{event_batch}}s numbered from the task's first seq
 * @param eventCount   data events in them
 * @param creditBytes  their serialized size (what the credit is charged)
 * @param merged       the chunk's rows after the merge
 * @param nextRow      the first merged row not sent yet
 * @param nextFragment the fragment index of the next part
 * @param finished     the chunk's last part went out (and SnapshotDone after a last chunk)
 * @param rereadReason non-null when the chunk cannot be delivered as read (the table changed between its
 *                     watermarks): nothing was produced and the reader reads it again
 * @param bytesRead    bytes read from the event store for the merge
 */
record ChunkResult(List<byte[]> messages, int eventCount, long creditBytes, List<SnapshotRow> merged, int nextRow,
    int nextFragment, boolean finished, String rereadReason, long bytesRead) {

  static ChunkResult reread(String why) {
    return new ChunkResult(List.of(), 0, 0, null, 0, 0, false, why, 0);
  }
}
