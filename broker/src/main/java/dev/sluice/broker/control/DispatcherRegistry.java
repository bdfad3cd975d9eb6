package dev.sluice.broker.control;

import dev.sluice.api.DispatcherId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The dispatchers a control plane knows, by id and by stream. Confined to the control plane's
 * context.
 */
final class DispatcherRegistry {

  private final Map<DispatcherId, DispatcherEntry> byId = new HashMap<>();
  private final Map<Long, Map<DispatcherId, DispatcherEntry>> byLink = new HashMap<>();

  DispatcherEntry get(DispatcherId id) {
    return byId.get(id);
  }

  void put(DispatcherEntry entry) {
    DispatcherEntry old = byId.put(entry.id(), entry);
    if (old != null) {
      unlink(old);
    }
    byLink.computeIfAbsent(entry.link.id(), k -> new HashMap<>()).put(entry.id(), entry);
  }

  DispatcherEntry remove(DispatcherId id) {
    DispatcherEntry e = byId.remove(id);
    if (e != null) {
      unlink(e);
    }
    return e;
  }

  /** The entries bound to a stream (a copy). */
  List<DispatcherEntry> onLink(long linkId) {
    Map<DispatcherId, DispatcherEntry> m = byLink.get(linkId);
    return m == null ? List.of() : new ArrayList<>(m.values());
  }

  Collection<DispatcherEntry> all() {
    return Collections.unmodifiableCollection(byId.values());
  }

  int size() {
    return byId.size();
  }

  private void unlink(DispatcherEntry e) {
    Map<DispatcherId, DispatcherEntry> m = byLink.get(e.link.id());
    if (m != null) {
      m.remove(e.id());
      if (m.isEmpty()) {
        byLink.remove(e.link.id());
      }
    }
  }
}
