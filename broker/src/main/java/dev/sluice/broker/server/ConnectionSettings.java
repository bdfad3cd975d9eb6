package dev.sluice.broker.server;

import java.util.function.LongSupplier;

/**
 * What every collector stream of this broker is configured with.
 *
 * @param nodeId               this broker's node id (Welcome.broker_id)
 * @param incarnation          this broker process's incarnation (Welcome.incarnation)
 * @param maxMessageBytes      largest message accepted from a collector
 * @param queueBytesLimit      current per-stream quota of queued, unsent event bytes (runtime-tunable)
 * @param controlQueueMessages control messages queued before the stream is closed as a slow consumer
 * @param resolvedFlushMillis  coalesced watermarks are flushed within this many ms
 * @param maxResolvedPerBatch  watermarks per ResolvedBatch before an early flush
 * @param helloTimeoutMillis   a stream without Hello this long after it opened is closed (MISSING_HELLO)
 * @param draining             whether this node is draining: a new stream is refused with a retryable DRAINING
 * @param elsewhere            for a ts, the other members that can serve a resume from it (for refusals), or ""
 */
record ConnectionSettings(String nodeId, long incarnation, int maxMessageBytes, LongSupplier queueBytesLimit,
    int controlQueueMessages, long resolvedFlushMillis, int maxResolvedPerBatch, long helloTimeoutMillis,
    java.util.function.BooleanSupplier draining, java.util.function.LongFunction<String> elsewhere) {

  long queueBytes() {
    return queueBytesLimit.getAsLong();
  }
}
