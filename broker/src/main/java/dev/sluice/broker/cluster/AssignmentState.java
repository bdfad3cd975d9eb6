package dev.sluice.broker.cluster;

/** Where a hosted changefeed's placement stands; the transitions are {@link AssignmentTransitions}. */
public enum AssignmentState {
  /** No node hosts it (new, or removed): the coordinator places it. */
  UNASSIGNED,
  /** One node hosts it with one fencing token. */
  ASSIGNED,
  /** Its owner is asked to stop it so a target node can take it over (drain, rebalance). */
  MOVING
}
