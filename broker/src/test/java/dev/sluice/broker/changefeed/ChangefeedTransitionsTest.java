package dev.sluice.broker.changefeed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The changefeed state machine, pair by pair: the table below is the specification. */
class ChangefeedTransitionsTest {

  /** state | input | next state and effects, or "illegal" (409) / "ignore". */
  private static final String TABLE = """
      NORMAL   | CREATE         | illegal
      NORMAL   | PAUSE          | PAUSED STOP_RUNTIME
      NORMAL   | RESUME         | ignore
      NORMAL   | UPDATE         | NORMAL RESTART_RUNTIME
      NORMAL   | FAIL_TRANSIENT | FAILED STOP_RUNTIME SCHEDULE_RETRY
      NORMAL   | FAIL_FATAL     | FAILED STOP_RUNTIME
      NORMAL   | RETRY_DUE      | ignore
      NORMAL   | DELETE         | REMOVING STOP_RUNTIME START_CLEANUP
      NORMAL   | PURGE          | REMOVING STOP_RUNTIME START_CLEANUP
      NORMAL   | CLEANUP_DONE   | illegal
      NORMAL   | CLEANUP_FAILED | illegal
      PAUSED   | CREATE         | illegal
      PAUSED   | PAUSE          | ignore
      PAUSED   | RESUME         | NORMAL CLEAR_RETRY START_RUNTIME
      PAUSED   | UPDATE         | PAUSED
      PAUSED   | FAIL_TRANSIENT | ignore
      PAUSED   | FAIL_FATAL     | ignore
      PAUSED   | RETRY_DUE      | ignore
      PAUSED   | DELETE         | REMOVING START_CLEANUP
      PAUSED   | PURGE          | REMOVING START_CLEANUP
      PAUSED   | CLEANUP_DONE   | illegal
      PAUSED   | CLEANUP_FAILED | illegal
      FAILED   | CREATE         | illegal
      FAILED   | PAUSE          | PAUSED CLEAR_RETRY
      FAILED   | RESUME         | NORMAL CLEAR_RETRY START_RUNTIME
      FAILED   | UPDATE         | FAILED
      FAILED   | FAIL_TRANSIENT | ignore
      FAILED   | FAIL_FATAL     | ignore
      FAILED   | RETRY_DUE      | NORMAL START_RUNTIME
      FAILED   | DELETE         | REMOVING CLEAR_RETRY START_CLEANUP
      FAILED   | PURGE          | REMOVING CLEAR_RETRY START_CLEANUP
      FAILED   | CLEANUP_DONE   | illegal
      FAILED   | CLEANUP_FAILED | illegal
      REMOVING | CREATE         | illegal
      REMOVING | PAUSE          | illegal
      REMOVING | RESUME         | illegal
      REMOVING | UPDATE         | illegal
      REMOVING | FAIL_TRANSIENT | ignore
      REMOVING | FAIL_FATAL     | ignore
      REMOVING | RETRY_DUE      | REMOVING START_CLEANUP
      REMOVING | DELETE         | REMOVING START_CLEANUP
      REMOVING | PURGE          | REMOVING START_CLEANUP
      REMOVING | CLEANUP_DONE   | REMOVED FINISH_REMOVAL
      REMOVING | CLEANUP_FAILED | REMOVING SCHEDULE_CLEANUP_RETRY
      REMOVED  | CREATE         | NORMAL CLEAR_RETRY START_RUNTIME
      REMOVED  | PAUSE          | illegal
      REMOVED  | RESUME         | illegal
      REMOVED  | UPDATE         | illegal
      REMOVED  | DELETE         | illegal
      REMOVED  | PURGE          | REMOVING START_CLEANUP
      REMOVED  | FAIL_TRANSIENT | ignore
      REMOVED  | FAIL_FATAL     | ignore
      REMOVED  | RETRY_DUE      | ignore
      REMOVED  | CLEANUP_DONE   | ignore
      REMOVED  | CLEANUP_FAILED | ignore
      """;

  private static Map<String, ChangefeedTransition> expected() {
    Map<String, ChangefeedTransition> rows = new HashMap<>();
    for (String line : TABLE.strip().split("\n")) {
      String[] cols = line.split("\\|");
      ChangefeedState from = ChangefeedState.valueOf(cols[0].trim());
      String key = from + " " + cols[1].trim();
      String[] outcome = cols[2].trim().split("\\s+");
      ChangefeedTransition t = switch (outcome[0]) {
        case "illegal" -> ChangefeedTransition.illegal(from);
        case "ignore" -> ChangefeedTransition.ignore(from);
        default -> new ChangefeedTransition(ChangefeedState.valueOf(outcome[0]),
            Arrays.stream(outcome).skip(1).map(ChangefeedEffect::valueOf).toList(), true);
      };
      assertThat(rows.put(key, t)).as("duplicate row " + key).isNull();
    }
    return rows;
  }

  static Stream<Arguments> everyPair() {
    Map<String, ChangefeedTransition> rows = expected();
    List<Arguments> out = new ArrayList<>();
    for (ChangefeedState s : EnumSet.allOf(ChangefeedState.class)) {
      for (ChangefeedInput i : EnumSet.allOf(ChangefeedInput.class)) {
        out.add(Arguments.of(s, i, rows.get(s + " " + i)));
      }
    }
    assertThat(rows).hasSize(out.size());   // no row for a pair that does not exist
    return out.stream();
  }

  @ParameterizedTest(name = "{0} + {1} -> {2}")
  @MethodSource("everyPair")
  void transitionFollowsTheTable(ChangefeedState from, ChangefeedInput input, ChangefeedTransition expected) {
    assertThat(expected).as("the table has no row for " + from + " + " + input).isNotNull();
    assertThat(ChangefeedTransitions.apply(from, input)).isEqualTo(expected);
  }

  @Provide
  Arbitrary<List<ChangefeedInput>> inputs() {
    return Arbitraries.of(ChangefeedInput.class).list().ofMaxSize(40);
  }

  /** Whatever happens, a deletion is never abandoned: once REMOVING, only its completion leaves it. */
  @Property(tries = 500)
  void removingIsLeftOnlyByACompletedCleanup(@ForAll("inputs") List<ChangefeedInput> inputs) {
    ChangefeedState state = ChangefeedState.NORMAL;
    for (ChangefeedInput input : inputs) {
      ChangefeedTransition t = ChangefeedTransitions.apply(state, input);
      if (state == ChangefeedState.REMOVING && t.next() != ChangefeedState.REMOVING) {
        assertThat(input).isEqualTo(ChangefeedInput.CLEANUP_DONE);
      }
      if (t.next() == ChangefeedState.NORMAL && state != ChangefeedState.NORMAL) {
        assertThat(t.effects()).contains(ChangefeedEffect.START_RUNTIME);   // NORMAL always means a runtime
      }
      if (state == ChangefeedState.NORMAL && t.next() != ChangefeedState.NORMAL) {
        assertThat(t.effects()).contains(ChangefeedEffect.STOP_RUNTIME);    // and leaving it stops the runtime
      }
      state = t.next();
    }
  }
}
