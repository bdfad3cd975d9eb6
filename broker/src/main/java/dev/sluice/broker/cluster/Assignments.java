package dev.sluice.broker.cluster;

import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Which node hosts which changefeed, with its fencing token: the cluster's assignment table. The
 * coordinator writes it; every node reads it to learn what it must host ({@code changefeed/} starts and
 * stops runtimes from it). Thread-safe.
 *
 * <pre>{@code
 * assignments.of("orders").filter(a -> a.nodeId().equals(me)).ifPresent(a -> host(a.token()));
 * }</pre>
 */
public final class Assignments {

  private final ClusterMap map;

  public Assignments(ClusterMap map) {
    this.map = map;
  }

  /** Every assignment, by changefeed id. */
  public Map<String, Assignment> all() {
    Map<String, Assignment> out = new TreeMap<>();
    map.snapshot().forEach((k, v) -> out.put(k, Assignment.fromJson(new JsonObject(v))));
    return out;
  }

  public Optional<Assignment> of(String changefeedId) {
    return map.get(changefeedId).map(v -> Assignment.fromJson(new JsonObject(v)));
  }

  /** Writes {@code a} (coordinator only). */
  public void put(Assignment a) {
    map.put(a.changefeedId(), a.toJson().encode());
  }

  /** Deletes the assignment of {@code changefeedId} (coordinator only). */
  public void remove(String changefeedId) {
    map.remove(changefeedId);
  }

  /** Calls {@code listener} with the changefeed id after its assignment changed on any node. */
  public void onChange(Consumer<String> listener) {
    map.onChange((k, v) -> listener.accept(k));
  }
}
