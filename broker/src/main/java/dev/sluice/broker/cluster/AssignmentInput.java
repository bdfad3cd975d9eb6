package dev.sluice.broker.cluster;

/** What the coordinator observes about one changefeed's placement in a scheduling round. */
public enum AssignmentInput {
  /** The changefeed exists and needs a host. */
  PLACE,
  /** Its owner left the cluster (or is unreachable), or a sink fenced it out with a higher token. */
  OWNER_LOST,
  /** Its owner is draining. */
  OWNER_DRAINING,
  /** Its owner hosts more changefeeds than the least loaded serving member by more than one. */
  REBALANCE,
  /** The owner asked to let it go no longer hosts it. */
  RELEASED,
  /** The target of a move left or stopped serving. */
  TARGET_LOST,
  /** The target of a move left and no other serving member can take its place: a serving member (the owner) keeps it. */
  MOVE_ABANDONED,
  /** The owner did not let it go within the move timeout. */
  MOVE_TIMED_OUT,
  /** The changefeed was removed (its deletion completed). */
  REMOVED
}
