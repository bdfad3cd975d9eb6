package dev.sluice.dispatcher;

import dev.sluice.api.error.SluiceException;

/**
 * Receives one subscription's changes in commit-ts order. Calls for one subscription come from one
 * thread at a time (never the network event loop), so a slow listener slows only its own
 * subscription: its pace sets the credit the broker may use. An exception thrown from a method ends
 * the subscription and is reported through {@link #onError}.
 *
 * <pre>{@code
 * ChangeListener listener = new ChangeListener() {
 *   public void onTransaction(Transaction txn) { apply(txn); handle.acknowledge(txn.checkpoint()); }
 *   public void onError(SluiceException e) { log.error("subscription failed", e); }
 * };
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

  /** The subscription failed for good; no call follows. Transient trouble is retried, never reported here. */
  void onError(SluiceException error);
}
