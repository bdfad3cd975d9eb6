package dev.sluice.broker.changefeed;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.api.error.TransientException;

/**
 * A deletion's cleanup attempt failed. The changefeed stays REMOVING, the cleanup is retried with
 * backoff, and another DELETE with the same options retries it at once; never reported as success.
 *
 * <pre>{@code
 * catch (DeletionFailedException e) { retryDeleteLater(e.id(), e.generation()); }
 * }</pre>
 */
public final class DeletionFailedException extends TransientException {

  private final String id;
  private final long generation;
  private final ErrorCode cause;

  public DeletionFailedException(String id, long generation, Throwable error) {
    // the deletion is retried either way, so it is transient for the caller; causeCode() keeps the real code
    super(causeCode(error).kind() == ErrorCode.Kind.TRANSIENT ? causeCode(error) : ErrorCode.SINK_UNAVAILABLE,
        "the cleanup of changefeed \"" + id + "\" generation " + generation + " failed: " + error.getMessage()
            + "; it stays REMOVING and is retried; DELETE it again to retry now", error);
    this.id = id;
    this.generation = generation;
    this.cause = causeCode(error);
  }

  static ErrorCode causeCode(Throwable error) {
    return error instanceof SluiceException s ? s.code() : ErrorCode.INTERNAL;
  }

  public String id() {
    return id;
  }

  public long generation() {
    return generation;
  }

  /** The code of the error that failed the cleanup (the API answers 503 for transient ones, else 500). */
  public ErrorCode causeCode() {
    return cause;
  }
}
