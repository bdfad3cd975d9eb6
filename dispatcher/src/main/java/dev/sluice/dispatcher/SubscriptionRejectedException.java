package dev.sluice.dispatcher;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.RequestRejectedException;

/**
 * The broker (or the library, for a feature the broker lacks) refused a subscription; retrying it
 * unchanged fails the same way. Carries the dispatcher, what was subscribed and from which ts.
 *
 * <pre>{@code
 * public void onError(SluiceException e) {
 *   if (e instanceof SubscriptionRejectedException r && r.code() == ErrorCode.START_TS_BELOW_GC) resubscribeLater();
 * }
 * }</pre>
 */
public final class SubscriptionRejectedException extends RequestRejectedException {

  /** The refused dispatcher. */
  private final DispatcherId dispatcherId;
  /** What it subscribed to. */
  private final String target;
  /** Where it started. */
  private final long startTs;

  /** The broker's refusal ({@code code}, its {@code reason}) of a subscription to {@code target} from a ts. */
  public SubscriptionRejectedException(ErrorCode code, DispatcherId dispatcherId, String target, long startTs,
      String reason) {
    super(code, "subscription of dispatcher " + dispatcherId + " to " + target + " from ts " + startTs
        + " was rejected (" + code + "): " + reason);
    this.dispatcherId = dispatcherId;
    this.target = target;
    this.startTs = startTs;
  }

  /** The dispatcher whose subscription was refused. */
  public DispatcherId dispatcherId() {
    return dispatcherId;
  }

  /** "span 16384[*]" or "table public.orders". */
  public String target() {
    return target;
  }

  /** The start ts the subscription asked for. */
  public long startTs() {
    return startTs;
  }
}
