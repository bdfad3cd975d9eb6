package dev.sluice.broker.cluster;

import java.util.List;

/**
 * The outcome of one (state, input) pair: the next state and the effects to run, or nothing to do.
 *
 * @param next    the next state (the same one when ignored)
 * @param effects what to do, in order
 * @param changes whether anything happens at all
 */
public record AssignmentTransition(AssignmentState next, List<AssignmentEffect> effects, boolean changes) {

  public AssignmentTransition {
    effects = List.copyOf(effects);
  }

  static AssignmentTransition to(AssignmentState next, AssignmentEffect... effects) {
    return new AssignmentTransition(next, List.of(effects), true);
  }

  static AssignmentTransition ignore(AssignmentState same) {
    return new AssignmentTransition(same, List.of(), false);
  }
}
