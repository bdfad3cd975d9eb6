package dev.sluice.dispatcher;

/**
 * Where a subscription stands, as {@link ChangeListener#onStateChange} and {@link SubscriptionHandle#state()}
 * tell it. The normal life is {@code CONNECTING → STREAMING}; trouble (a lost stream, a broker restart or
 * failover, a transient refusal such as a start ts the broker has not reached yet) shows as {@code RETRYING}
 * with the reason, and ends in {@code STREAMING} again or, after {@link ClientConfig#retryTimeout()}, in
 * {@code FAILED}.
 *
 * <pre>{@code
 * if (handle.state() == SubscriptionState.RETRYING) log.warn("retrying: {}", handle.status().reason());
 * }</pre>
 */
public enum SubscriptionState {
  /** Started: reaching a broker, registering and starting the stream; nothing has streamed yet. */
  CONNECTING,
  /** The broker streams changes to the listener. */
  STREAMING,
  /** Not streaming because of trouble that retrying can fix; {@link StateChange#reason()} says which. */
  RETRYING,
  /** Failed for good; {@link ChangeListener#onError} got the error. No call follows. */
  FAILED,
  /** Closed by {@link SubscriptionHandle#close()} or the client's close. */
  CLOSED;

  /** Whether the subscription has ended (FAILED or CLOSED). */
  public boolean isTerminal() {
    return this == FAILED || this == CLOSED;
  }
}
