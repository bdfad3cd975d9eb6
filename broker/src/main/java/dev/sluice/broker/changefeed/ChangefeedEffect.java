package dev.sluice.broker.changefeed;

/**
 * What the supervisor does after a transition, in the order listed. Data, executed by
 * {@link ChangefeedSupervisor} (its {@code TransitionCommitter}).
 *
 * <pre>{@code
 * ChangefeedTransitions.apply(ChangefeedState.NORMAL, ChangefeedInput.DELETE).effects();
 * // [STOP_RUNTIME, START_CLEANUP]
 * }</pre>
 */
public enum ChangefeedEffect {
  /** Starts the runtime of the current generation from its checkpoint. */
  START_RUNTIME,
  /** Stops the runtime (without flushing what it has not applied) and records its final checkpoint. */
  STOP_RUNTIME,
  /** Stops the runtime and starts it again with the current definition, from the checkpoint. */
  RESTART_RUNTIME,
  /** Counts a failed attempt and arms the retry timer (exponential backoff; gives up after the policy's limit). */
  SCHEDULE_RETRY,
  /** Forgets the retry count and any armed timer. */
  CLEAR_RETRY,
  /** Runs the cleanup of the generation being deleted, unless one is already running. */
  START_CLEANUP,
  /** Records the cleanup's error and arms the cleanup's retry timer. */
  SCHEDULE_CLEANUP_RETRY,
  /** Turns the record into a REMOVED tombstone (keeping the checkpoint only when keep_meta). */
  FINISH_REMOVAL
}
