package dev.sluice.dispatcher;

/**
 * A snapshot of one subscription, for status pages and tests.
 *
 * <pre>{@code
 * SubscriptionStats s = handle.stats();
 * long lag = s.resolvedTs() - s.acknowledged().ts();
 * }</pre>
 *
 * @param state          where the subscription stands
 * @param epoch          the local epoch (0 before the first RESET)
 * @param acknowledged   the highest checkpoint the user acknowledged
 * @param deliveredTs    the highest commit or resolved ts handed to the listener
 * @param resolvedTs     the highest resolved ts received from the broker
 * @param queuedBytes    bytes received and not yet consumed by the listener
 * @param eventsReceived data events accepted, all epochs
 * @param bytesReceived  bytes of accepted data events, all epochs
 * @param resets         RESETs sent after a violation, a stale ack or for a new stream
 */
public record SubscriptionStats(SubscriptionState state, long epoch, Checkpoint acknowledged, long deliveredTs,
    long resolvedTs, long queuedBytes, long eventsReceived, long bytesReceived, long resets) {}
