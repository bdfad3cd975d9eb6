package dev.sluice.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The coordinator's rounds against a model cluster: random members coming and going, draining and
 * changefeeds created and removed, with owners that stop hosting when asked (MOVING) and host what they
 * are assigned. Each round's decisions are applied as the {@link Scheduler} applies them.
 */
class SchedulingRoundProperties {

  record Step(int kind, int node, int changefeed) {}

  @Provide
  Arbitrary<List<Step>> steps() {
    return Combinators.combine(Arbitraries.integers().between(0, 5), Arbitraries.integers().between(0, 3),
        Arbitraries.integers().between(0, 5)).as(Step::new).list().ofMinSize(1).ofMaxSize(60);
  }

  /**
   * Every live changefeed ends up on a serving member once the cluster is quiet; while any member serves,
   * no assignment names a member that is not there after a round; tokens only grow; a draining member
   * ends up hosting nothing.
   */
  @Property(tries = 300)
  void placementsConvergeOnServingMembersWithGrowingTokens(@ForAll("steps") List<Step> steps) {
    Map<String, MemberState> members = new HashMap<>(Map.of("n0", MemberState.SERVING, "n1", MemberState.SERVING));
    Map<String, PlacedChangefeed> feeds = new HashMap<>();
    Map<String, Assignment> assignments = new HashMap<>();
    long[] tokens = {0};
    long now = 0;
    for (Step s : steps) {
      String node = "n" + s.node();
      String cf = "cf" + s.changefeed();
      switch (s.kind()) {
        case 0 -> members.put(node, MemberState.SERVING);
        case 1 -> members.remove(node);
        case 2 -> members.computeIfPresent(node, (k, v) -> MemberState.DRAINING);
        case 3 -> feeds.put(cf, new PlacedChangefeed(cf, false));
        case 4 -> feeds.computeIfPresent(cf, (k, v) -> new PlacedChangefeed(cf, true));
        default -> { }
      }
      now += 1_000;
      round(members, feeds, assignments, tokens, now);
      if (members.containsValue(MemberState.SERVING)) {
        for (Assignment a : assignments.values()) {
          assertThat(members).as("assignment %s names a member", a).containsKey(a.nodeId());
        }
      }
    }
    for (int quiet = 0; quiet < 40; quiet++) {
      now += 1_000;
      round(members, feeds, assignments, tokens, now);
    }
    boolean anyServing = members.values().contains(MemberState.SERVING);
    for (Assignment a : assignments.values()) {
      if (anyServing) {
        assertThat(members.get(a.nodeId())).as("a draining member is emptied: %s", a).isEqualTo(MemberState.SERVING);
      }
    }
    for (PlacedChangefeed f : feeds.values()) {
      if (f.removed()) {
        assertThat(assignments).doesNotContainKey(f.id());
      } else if (anyServing) {
        Assignment a = assignments.get(f.id());
        assertThat(a).as(f.id() + " placed").isNotNull();
        assertThat(a.state()).isEqualTo(AssignmentState.ASSIGNED);
        assertThat(members.get(a.nodeId())).isEqualTo(MemberState.SERVING);
      }
    }
  }

  /**
   * Found by the property: the only other member joins, a rebalance moves a changefeed to it, the owner
   * lets go and the target leaves. With no other target the move must fall back to the owner, not stay
   * MOVING with nobody hosting it.
   */
  @Example
  void aMoveWhoseTargetLeftWithNoOtherTargetGoesBackToTheOwner() {
    placementsConvergeOnServingMembersWithGrowingTokens(List.of(new Step(1, 0, 0), new Step(3, 0, 0),
        new Step(3, 0, 1), new Step(0, 3, 0), new Step(1, 3, 0)));
  }

  private static void round(Map<String, MemberState> members, Map<String, PlacedChangefeed> feeds,
      Map<String, Assignment> assignments, long[] tokens, long now) {
    List<MemberInfo> infos = new ArrayList<>();
    for (Map.Entry<String, MemberState> m : members.entrySet()) {
      // an owner hosts what is ASSIGNED to it; asked to move (MOVING) it has let go by the next round
      Map<String, Long> hosting = assignments.values().stream()
          .filter(a -> a.nodeId().equals(m.getKey()) && a.state() == AssignmentState.ASSIGNED)
          .collect(Collectors.toMap(Assignment::changefeedId, Assignment::token));
      infos.add(new MemberInfo(m.getKey(), 1, "", "", "", m.getValue(), 0, 0, 0, false, 0, hosting, Map.of(), true, now));
    }
    SchedulingRound round = new SchedulingRound(feeds.values(), assignments, infos, now, 30_000);
    for (SchedulingRound.Decision d : round.decisions()) {
      AssignmentTransition t = AssignmentTransitions.apply(d.state(), d.input());
      String owner = d.current() == null ? null : d.current().nodeId();
      String target = d.current() == null ? null : d.current().target();
      long token = d.current() == null ? 0 : d.current().token();
      boolean skip = false;
      for (AssignmentEffect e : t.effects()) {
        switch (e) {
          case PICK_OWNER -> {
            var p = round.pickOwner();
            skip |= p.isEmpty();
            owner = p.orElse(null);
          }
          case PICK_TARGET -> {
            var p = round.pickTarget(owner);
            skip |= p.isEmpty();
            target = p.orElse(null);
          }
          case PROMOTE_TARGET -> {
            var p = round.isServing(target) ? java.util.Optional.of(target) : round.pickOwner();
            skip |= p.isEmpty();
            owner = p.orElse(null);
            target = null;
          }
          case ISSUE_TOKEN -> {
            long next = ++tokens[0];
            assertThat(next).isGreaterThan(token);
            token = next;
          }
          case WRITE -> {
            if (!skip) {
              assignments.put(d.changefeedId(), t.next() == AssignmentState.MOVING
                  ? new Assignment(d.changefeedId(), AssignmentState.MOVING, owner, token, target, now)
                  : Assignment.assigned(d.changefeedId(), owner, token, now));
            }
          }
          case DELETE -> assignments.remove(d.changefeedId());
        }
        if (skip) {
          break;
        }
      }
    }
    assignments.keySet().retainAll(Set.copyOf(feeds.keySet()));
  }
}
