package dev.sluice.dispatcher;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.FatalException;

/**
 * The subscription's listener threw; the subscription is removed. The listener's exception is the
 * cause.
 *
 * <pre>{@code
 * if (error instanceof ListenerFailedException f) log.error("listener failed at ts {}", f.commitTs(), f.getCause());
 * }</pre>
 */
public final class ListenerFailedException extends FatalException {

  /** The dispatcher whose listener threw. */
  private final DispatcherId dispatcherId;
  /** The commit ts being handled. */
  private final long commitTs;

  /** The listener of {@code dispatcherId} threw {@code cause} while handling commit ts {@code commitTs}. */
  public ListenerFailedException(DispatcherId dispatcherId, long commitTs, Throwable cause) {
    super(ErrorCode.INTERNAL, "the listener of dispatcher " + dispatcherId + " threw at commit ts " + commitTs
        + "; the subscription was removed: " + cause, cause);
    this.dispatcherId = dispatcherId;
    this.commitTs = commitTs;
  }

  /** The subscription's dispatcher id. */
  public DispatcherId dispatcherId() {
    return dispatcherId;
  }

  /** The commit ts of what the listener was handling. */
  public long commitTs() {
    return commitTs;
  }
}
