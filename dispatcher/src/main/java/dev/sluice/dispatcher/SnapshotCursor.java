package dev.sluice.dispatcher;

import dev.sluice.api.v1.SnapshotProgress;
import dev.sluice.api.v1.SnapshotRequest;
import dev.sluice.api.v1.Value;
import java.util.List;

/**
 * Where a subscription's snapshot continues: after the row with a key (tables with a key), or at a heap
 * block (tables without one). A sink records the cursor of the last chunk it applied
 * ({@link SnapshotMark#next()}) with the chunk's rows, and subscribes again with it after a restart, so the
 * snapshot goes on from there instead of from the start.
 *
 * <pre>{@code
 * Subscription s = Subscription.table("public.orders").from(checkpoint).withSnapshot(storedCursor);
 * Subscription fresh = Subscription.table("public.orders").from(0).withSnapshot();   // SnapshotCursor.start()
 * }</pre>
 *
 * @param afterKey  continue after the row with this key (key columns in key order); empty: from the first row
 * @param nextBlock keyless tables: the first heap block not read yet; 0 from the start
 */
public record SnapshotCursor(List<Value> afterKey, long nextBlock) {

  /** Validates the cursor: {@code nextBlock} is not negative, and a cursor is a key or a block, not both. */
  public SnapshotCursor {
    afterKey = List.copyOf(afterKey);
    if (nextBlock < 0) {
      throw new IllegalArgumentException("nextBlock must be >= 0, got " + nextBlock);
    }
    if (!afterKey.isEmpty() && nextBlock != 0) {
      throw new IllegalArgumentException("a snapshot cursor is a key or a block, not both");
    }
  }

  /** The start of the table. */
  public static SnapshotCursor start() {
    return new SnapshotCursor(List.of(), 0);
  }

  /** Whether this is the start of the table (no key, block 0): the snapshot reads every row. */
  public boolean isStart() {
    return afterKey.isEmpty() && nextBlock == 0;
  }

  /** The request that continues from here. */
  public SnapshotRequest toProto() {
    return SnapshotRequest.newBuilder().addAllAfterKey(afterKey).setNextBlock(nextBlock).build();
  }

  /** The cursor after a chunk whose last part carried {@code p}. */
  public static SnapshotCursor after(SnapshotProgress p) {
    return new SnapshotCursor(p.getLastKeyList(), p.getNextBlock());
  }

  /** The serialized form a sink stores ({@code SnapshotRequest} bytes). */
  public byte[] toBytes() {
    return toProto().toByteArray();
  }

  /** The cursor a sink stored with {@link #toBytes()}. */
  public static SnapshotCursor fromBytes(byte[] bytes) {
    try {
      SnapshotRequest r = SnapshotRequest.parseFrom(bytes);
      return new SnapshotCursor(r.getAfterKeyList(), r.getNextBlock());
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("not a stored snapshot cursor: " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    if (isStart()) {
      return "start";
    }
    return nextBlock > 0 ? "block " + nextBlock : "after key " + afterKey.stream().map(Value::toString)
        .map(s -> s.replace('\n', ' ').strip()).toList();
  }
}
