package dev.sluice.dispatcher;

import dev.sluice.api.error.SluiceException;

/**
 * Receives one subscription's changes in commit-ts order. Calls for one subscription come from one
 * thread at a time (never the network event loop), so a slow listener slows only its own
 * subscription: its pace sets the credit the broker may use. An exception thrown from a method ends
 * the subscription and is reported through {@link #onError}.
 *
 * <p>Subscribe with {@link SluiceClient#subscribe(Subscription, java.util.function.Function)} to be handed
 * the {@link SubscriptionHandle} you acknowledge with before the first call:
 *
 * <pre>{@code
 * client.subscribe(Subscription.table("public.orders").fromNow(), handle -> new ChangeListener() {
 *   public void onTransaction(Transaction txn) { apply(txn); handle.acknowledge(txn.checkpoint()); }
 *   public void onError(SluiceException e) { log.error("subscription failed", e); }
 * });
 * }</pre>
 */
public interface ChangeListener {

  /** A transaction (or, for a very large one, a part of it, see {@link Transaction#complete()}). */
  void onTransaction(Transaction transaction);

  /** A schema change; transactions after it follow {@link DdlChange#tableInfoAfter()}. */
  default void onDdl(DdlChange ddl) {}

  /** Every transaction with commit ts {@code <= ts} has been delivered; acknowledging {@code ts} is safe once applied. */
  default void onResolved(long ts) {}

  /** A sync point: every transaction {@code <= ts} came before, every later one comes after. */
  default void onSyncPoint(long ts) {}

  /**
   * The subscription changed state: connecting, streaming, retrying (with the reason: an unreachable broker,
   * a start ts the broker has not reached, a reset), failed. Called in order with the other calls; the
   * default does nothing (the library logs every change, see the README's "Logging").
   */
  default void onStateChange(StateChange change) {}

  /**
   * The subscription's snapshot ended ({@link Subscription#withSnapshot()}): after its last READ rows, in
   * stream order, whether it completed, was cancelled, found its table dropped or failed. Changes go on.
   */
  default void onSnapshotComplete(SnapshotOutcome outcome) {}

  /**
   * The subscription failed for good; no call follows. Transient trouble is retried and shown through
   * {@link #onStateChange}; it ends here only when it lasts longer than {@link ClientConfig#retryTimeout()}
   * ({@link SubscriptionStalledException}).
   */
  void onError(SluiceException error);
}
