package dev.sluice.broker.snapshot;

import dev.sluice.api.v1.SnapshotRequest;
import dev.sluice.api.v1.Value;
import java.util.List;

/**
 * Where a snapshot (re)starts: after a key of a keyed table, or at a heap block of a keyless one.
 *
 * <pre>{@code
 * SnapshotPosition p = SnapshotPosition.fromProto(request.getSnapshot());
 * boolean fromTheStart = p.isStart();
 * }</pre>
 *
 * @param afterKey  continue after the row with this key (key columns in key order); empty: from the first row
 * @param nextBlock keyless tables: the first heap block to read
 */
public record SnapshotPosition(List<Value> afterKey, long nextBlock) {

  public SnapshotPosition {
    afterKey = List.copyOf(afterKey);
    if (nextBlock < 0) {
      throw new IllegalArgumentException("next block must be >= 0, got " + nextBlock);
    }
    if (!afterKey.isEmpty() && nextBlock != 0) {
      throw new IllegalArgumentException("a position is a key or a block, not both");
    }
  }

  public static SnapshotPosition start() {
    return new SnapshotPosition(List.of(), 0);
  }

  public static SnapshotPosition fromProto(SnapshotRequest r) {
    return new SnapshotPosition(r.getAfterKeyList(), r.getNextBlock());
  }

  public boolean isStart() {
    return afterKey.isEmpty() && nextBlock == 0;
  }
}
