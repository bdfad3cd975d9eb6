package dev.sluice.broker.snapshot;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where a snapshot reader learns the commit ts of the watermarks it wrote. A watermark is a
 * transactional {@code pg_logical_emit_message(true, 'sluice_snapshot', token)} committed on its own:
 * it writes a few bytes of WAL and no row, and arrives through the replication slot like any transaction,
 * so its commit ts is exact and capture has passed it once the event store's resolved ts reaches it.
 * Capture hands every such message to {@link #onMessage} (from its thread, inside the transaction, before
 * the store's resolved ts can reach it); a reader that {@link #expect}ed the token gets the commit ts.
 * Tokens are unique per broker process, so a message another broker wrote into the same WAL (a cluster
 * shares the upstream) is ignored here. Thread-safe.
 *
 * <pre>{@code
 * String token = watermarks.newToken("low");
 * CompletableFuture<Long> at = watermarks.expect(token);
 * source.emitWatermark(token);
 * long lowTs = at.get(30, TimeUnit.SECONDS);
 * }</pre>
 */
public final class SnapshotWatermarks {

  /** The message prefix of snapshot watermarks (capture's heartbeats use {@code sluice_heartbeat}). */
  public static final String PREFIX = "sluice_snapshot";

  private final String process = UUID.randomUUID().toString();
  private final AtomicLong sequence = new AtomicLong();
  private final ConcurrentHashMap<String, CompletableFuture<Long>> expected = new ConcurrentHashMap<>();
  private final AtomicLong seen = new AtomicLong();

  /** A token no other watermark of any broker carries. */
  String newToken(String kind) {
    return process + ":" + sequence.incrementAndGet() + ":" + kind;
  }

  /** Registers interest in {@code token}; call before writing it. */
  CompletableFuture<Long> expect(String token) {
    return expected.computeIfAbsent(token, t -> new CompletableFuture<>());
  }

  /** Stops waiting for {@code token} (its reader gave up). */
  void forget(String token) {
    expected.remove(token);
  }

  /**
   * A transactional logical message of the transaction at {@code commitTs}, as capture decoded it. Never
   * blocks; messages with another prefix are ignored.
   */
  public void onMessage(String prefix, byte[] content, long commitTs) {
    if (!PREFIX.equals(prefix)) {
      return;
    }
    CompletableFuture<Long> f = expected.remove(new String(content, StandardCharsets.UTF_8));
    if (f != null) {
      seen.incrementAndGet();
      f.complete(commitTs);
    }
  }

  /** Watermarks of this process seen by capture. */
  long seen() {
    return seen.get();
  }

  /** Readers waiting for a watermark. */
  int pending() {
    return expected.size();
  }
}
