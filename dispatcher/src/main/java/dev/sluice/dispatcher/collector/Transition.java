package dev.sluice.dispatcher.collector;

import java.util.List;
import java.util.Objects;

/**
 * The decision for one (state, input) pair: the next state and the effects to execute, in order.
 * An {@link #ignore ignored} pair keeps the state and does nothing.
 *
 * <pre>{@code
 * Transition t = DispatcherTransitions.apply(DispatcherState.STREAMING, DispatcherInput.SEQUENCE_VIOLATION);
 * // t.next() == RESETTING, t.effects() == [SEND_RESET]
 * }</pre>
 *
 * @param next    the state after the input
 * @param effects what to do, in order; empty for an ignored pair
 */
record Transition(DispatcherState next, List<DispatcherEffect> effects) {

  public Transition {
    Objects.requireNonNull(next, "next");
    effects = List.copyOf(effects);
  }

  /** Move to {@code next} and execute {@code effects} in order. */
  public static Transition to(DispatcherState next, DispatcherEffect... effects) {
    return new Transition(next, List.of(effects));
  }

  /** Stay in {@code state} and do nothing. */
  public static Transition ignore(DispatcherState state) {
    return new Transition(state, List.of());
  }

  /** Whether the transition leaves {@code from} unchanged and does nothing. */
  public boolean isIgnoreOf(DispatcherState from) {
    return next == from && effects.isEmpty();
  }

  @Override
  public String toString() {
    return "-> " + next + " " + effects;
  }
}
