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

  private final DispatcherId dispatcherId;
  private final long commitTs;

  public ListenerFailedException(DispatcherId dispatcherId, long commitTs, Throwable cause) {
    super(ErrorCode.INTERNAL, "the listener of dispatcher " + dispatcherId + " threw at commit ts " + commitTs
        + "; the subscription was removed: " + cause, cause);
    this.dispatcherId = dispatcherId;
    this.commitTs = commitTs;
  }

  public DispatcherId dispatcherId() {
    return dispatcherId;
  }

  public long commitTs() {
    return commitTs;
  }
}
