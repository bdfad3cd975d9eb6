package dev.sluice.broker.cluster;

import static dev.sluice.broker.cluster.AssignmentEffect.DELETE;
import static dev.sluice.broker.cluster.AssignmentEffect.ISSUE_TOKEN;
import static dev.sluice.broker.cluster.AssignmentEffect.PICK_OWNER;
import static dev.sluice.broker.cluster.AssignmentEffect.PICK_TARGET;
import static dev.sluice.broker.cluster.AssignmentEffect.PROMOTE_TARGET;
import static dev.sluice.broker.cluster.AssignmentEffect.WRITE;
import static dev.sluice.broker.cluster.AssignmentState.ASSIGNED;
import static dev.sluice.broker.cluster.AssignmentState.MOVING;
import static dev.sluice.broker.cluster.AssignmentState.UNASSIGNED;
import static dev.sluice.broker.cluster.AssignmentTransition.ignore;
import static dev.sluice.broker.cluster.AssignmentTransition.to;

/**
 * The placement state machine of one hosted changefeed, in one table:
 * {@code UNASSIGNED -> ASSIGNED(node, token) -> MOVING(node -> target) -> ASSIGNED(target, new token) ...}.
 * Every new owner gets a new token, so the old owner's late writes are refused by the sink. A lost owner
 * is replaced at once (its runtime may still run, cut off, and the token fences it); a live owner that
 * drains or is rebalanced is asked to stop first, so a graceful move writes nothing twice and sees no
 * refusal, with a timeout after which the target starts anyway, fenced.
 *
 * <p>Pure: no I/O, no clock, no logging. Every pair is decided (nested switches without default).
 *
 * <pre>{@code
 * AssignmentTransition t = AssignmentTransitions.apply(AssignmentState.ASSIGNED, AssignmentInput.OWNER_LOST);
 * // t.next() == ASSIGNED, t.effects() == [PICK_OWNER, ISSUE_TOKEN, WRITE]
 * }</pre>
 */
public final class AssignmentTransitions {

  private AssignmentTransitions() {}

  public static AssignmentTransition apply(AssignmentState from, AssignmentInput input) {
    return switch (from) {
      case UNASSIGNED -> switch (input) {
        case PLACE -> to(ASSIGNED, PICK_OWNER, ISSUE_TOKEN, WRITE);
        case OWNER_LOST, OWNER_DRAINING, REBALANCE, RELEASED, TARGET_LOST, MOVE_ABANDONED, MOVE_TIMED_OUT, REMOVED ->
            ignore(UNASSIGNED);
      };
      case ASSIGNED -> switch (input) {
        case PLACE, RELEASED, TARGET_LOST, MOVE_ABANDONED, MOVE_TIMED_OUT -> ignore(ASSIGNED);
        case OWNER_LOST -> to(ASSIGNED, PICK_OWNER, ISSUE_TOKEN, WRITE);
        case OWNER_DRAINING, REBALANCE -> to(MOVING, PICK_TARGET, WRITE);
        case REMOVED -> to(UNASSIGNED, DELETE);
      };
      case MOVING -> switch (input) {
        case PLACE, OWNER_DRAINING, REBALANCE -> ignore(MOVING);
        case OWNER_LOST, RELEASED, MOVE_TIMED_OUT -> to(ASSIGNED, PROMOTE_TARGET, ISSUE_TOKEN, WRITE);
        case TARGET_LOST -> to(MOVING, PICK_TARGET, WRITE);
        // the owner may have let go already: it starts again under a new token
        case MOVE_ABANDONED -> to(ASSIGNED, PICK_OWNER, ISSUE_TOKEN, WRITE);
        case REMOVED -> to(UNASSIGNED, DELETE);
      };
    };
  }
}
