package dev.sluice.broker.cluster;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

/**
 * A node without {@code --cluster-join}: it is the only member and always the coordinator, its maps
 * live in memory (the records are persisted by the node's changefeed store anyway) and its tokens come
 * from its own persisted floor. No Hazelcast class is loaded.
 */
final class StandaloneNode implements ClusterNode {

  private final ClusterConfig config;
  private final TokenFloor floor;
  private final LocalMembership membership;
  private final LocalCoordinator coordinator;
  private final Assignments assignments = new Assignments(new LocalMap());
  private final LocalMap records = new LocalMap();

  StandaloneNode(ClusterConfig config, String nodeId, TokenFloor floor) {
    this.config = config;
    this.floor = floor;
    this.membership = new LocalMembership(nodeId);
    this.coordinator = new LocalCoordinator(floor);
  }

  @Override
  public Membership membership() {
    return membership;
  }

  @Override
  public Coordinator coordinator() {
    return coordinator;
  }

  @Override
  public Assignments assignments() {
    return assignments;
  }

  @Override
  public ClusterMap changefeedRecords() {
    return records;
  }

  @Override
  public TokenFloor tokenFloor() {
    return floor;
  }

  @Override
  public ClusterConfig config() {
    return config;
  }

  @Override
  public void close() {
    // nothing was opened
  }

  /** The node itself. */
  static final class LocalMembership implements Membership {
    private final String nodeId;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private volatile MemberInfo self;

    LocalMembership(String nodeId) {
      this.nodeId = nodeId;
      this.self = MemberInfo.starting(nodeId, 0, "", "", "");
    }

    @Override
    public String localNodeId() {
      return nodeId;
    }

    @Override
    public List<MemberInfo> members() {
      return List.of(self);
    }

    @Override
    public void publish(MemberInfo info) {
      MemberInfo before = self;
      self = info;
      if (before.state() != info.state() || !before.hosting().equals(info.hosting())
          || !before.fencedOut().equals(info.fencedOut())) {
        listeners.forEach(Runnable::run);
      }
    }

    @Override
    public void onChange(Runnable listener) {
      listeners.add(listener);
    }

    @Override
    public boolean clustered() {
      return false;
    }

    @Override
    public boolean allPublished() {
      return true;
    }
  }

  /** Always this node; tokens from the persisted floor. */
  static final class LocalCoordinator implements Coordinator {
    private final TokenFloor floor;

    LocalCoordinator(TokenFloor floor) {
      this.floor = floor;
    }

    @Override
    public boolean isLocal() {
      return true;
    }

    @Override
    public synchronized long nextToken() {
      long next = floor.value() + 1;
      floor.observe(next);
      return next;
    }

    @Override
    public synchronized void raiseFloor(long value) {
      floor.observe(value);
    }

    @Override
    public void onChange(Runnable listener) {
      // never changes
    }

    @Override
    public CoordinatorStatus status() {
      return new CoordinatorStatus(CoordinatorStatus.Phase.STANDALONE, "a standalone node coordinates itself", 0, 0);
    }
  }

  /** An in-memory map; listeners run on the writing thread. */
  static final class LocalMap implements ClusterMap {
    private final Map<String, String> map = new ConcurrentHashMap<>();
    private final List<BiConsumer<String, String>> listeners = new CopyOnWriteArrayList<>();

    @Override
    public Optional<String> get(String key) {
      return Optional.ofNullable(map.get(key));
    }

    @Override
    public Map<String, String> snapshot() {
      return Map.copyOf(map);
    }

    @Override
    public void put(String key, String value) {
      map.put(key, value);
      listeners.forEach(l -> l.accept(key, value));
    }

    @Override
    public boolean replace(String key, String expected, String value) {
      boolean done = expected == null ? map.putIfAbsent(key, value) == null : map.replace(key, expected, value);
      if (done) {
        listeners.forEach(l -> l.accept(key, value));
      }
      return done;
    }

    @Override
    public void remove(String key) {
      if (map.remove(key) != null) {
        listeners.forEach(l -> l.accept(key, null));
      }
    }

    @Override
    public void onChange(BiConsumer<String, String> listener) {
      listeners.add(listener);
    }
  }
}
