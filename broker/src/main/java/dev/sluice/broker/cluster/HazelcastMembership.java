package dev.sluice.broker.cluster;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Membership over Hazelcast: each node writes its {@link MemberInfo} into the {@code sluice.members}
 * map under its node id; this view keeps a local copy (entry events plus a full re-read every few
 * seconds, which also catches what a healed split merged) and shows a member UNREACHABLE while its
 * Hazelcast member is not in the cluster. An UNREACHABLE entry older than the retention is deleted by
 * the oldest live member; a node leaving cleanly deletes its own.
 */
final class HazelcastMembership implements Membership {

  private static final Logger log = LoggerFactory.getLogger(HazelcastMembership.class);

  private final HazelcastInstance hz;
  private final IMap<String, String> map;
  private final String nodeId;
  private final long retentionMs;
  private final LongSupplier nowMs;
  private final Map<String, MemberInfo> known = new ConcurrentHashMap<>();
  private final Map<String, Long> unreachableSince = new ConcurrentHashMap<>();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private volatile MemberInfo self;

  HazelcastMembership(HazelcastInstance hz, String nodeId, long retentionMs, LongSupplier nowMs) {
    this.hz = hz;
    this.map = hz.getMap(HazelcastSettings.MEMBERS);
    this.nodeId = nodeId;
    this.retentionMs = retentionMs;
    this.nowMs = nowMs;
    this.self = MemberInfo.starting(nodeId, 0, localUuid(), "", "");
    new HazelcastMap(map).onChange((key, value) -> {
      if (value == null) {
        known.remove(key);
      } else {
        known.put(key, MemberInfo.fromJson(new JsonObject(value)));
      }
      fire();
    });
    hz.getCluster().addMembershipListener(new MembershipListener() {
      @Override
      public void memberAdded(MembershipEvent e) {
        log.atInfo().addKeyValue("nodeId", nodeId).addKeyValue("member", e.getMember().getAddress())
            .log("cluster member joined");
        fire();
      }

      @Override
      public void memberRemoved(MembershipEvent e) {
        log.atWarn().addKeyValue("nodeId", nodeId).addKeyValue("member", e.getMember().getAddress())
            .log("cluster member left");
        fire();
      }
    });
    refresh();
  }

  String localUuid() {
    return hz.getCluster().getLocalMember().getUuid().toString();
  }

  /** Re-reads every entry (periodically, and after a split healed) and expires old UNREACHABLE ones. */
  void refresh() {
    Map<String, MemberInfo> fresh = new java.util.HashMap<>();
    for (Map.Entry<String, String> e : map.entrySet()) {
      fresh.put(e.getKey(), MemberInfo.fromJson(new JsonObject(e.getValue())));
    }
    known.keySet().retainAll(fresh.keySet());
    known.putAll(fresh);
    if (!self.grpcAddress().isEmpty() && !fresh.containsKey(nodeId)) {
      map.set(nodeId, self.toJson().encode());   // lost in a merge: publish again
    }
    expireUnreachable();
  }

  private void expireUnreachable() {
    Set<String> live = liveUuids();
    long now = nowMs.getAsLong();
    boolean oldest = hz.getCluster().getMembers().iterator().next().localMember();
    for (MemberInfo m : known.values()) {
      if (live.contains(m.memberUuid())) {
        unreachableSince.remove(m.nodeId());
        continue;
      }
      long since = unreachableSince.computeIfAbsent(m.nodeId(), k -> now);
      if (oldest && now - since >= retentionMs && !m.nodeId().equals(nodeId)) {
        log.atInfo().addKeyValue("nodeId", nodeId).addKeyValue("member", m.nodeId())
            .log("forgetting a member unreachable for longer than the retention");
        map.remove(m.nodeId(), known.get(m.nodeId()).toJson().encode());
        known.remove(m.nodeId());
        unreachableSince.remove(m.nodeId());
      }
    }
  }

  private Set<String> liveUuids() {
    Set<String> live = new HashSet<>();
    for (Member m : hz.getCluster().getMembers()) {
      live.add(m.getUuid().toString());
    }
    return live;
  }

  @Override
  public String localNodeId() {
    return nodeId;
  }

  @Override
  public List<MemberInfo> members() {
    Set<String> live = liveUuids();
    List<MemberInfo> out = new ArrayList<>();
    for (MemberInfo m : known.values()) {
      if (m.nodeId().equals(nodeId)) {
        continue;
      }
      out.add(live.contains(m.memberUuid()) ? m : m.withState(MemberState.UNREACHABLE));
    }
    out.add(self);
    out.sort(Comparator.comparing(MemberInfo::nodeId));
    return out;
  }

  @Override
  public void publish(MemberInfo info) {
    MemberInfo mine = new MemberInfo(info.nodeId(), info.incarnation(), localUuid(), info.grpcAddress(),
        info.adminAddress(), info.state(), info.servableFromTs(), info.resolvedTs(), info.captureLagMs(),
        info.coordinator(), info.tokenFloor(), info.hosting(), info.fencedOut(), info.cpMember(), info.updatedAtMs());
    self = mine;
    map.set(nodeId, mine.toJson().encode());
  }

  /** Deletes this node's entry (a clean leave: the others do not show it UNREACHABLE). */
  void leave() {
    try {
      map.delete(nodeId);
    } catch (RuntimeException e) {
      log.atWarn().addKeyValue("nodeId", nodeId).setCause(e).log("could not delete this node's member entry");
    }
  }

  @Override
  public void onChange(Runnable listener) {
    listeners.add(listener);
  }

  private void fire() {
    for (Runnable l : listeners) {
      try {
        l.run();
      } catch (RuntimeException e) {
        log.atWarn().setCause(e).log("membership listener failed");
      }
    }
  }

  @Override
  public boolean clustered() {
    return true;
  }

  @Override
  public boolean allPublished() {
    Set<String> published = new HashSet<>();
    known.values().forEach(m -> published.add(m.memberUuid()));
    published.add(localUuid());
    return published.containsAll(liveUuids());
  }
}
