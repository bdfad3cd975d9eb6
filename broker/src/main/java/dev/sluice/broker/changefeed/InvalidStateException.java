package dev.sluice.broker.changefeed;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.RequestRejectedException;

/**
 * An operator request that the changefeed's state does not allow (the admin API answers 409 with the
 * current state). A CREATE of an existing id carries {@code ID_IN_USE}.
 *
 * <pre>{@code
 * catch (InvalidStateException e) { System.err.println(e.id() + " is " + e.state()); }
 * }</pre>
 */
public final class InvalidStateException extends RequestRejectedException {

  private final String id;
  private final long generation;
  private final ChangefeedState state;
  private final ChangefeedInput input;

  public InvalidStateException(String id, long generation, ChangefeedState state, ChangefeedInput input, String why) {
    super(input == ChangefeedInput.CREATE ? ErrorCode.ID_IN_USE : ErrorCode.INVALID_REQUEST,
        input.name().toLowerCase() + " of changefeed \"" + id + "\" is not allowed while it is " + state
            + (why == null ? "" : ": " + why));
    this.id = id;
    this.generation = generation;
    this.state = state;
    this.input = input;
  }

  /** A request that is not a state transition (a snapshot request of a changefeed that does not run here). */
  public InvalidStateException(String id, long generation, ChangefeedState state, String request, String why) {
    super(ErrorCode.INVALID_REQUEST, request + " of changefeed \"" + id + "\" is not allowed while it is " + state
        + (why == null ? "" : ": " + why));
    this.id = id;
    this.generation = generation;
    this.state = state;
    this.input = null;
  }

  public String id() {
    return id;
  }

  public long generation() {
    return generation;
  }

  public ChangefeedState state() {
    return state;
  }

  /** The transition refused, or null for another request. */
  public ChangefeedInput input() {
    return input;
  }
}
