package dev.sluice.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every (state, input) pair of the placement state machine, against the table below (the spec). */
class AssignmentTransitionsTest {

  /** state | input | next | effects ("-": nothing happens). */
  private static final String TABLE = """
      UNASSIGNED | PLACE          | ASSIGNED   | PICK_OWNER ISSUE_TOKEN WRITE
      UNASSIGNED | OWNER_LOST     | UNASSIGNED | -
      UNASSIGNED | OWNER_DRAINING | UNASSIGNED | -
      UNASSIGNED | REBALANCE      | UNASSIGNED | -
      UNASSIGNED | RELEASED       | UNASSIGNED | -
      UNASSIGNED | TARGET_LOST    | UNASSIGNED | -
      UNASSIGNED | MOVE_ABANDONED | UNASSIGNED | -
      UNASSIGNED | MOVE_TIMED_OUT | UNASSIGNED | -
      UNASSIGNED | REMOVED        | UNASSIGNED | -
      ASSIGNED   | PLACE          | ASSIGNED   | -
      ASSIGNED   | OWNER_LOST     | ASSIGNED   | PICK_OWNER ISSUE_TOKEN WRITE
      ASSIGNED   | OWNER_DRAINING | MOVING     | PICK_TARGET WRITE
      ASSIGNED   | REBALANCE      | MOVING     | PICK_TARGET WRITE
      ASSIGNED   | RELEASED       | ASSIGNED   | -
      ASSIGNED   | TARGET_LOST    | ASSIGNED   | -
      ASSIGNED   | MOVE_ABANDONED | ASSIGNED   | -
      ASSIGNED   | MOVE_TIMED_OUT | ASSIGNED   | -
      ASSIGNED   | REMOVED        | UNASSIGNED | DELETE
      MOVING     | PLACE          | MOVING     | -
      MOVING     | OWNER_LOST     | ASSIGNED   | PROMOTE_TARGET ISSUE_TOKEN WRITE
      MOVING     | OWNER_DRAINING | MOVING     | -
      MOVING     | REBALANCE      | MOVING     | -
      MOVING     | RELEASED       | ASSIGNED   | PROMOTE_TARGET ISSUE_TOKEN WRITE
      MOVING     | TARGET_LOST    | MOVING     | PICK_TARGET WRITE
      MOVING     | MOVE_ABANDONED | ASSIGNED   | PICK_OWNER ISSUE_TOKEN WRITE
      MOVING     | MOVE_TIMED_OUT | ASSIGNED   | PROMOTE_TARGET ISSUE_TOKEN WRITE
      MOVING     | REMOVED        | UNASSIGNED | DELETE
      """;

  static Stream<Arguments> everyPair() {
    Map<String, AssignmentTransition> expected = new HashMap<>();
    for (String line : TABLE.strip().split("\n")) {
      String[] c = Arrays.stream(line.split("\\|")).map(String::trim).toArray(String[]::new);
      List<AssignmentEffect> effects = c[3].equals("-") ? List.of()
          : Arrays.stream(c[3].split(" ")).map(AssignmentEffect::valueOf).toList();
      expected.put(c[0] + "+" + c[1], new AssignmentTransition(AssignmentState.valueOf(c[2]), effects,
          !effects.isEmpty()));
    }
    List<Arguments> out = new ArrayList<>();
    for (AssignmentState s : EnumSet.allOf(AssignmentState.class)) {
      for (AssignmentInput i : EnumSet.allOf(AssignmentInput.class)) {
        AssignmentTransition t = expected.get(s + "+" + i);
        assertThat(t).as("the table decides " + s + " + " + i).isNotNull();
        out.add(Arguments.of(s, i, t));
      }
    }
    assertThat(out).hasSize(expected.size());
    return out.stream();
  }

  @ParameterizedTest(name = "{0} + {1} -> {2}")
  @MethodSource("everyPair")
  void transitionFollowsTheTable(AssignmentState from, AssignmentInput input, AssignmentTransition expected) {
    assertThat(AssignmentTransitions.apply(from, input)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} + {1}: a new owner always gets a new token")
  @MethodSource("everyPair")
  void everyChangeOfOwnerIssuesANewToken(AssignmentState from, AssignmentInput input, AssignmentTransition ignored) {
    AssignmentTransition t = AssignmentTransitions.apply(from, input);
    boolean newOwner = t.effects().contains(AssignmentEffect.PICK_OWNER)
        || t.effects().contains(AssignmentEffect.PROMOTE_TARGET);
    assertThat(t.effects().contains(AssignmentEffect.ISSUE_TOKEN)).isEqualTo(newOwner);
  }
}
