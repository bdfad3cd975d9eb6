package dev.sluice.broker.changefeed;

import java.util.List;
import java.util.Objects;

/**
 * The decision for one (state, input) pair: the next state and the effects to run, or that the pair
 * is not allowed (an operator's request answered 409 with the current state).
 *
 * <pre>{@code
 * ChangefeedTransition t = ChangefeedTransitions.apply(ChangefeedState.NORMAL, ChangefeedInput.PAUSE);
 * // t.next() == PAUSED, t.effects() == [STOP_RUNTIME]
 * }</pre>
 *
 * @param next    the state after the input (the current one when ignored or illegal)
 * @param effects what to do, in order
 * @param allowed false when the input is not allowed in that state
 */
public record ChangefeedTransition(ChangefeedState next, List<ChangefeedEffect> effects, boolean allowed) {

  public ChangefeedTransition {
    Objects.requireNonNull(next, "next");
    effects = List.copyOf(effects);
  }

  static ChangefeedTransition to(ChangefeedState next, ChangefeedEffect... effects) {
    return new ChangefeedTransition(next, List.of(effects), true);
  }

  /** Stays and does nothing (an idempotent repeat, or a late report that no longer matters). */
  static ChangefeedTransition ignore(ChangefeedState state) {
    return new ChangefeedTransition(state, List.of(), true);
  }

  /** Refused: the state does not change. */
  static ChangefeedTransition illegal(ChangefeedState state) {
    return new ChangefeedTransition(state, List.of(), false);
  }

  @Override
  public String toString() {
    return allowed ? "-> " + next + " " + effects : "illegal";
  }
}
