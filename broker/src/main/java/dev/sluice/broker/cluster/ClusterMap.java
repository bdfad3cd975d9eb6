package dev.sluice.broker.cluster;

import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * A string map every node of the cluster sees (Hazelcast: an {@code IMap} with a backup on every other
 * member; standalone: in memory). Values are JSON documents, so no class of ours crosses the wire.
 * Thread-safe; listeners run on a cluster thread and must not block.
 *
 * <pre>{@code
 * map.put("orders", json.encode());
 * map.onChange((key, value) -> ...);   // value null: removed
 * }</pre>
 */
public interface ClusterMap {

  Optional<String> get(String key);

  /** A copy of every entry. */
  Map<String, String> snapshot();

  void put(String key, String value);

  /** Replaces the value only while it still is {@code expected} (null: only if absent). */
  boolean replace(String key, String expected, String value);

  void remove(String key);

  /** Calls {@code listener} with the key and new value (null when removed) after each change, on any node. */
  void onChange(BiConsumer<String, String> listener);
}
