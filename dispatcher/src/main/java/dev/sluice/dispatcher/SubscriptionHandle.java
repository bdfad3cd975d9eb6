package dev.sluice.dispatcher;

import dev.sluice.api.DispatcherId;
import java.util.concurrent.CompletionStage;

/**
 * A live subscription returned by {@link SluiceClient#subscribe}. Thread-safe.
 *
 * <pre>{@code
 * SubscriptionHandle h = client.subscribe(Subscription.table("public.orders").from(ts), listener);
 * h.streaming().toCompletableFuture().get(10, TimeUnit.SECONDS);
 * ...
 * h.acknowledge(txn.checkpoint());
 * h.close();
 * }</pre>
 */
public interface SubscriptionHandle {

  DispatcherId dispatcherId();

  Subscription subscription();

  DispatcherState state();

  /**
   * Records that everything up to {@code checkpoint} is durably applied; after a reset or failover
   * the stream resumes after it, and nothing at or before it is delivered again. Acknowledgements
   * never move back; acknowledging past what was delivered is an error.
   *
   * @throws IllegalArgumentException when {@code checkpoint} is after the last delivered position
   */
  void acknowledge(Checkpoint checkpoint);

  /** {@code acknowledge(Checkpoint.at(ts))}. */
  default void acknowledge(long ts) {
    acknowledge(Checkpoint.at(ts));
  }

  Checkpoint acknowledged();

  SubscriptionStats stats();

  /** Completes the first time the dispatcher streams (handshake received); fails if it is removed before. */
  CompletionStage<Void> streaming();

  /** Sends REMOVE and stops delivery; completes when the broker acked it or the stream is gone. */
  CompletionStage<Void> close();
}
