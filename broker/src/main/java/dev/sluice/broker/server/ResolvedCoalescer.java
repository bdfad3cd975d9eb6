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

  private record Pending(long epoch, long ts, long lastSeq) {}

  private final Map<DispatcherId, Pending> pending = new LinkedHashMap<>();
  private final int maxPerBatch;

  ResolvedCoalescer(int maxPerBatch) {
    this.maxPerBatch = maxPerBatch;
  }

  void put(DispatcherId id, long epoch, long ts, long lastSeq) {
    pending.put(id, new Pending(epoch, ts, lastSeq));
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

  /** The pending watermarks as one {@code BrokerMessage{resolved_batch}}; empties the coalescer. */
  byte[] drainToMessage() {
    ResolvedBatch.Builder batch = ResolvedBatch.newBuilder();
    for (Map.Entry<DispatcherId, Pending> e : pending.entrySet()) {
      Pending p = e.getValue();
      batch.addResolved(Resolved.newBuilder().setDispatcherId(e.getKey().toProto()).setEpoch(p.epoch)
          .setTs(p.ts).setLastSeq(p.lastSeq));
    }
    pending.clear();
    return BrokerMessage.newBuilder().setResolvedBatch(batch).build().toByteArray();
  }
}
