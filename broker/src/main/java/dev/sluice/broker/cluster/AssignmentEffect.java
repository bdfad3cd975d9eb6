package dev.sluice.broker.cluster;

/** What the coordinator does for a transition, in this order; data, executed by {@link Scheduler}. */
public enum AssignmentEffect {
  /** Choose the least loaded serving member as the owner. */
  PICK_OWNER,
  /** Choose the least loaded serving member other than the owner as the move's target. */
  PICK_TARGET,
  /** The target becomes the owner (or, when it stopped serving too, the least loaded serving member). */
  PROMOTE_TARGET,
  /** Take a fresh fencing token from the CP subsystem for the owner. */
  ISSUE_TOKEN,
  /** Write the assignment to the cluster. */
  WRITE,
  /** Delete the assignment. */
  DELETE
}
