package dev.sluice.broker.changefeed;

import static dev.sluice.broker.changefeed.ChangefeedEffect.CLEAR_RETRY;
import static dev.sluice.broker.changefeed.ChangefeedEffect.FINISH_REMOVAL;
import static dev.sluice.broker.changefeed.ChangefeedEffect.RESTART_RUNTIME;
import static dev.sluice.broker.changefeed.ChangefeedEffect.SCHEDULE_CLEANUP_RETRY;
import static dev.sluice.broker.changefeed.ChangefeedEffect.SCHEDULE_RETRY;
import static dev.sluice.broker.changefeed.ChangefeedEffect.START_CLEANUP;
import static dev.sluice.broker.changefeed.ChangefeedEffect.START_RUNTIME;
import static dev.sluice.broker.changefeed.ChangefeedEffect.STOP_RUNTIME;
import static dev.sluice.broker.changefeed.ChangefeedState.FAILED;
import static dev.sluice.broker.changefeed.ChangefeedState.NORMAL;
import static dev.sluice.broker.changefeed.ChangefeedState.PAUSED;
import static dev.sluice.broker.changefeed.ChangefeedState.REMOVED;
import static dev.sluice.broker.changefeed.ChangefeedState.REMOVING;
import static dev.sluice.broker.changefeed.ChangefeedTransition.ignore;
import static dev.sluice.broker.changefeed.ChangefeedTransition.illegal;
import static dev.sluice.broker.changefeed.ChangefeedTransition.to;

/**
 * The changefeed state machine: what each input does in each state. Pure: no I/O, no clock, no
 * logging; {@link ChangefeedSupervisor} (its {@code TransitionCommitter}) persists the new state and runs
 * the effects.
 *
 * <p>Rules worth knowing: repeats are idempotent (PAUSE of PAUSED, RESUME of NORMAL); nothing but a
 * DELETE retry is allowed while REMOVING (a same-name CREATE must wait for the deletion to finish);
 * operator requests on a REMOVED id are refused (the API answers 404) but a PURGE of the checkpoint a
 * keep_meta delete kept; late runtime reports and timers are ignored where they no longer apply.
 *
 * <pre>{@code
 * ChangefeedTransition t = ChangefeedTransitions.apply(record.state(), ChangefeedInput.DELETE);
 * if (!t.allowed()) throw new InvalidStateException(...);
 * }</pre>
 */
public final class ChangefeedTransitions {

  private ChangefeedTransitions() {}

  /** The decision for {@code input} in {@code from}; total over every pair. */
  public static ChangefeedTransition apply(ChangefeedState from, ChangefeedInput input) {
    return switch (from) {
      case NORMAL -> switch (input) {
        case CREATE -> illegal(from);
        case PAUSE -> to(PAUSED, STOP_RUNTIME);
        case RESUME -> ignore(from);
        case UPDATE -> to(NORMAL, RESTART_RUNTIME);
        case FAIL_TRANSIENT -> to(FAILED, STOP_RUNTIME, SCHEDULE_RETRY);
        case FAIL_FATAL -> to(FAILED, STOP_RUNTIME);
        case RETRY_DUE -> ignore(from);
        case DELETE, PURGE -> to(REMOVING, STOP_RUNTIME, START_CLEANUP);
        case CLEANUP_DONE, CLEANUP_FAILED -> illegal(from);
      };
      case PAUSED -> switch (input) {
        case CREATE -> illegal(from);
        case PAUSE -> ignore(from);
        case RESUME -> to(NORMAL, CLEAR_RETRY, START_RUNTIME);
        case UPDATE -> to(PAUSED);
        case FAIL_TRANSIENT, FAIL_FATAL, RETRY_DUE -> ignore(from);
        case DELETE, PURGE -> to(REMOVING, START_CLEANUP);
        case CLEANUP_DONE, CLEANUP_FAILED -> illegal(from);
      };
      case FAILED -> switch (input) {
        case CREATE -> illegal(from);
        case PAUSE -> to(PAUSED, CLEAR_RETRY);
        case RESUME -> to(NORMAL, CLEAR_RETRY, START_RUNTIME);
        case UPDATE -> to(FAILED);
        case FAIL_TRANSIENT, FAIL_FATAL -> ignore(from);
        case RETRY_DUE -> to(NORMAL, START_RUNTIME);
        case DELETE, PURGE -> to(REMOVING, CLEAR_RETRY, START_CLEANUP);
        case CLEANUP_DONE, CLEANUP_FAILED -> illegal(from);
      };
      case REMOVING -> switch (input) {
        case CREATE, PAUSE, RESUME, UPDATE -> illegal(from);
        case FAIL_TRANSIENT, FAIL_FATAL -> ignore(from);
        case RETRY_DUE, DELETE, PURGE -> to(REMOVING, START_CLEANUP);
        case CLEANUP_DONE -> to(REMOVED, FINISH_REMOVAL);
        case CLEANUP_FAILED -> to(REMOVING, SCHEDULE_CLEANUP_RETRY);
      };
      case REMOVED -> switch (input) {
        case CREATE -> to(NORMAL, CLEAR_RETRY, START_RUNTIME);
        case PAUSE, RESUME, UPDATE, DELETE -> illegal(from);
        case PURGE -> to(REMOVING, START_CLEANUP);   // a kept checkpoint (the supervisor checks there is one)
        case FAIL_TRANSIENT, FAIL_FATAL, RETRY_DUE, CLEANUP_DONE, CLEANUP_FAILED -> ignore(from);
      };
    };
  }
}
