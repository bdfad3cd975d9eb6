package dev.sluice.dispatcher;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.TransientException;
import java.time.Duration;

/**
 * A subscription could not stream for longer than {@link ClientConfig#retryTimeout()}: no broker could be
 * reached ({@link ErrorCode#BROKER_UNREACHABLE}), or the broker kept refusing it with a transient code (for
 * example {@link ErrorCode#START_TS_AHEAD}: a start ts the broker has not reached). The code is that of the
 * last trouble; the message names the subscription, the start position, how long it tried and the last reason.
 *
 * <pre>{@code
 * public void onError(SluiceException e) {
 *   if (e instanceof SubscriptionStalledException s && s.code() == ErrorCode.START_TS_AHEAD) startLower();
 * }
 * }</pre>
 */
public final class SubscriptionStalledException extends TransientException {

  /** The stalled dispatcher. */
  private final DispatcherId dispatcherId;
  /** What it subscribed to. */
  private final String target;
  /** How long it tried. */
  private final Duration triedFor;
  /** The last trouble, in words. */
  private final String lastReason;

  /**
   * @param code         the last trouble's code (a transient one)
   * @param dispatcherId the subscription's dispatcher
   * @param target       what was subscribed ({@link Subscription#target()})
   * @param position     where it was to start (its acknowledged checkpoint)
   * @param triedFor     how long it tried
   * @param lastReason   the last reason it was retrying for, as a sentence
   */
  public SubscriptionStalledException(ErrorCode code, DispatcherId dispatcherId, String target, Checkpoint position,
      Duration triedFor, String lastReason) {
    super(code, "subscription of dispatcher " + dispatcherId + " to " + target + " from " + position
        + " could not stream for " + triedFor.toSeconds() + " s (ClientConfig.retryTimeout); last reason: "
        + lastReason + hint(code));
    this.dispatcherId = dispatcherId;
    this.target = target;
    this.triedFor = triedFor;
    this.lastReason = lastReason;
  }

  private static String hint(ErrorCode code) {
    return switch (code) {
      case BROKER_UNREACHABLE -> ". Check ClientConfig.brokers (host and gRPC port, 8300 by default) and that"
          + " the broker runs";
      case START_TS_AHEAD -> ". The start position is beyond what the broker has captured: start from a ts the"
          + " broker has (SluiceClient.listTables(0).getAtTs(), or Subscription.fromNow())";
      default -> "";
    };
  }

  /** The subscription's dispatcher id. */
  public DispatcherId dispatcherId() {
    return dispatcherId;
  }

  /** "span 16384[0,4294967296)" or "table public.orders". */
  public String target() {
    return target;
  }

  /** How long the subscription tried before it gave up. */
  public Duration triedFor() {
    return triedFor;
  }

  /** The last reason it was retrying for. */
  public String lastReason() {
    return lastReason;
  }
}
