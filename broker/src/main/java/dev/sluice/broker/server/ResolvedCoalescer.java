package dev.sluice.broker.server;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.Resolved;
import dev.sluice.api.v1.ResolvedBatch;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Pending Resolved watermarks of one stream, one per dispatcher (a newer watermark of the same epoch
 * replaces the older: it carries the same last seq or a later one, and everything the older one
 * promised). Confined to the stream's context.
 */
final class ResolvedCoalescer {

  /** One pending watermark. */
  record Pending(DispatcherId id, long epoch, long ts, long lastSeq) {}

  private final Map<DispatcherId, Pending> pending = new LinkedHashMap<>();
  private final int maxPerBatch;

  ResolvedCoalescer(int maxPerBatch) {
    this.maxPerBatch = maxPerBatch;
  }

  void put(DispatcherId id, long epoch, long ts, long lastSeq) {
    pending.put(id, new Pending(id, epoch, ts, lastSeq));
  }

  boolean contains(DispatcherId id) {
    return pending.containsKey(id);
  }

  /** Forgets the dispatcher's pending watermark (its epoch changed or it left). */
  void drop(DispatcherId id) {
    pending.remove(id);
  }

  boolean isEmpty() {
    return pending.isEmpty();
  }

  boolean isFull() {
    return pending.size() >= maxPerBatch;
  }

  void clear() {
    pending.clear();
  }

  /** The pending watermarks, in arrival order; empties the coalescer. */
  java.util.List<Pending> drain() {
    java.util.List<Pending> out = new java.util.ArrayList<>(pending.values());
    pending.clear();
    return out;
  }

  /**
   * One {@code BrokerMessage{resolved_batch}} of the watermarks that {@code current} still accepts, or
   * null when none is left.
   */
  static byte[] encode(java.util.List<Pending> watermarks, java.util.function.Predicate<Pending> current) {
    ResolvedBatch.Builder batch = ResolvedBatch.newBuilder();
    for (Pending p : watermarks) {
      if (current.test(p)) {
        batch.addResolved(Resolved.newBuilder().setDispatcherId(p.id().toProto()).setEpoch(p.epoch())
            .setTs(p.ts()).setLastSeq(p.lastSeq()));
      }
    }
    return batch.getResolvedCount() == 0 ? null
        : BrokerMessage.newBuilder().setResolvedBatch(batch).build().toByteArray();
  }
}
