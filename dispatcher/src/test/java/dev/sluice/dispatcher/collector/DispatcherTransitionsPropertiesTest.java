package dev.sluice.dispatcher.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random input sequences through {@link DispatcherTransitions}, executed against a small model of
 * the collector (epoch counter, reset-in-flight flag): the epoch never decreases, REMOVED absorbs
 * everything, at most one reset is in flight, and the listener hears of a failure at most once.
 */
class DispatcherTransitionsPropertiesTest {

  /** Inputs that are the broker's answer to the RESET in flight (a message of the current epoch or an ack). */
  private static final Set<DispatcherInput> ANSWERS_TO_RESET = EnumSet.of(
      DispatcherInput.HANDSHAKE, DispatcherInput.EVENTS, DispatcherInput.RESOLVED,
      DispatcherInput.SEQUENCE_VIOLATION, DispatcherInput.ACK_STALE, DispatcherInput.ACK_NOT_FOUND,
      DispatcherInput.ACK_REJECTED, DispatcherInput.ACK_RETRYABLE);

  @Provide
  Arbitrary<List<DispatcherInput>> inputs() {
    return Arbitraries.of(DispatcherInput.class).list().ofMinSize(1).ofMaxSize(60);
  }

  @Property(tries = 2000)
  void epochNeverDecreasesAndRemovedAbsorbsAndOneResetInFlight(@ForAll("inputs") List<DispatcherInput> inputs) {
    DispatcherState state = DispatcherState.REGISTERING;
    long epoch = 0;
    boolean resetInFlight = false;
    int errorsNotified = 0;
    for (DispatcherInput input : inputs) {
      Transition t = DispatcherTransitions.apply(state, input);
      if (state == DispatcherState.REMOVED) {
        assertThat(t).as("REMOVED + %s", input).isEqualTo(Transition.ignore(DispatcherState.REMOVED));
      }
      if (state == DispatcherState.RESETTING && ANSWERS_TO_RESET.contains(input)) {
        resetInFlight = false;
      }
      long before = epoch;
      for (DispatcherEffect effect : t.effects()) {
        switch (effect) {
          case SEND_RESET -> {
            assertThat(resetInFlight).as("second reset in flight after %s in %s; inputs %s", input, state, inputs)
                .isFalse();
            epoch++;                 // bump first, then send
            resetInFlight = true;
          }
          case NOTIFY_ERROR -> errorsNotified++;
          default -> { }
        }
      }
      assertThat(epoch).isGreaterThanOrEqualTo(before);
      if (t.next() != DispatcherState.RESETTING) {
        resetInFlight = false;       // the reset was answered, or the stream that carried it is gone
      }
      assertThat(t.effects().contains(DispatcherEffect.SEND_RESET))
          .as("a reset is only sent into RESETTING").isEqualTo(
              t.effects().contains(DispatcherEffect.SEND_RESET) && t.next() == DispatcherState.RESETTING);
      state = t.next();
    }
    assertThat(errorsNotified).isLessThanOrEqualTo(1);
  }

  @Property(tries = 500)
  void closeAlwaysEndsInRemovedWhateverCameBefore(@ForAll("inputs") List<DispatcherInput> inputs) {
    DispatcherState state = DispatcherState.REGISTERING;
    for (DispatcherInput input : inputs) {
      state = DispatcherTransitions.apply(state, input).next();
    }
    assertThat(DispatcherTransitions.apply(state, DispatcherInput.CLOSE).next()).isEqualTo(DispatcherState.REMOVED);
  }
}
