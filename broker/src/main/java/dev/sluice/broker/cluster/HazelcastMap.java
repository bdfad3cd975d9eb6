package dev.sluice.broker.cluster;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryMergedListener;
import com.hazelcast.map.listener.EntryRemovedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

/** A {@link ClusterMap} over a Hazelcast {@code IMap} of JSON strings. */
final class HazelcastMap implements ClusterMap {

  private final IMap<String, String> map;

  HazelcastMap(IMap<String, String> map) {
    this.map = map;
  }

  @Override
  public Optional<String> get(String key) {
    return Optional.ofNullable(map.get(key));
  }

  @Override
  public Map<String, String> snapshot() {
    return new HashMap<>(map);
  }

  @Override
  public void put(String key, String value) {
    map.set(key, value);
  }

  @Override
  public boolean replace(String key, String expected, String value) {
    return expected == null ? map.putIfAbsent(key, value) == null : map.replace(key, expected, value);
  }

  @Override
  public void remove(String key) {
    map.delete(key);
  }

  @Override
  public void onChange(BiConsumer<String, String> listener) {
    map.addEntryListener(new Listener(listener), true);
  }

  /** Every kind of change, merges after a healed split included. */
  private record Listener(BiConsumer<String, String> target) implements EntryAddedListener<String, String>,
      EntryUpdatedListener<String, String>, EntryRemovedListener<String, String>, EntryMergedListener<String, String> {
    @Override
    public void entryAdded(EntryEvent<String, String> e) {
      target.accept(e.getKey(), e.getValue());
    }

    @Override
    public void entryUpdated(EntryEvent<String, String> e) {
      target.accept(e.getKey(), e.getValue());
    }

    @Override
    public void entryRemoved(EntryEvent<String, String> e) {
      target.accept(e.getKey(), null);
    }

    @Override
    public void entryMerged(EntryEvent<String, String> e) {
      target.accept(e.getKey(), e.getValue());
    }
  }
}
