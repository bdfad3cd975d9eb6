package dev.sluice.broker.admin;

import io.vertx.core.json.JsonObject;

/**
 * What the admin API can ask of the node it runs on: drain it, and how far the drain got.
 *
 * <pre>{@code
 * node.drain();                          // DRAINING: changefeeds move away, collectors are told to move
 * boolean done = node.drainStatus().getBoolean("drained");
 * }</pre>
 */
public interface NodeControl {

  /**
   * Marks the node DRAINING: the coordinator moves its changefeeds to other members and its collector
   * streams are told to move; once drained it can stop with nothing lost. Idempotent.
   *
   * @throws IllegalStateException when the node has nowhere to move to (standalone), naming why
   */
  void drain();

  /** {@code {"draining": bool, "hosting": n, "collector_streams": n, "drained": bool}}. */
  JsonObject drainStatus();
}
