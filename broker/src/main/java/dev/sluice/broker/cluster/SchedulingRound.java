package dev.sluice.broker.cluster;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the coordinator observes in one scheduling round: for each changefeed, the input (if any) that
 * its assignment, its owner's and target's member info and the clock amount to, and the owners to pick
 * from. At most one rebalancing move per round, and none while another move is in flight, so the
 * cluster converges without a storm. Pure: the caller passes everything in, {@code nowMs} included.
 *
 * <pre>{@code
 * SchedulingRound round = new SchedulingRound(changefeeds, assignments, members, now, moveTimeoutMs);
 * for (SchedulingRound.Decision d : round.decisions()) { ... AssignmentTransitions.apply(d.state(), d.input()) ... }
 * }</pre>
 */
public final class SchedulingRound {

  /** One changefeed's observation: its current state and what happened to it. */
  public record Decision(String changefeedId, AssignmentState state, AssignmentInput input, Assignment current) {}

  private final Map<String, PlacedChangefeed> changefeeds = new TreeMap<>();
  private final Map<String, Assignment> assignments;
  private final Map<String, MemberInfo> members = new HashMap<>();
  private final long nowMs;
  private final long moveTimeoutMs;

  public SchedulingRound(Collection<PlacedChangefeed> changefeeds, Map<String, Assignment> assignments,
      Collection<MemberInfo> members, long nowMs, long moveTimeoutMs) {
    changefeeds.forEach(c -> this.changefeeds.put(c.id(), c));
    this.assignments = new TreeMap<>(assignments);
    members.forEach(m -> this.members.put(m.nodeId(), m));
    this.nowMs = nowMs;
    this.moveTimeoutMs = moveTimeoutMs;
  }

  /** Every changefeed that needs a transition this round, in id order (rebalancing last, at most one). */
  public List<Decision> decisions() {
    List<Decision> out = new ArrayList<>();
    boolean moving = false;
    for (PlacedChangefeed c : changefeeds.values()) {
      Assignment a = assignments.get(c.id());
      AssignmentInput input = observe(c, a);
      if (a != null && a.state() == AssignmentState.MOVING) {
        moving = true;
      }
      if (input != null) {
        out.add(new Decision(c.id(), a == null ? AssignmentState.UNASSIGNED : a.state(), input, a));
        if (input == AssignmentInput.OWNER_DRAINING) {
          moving = true;
        }
      }
    }
    for (Map.Entry<String, Assignment> e : assignments.entrySet()) {
      if (!changefeeds.containsKey(e.getKey())) {   // its record is gone from the cluster: nothing to host
        out.add(new Decision(e.getKey(), e.getValue().state(), AssignmentInput.REMOVED, e.getValue()));
      }
    }
    if (!moving && out.isEmpty()) {
      rebalance().ifPresent(out::add);
    }
    return out;
  }

  private AssignmentInput observe(PlacedChangefeed c, Assignment a) {
    if (c.removed()) {
      return a == null ? null : AssignmentInput.REMOVED;
    }
    if (a == null) {
      return AssignmentInput.PLACE;
    }
    MemberInfo owner = members.get(a.nodeId());
    boolean ownerGone = owner == null || owner.state() == MemberState.UNREACHABLE;
    if (a.state() == AssignmentState.ASSIGNED) {
      if (ownerGone || fencedOut(owner, a)) {
        return AssignmentInput.OWNER_LOST;
      }
      if (owner.state() == MemberState.DRAINING && pickTarget(a.nodeId()).isPresent()) {
        return AssignmentInput.OWNER_DRAINING;
      }
      return null;
    }
    // MOVING
    if (ownerGone) {
      return AssignmentInput.OWNER_LOST;
    }
    MemberInfo target = members.get(a.target());
    if (target == null || !target.serving()) {
      if (pickTarget(a.nodeId()).isPresent()) {
        return AssignmentInput.TARGET_LOST;
      }
      // no other target: the owner (or, draining, nobody until a member serves) keeps it
      return pickOwner().isPresent() ? AssignmentInput.MOVE_ABANDONED : null;
    }
    if (!owner.hosting().containsKey(c.id())) {
      return AssignmentInput.RELEASED;
    }
    if (nowMs - a.sinceMs() >= moveTimeoutMs) {
      return AssignmentInput.MOVE_TIMED_OUT;
    }
    return null;
  }

  /** A sink showed the owner a token at least as high as its own: only a newer owner (or a CP reset) did that. */
  private static boolean fencedOut(MemberInfo owner, Assignment a) {
    Long seen = owner.fencedOut().get(a.changefeedId());
    return seen != null && seen >= a.token();
  }

  /** The highest token a sink showed any member (the coordinator raises its counter above it). */
  public long highestFencedToken() {
    return members.values().stream().flatMap(m -> m.fencedOut().values().stream()).mapToLong(Long::longValue).max()
        .orElse(0);
  }

  /** Whether {@code nodeId} is a serving member now. */
  public boolean isServing(String nodeId) {
    MemberInfo m = nodeId == null ? null : members.get(nodeId);
    return m != null && m.serving();
  }

  /** The least loaded serving member, ties to the lowest node id. */
  public Optional<String> pickOwner() {
    return pickAmong(null);
  }

  /** The least loaded serving member other than {@code owner}. */
  public Optional<String> pickTarget(String owner) {
    return pickAmong(owner);
  }

  private Optional<String> pickAmong(String excluded) {
    Map<String, Integer> load = load();
    return members.values().stream().filter(MemberInfo::serving).map(MemberInfo::nodeId)
        .filter(n -> !n.equals(excluded))
        .min(Comparator.<String>comparingInt(n -> load.getOrDefault(n, 0)).thenComparing(Comparator.naturalOrder()));
  }

  /** Changefeeds per node, counting a move's target as its host. */
  Map<String, Integer> load() {
    Map<String, Integer> load = new HashMap<>();
    for (Assignment a : assignments.values()) {
      load.merge(a.state() == AssignmentState.MOVING ? a.target() : a.nodeId(), 1, Integer::sum);
    }
    return load;
  }

  /** One move from the most to the least loaded serving member when they differ by more than one. */
  private Optional<Decision> rebalance() {
    Map<String, Integer> load = load();
    List<MemberInfo> serving = members.values().stream().filter(MemberInfo::serving).toList();
    if (serving.size() < 2) {
      return Optional.empty();
    }
    MemberInfo most = serving.stream().max(Comparator.<MemberInfo>comparingInt(m -> load.getOrDefault(m.nodeId(), 0))
        .thenComparing(MemberInfo::nodeId)).orElseThrow();
    MemberInfo least = serving.stream().min(Comparator.<MemberInfo>comparingInt(m -> load.getOrDefault(m.nodeId(), 0))
        .thenComparing(MemberInfo::nodeId)).orElseThrow();
    if (load.getOrDefault(most.nodeId(), 0) - load.getOrDefault(least.nodeId(), 0) <= 1) {
      return Optional.empty();
    }
    return assignments.values().stream()
        .filter(a -> a.state() == AssignmentState.ASSIGNED && a.nodeId().equals(most.nodeId()))
        .filter(a -> changefeeds.containsKey(a.changefeedId()) && !changefeeds.get(a.changefeedId()).removed())
        .findFirst()
        .map(a -> new Decision(a.changefeedId(), AssignmentState.ASSIGNED, AssignmentInput.REBALANCE, a));
  }
}
