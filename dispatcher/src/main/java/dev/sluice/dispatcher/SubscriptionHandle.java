package dev.sluice.dispatcher;

import dev.sluice.api.DispatcherId;
import java.util.concurrent.CompletionStage;

/**
 * A live subscription returned by {@link SluiceClient#subscribe}: acknowledge what you applied, watch its
 * state, close it. Thread-safe; closing it twice is harmless.
 *
 * <pre>{@code
 * try (SubscriptionHandle h = client.subscribe(Subscription.table("public.orders").fromNow(), listenerFactory)) {
 *   h.streaming().toCompletableFuture().get(30, TimeUnit.SECONDS);
 *   ...
 * }   // close(): REMOVE, and no call to the listener after it returns
 * }</pre>
 */
public interface SubscriptionHandle extends AutoCloseable {

  /** The dispatcher id this subscription registers with (as the broker's logs and admin API show it). */
  DispatcherId dispatcherId();

  /** What was subscribed. */
  Subscription subscription();

  /** Where the subscription stands now. */
  SubscriptionState state();

  /** The latest state change, with its reason (what is being retried, why it failed). */
  StateChange status();

  /**
   * Records that everything up to {@code checkpoint} is durably applied; after a reset or failover
   * the stream resumes after it, and nothing at or before it is delivered again. Acknowledgements
   * never move back; acknowledging past what was delivered is an error. Save the checkpoint with your
   * data and start again {@link Subscription#from(Checkpoint) from} it after a restart.
   *
   * @throws IllegalArgumentException when {@code checkpoint} is after the last delivered position
   */
  void acknowledge(Checkpoint checkpoint);

  /** {@code acknowledge(Checkpoint.at(ts))}, for a transaction's commit ts or a resolved ts. */
  default void acknowledge(long ts) {
    acknowledge(Checkpoint.at(ts));
  }

  /** The highest checkpoint acknowledged so far (the start position before any). */
  Checkpoint acknowledged();

  /** Counters and positions of this subscription, for status pages and tests. */
  SubscriptionStats stats();

  /**
   * Completes the first time the subscription streams (the broker's handshake arrived); fails with the
   * subscription's error when it fails or is closed before: a refusal, or trouble lasting longer than
   * {@link ClientConfig#retryTimeout()}.
   */
  CompletionStage<Void> streaming();

  /**
   * Where the subscription's snapshot continues (after the last chunk handed to the listener), or null when
   * it asked for none or its snapshot ended.
   */
  SnapshotCursor snapshotCursor();

  /** Whether the snapshot is paused. */
  boolean snapshotPaused();

  /**
   * Stops reading the snapshot; changes go on. The stream starts a new epoch from the acknowledged checkpoint
   * without a snapshot; {@link #resumeSnapshot()} continues it from {@link #snapshotCursor()}. Nothing
   * happens when no snapshot runs.
   */
  void pauseSnapshot();

  /** Continues a paused snapshot where it stopped. */
  void resumeSnapshot();

  /**
   * Ends the snapshot: {@link ChangeListener#onSnapshotComplete} hears CANCELLED, in stream order (READ rows
   * already on their way may still arrive after it). Nothing happens when no snapshot runs.
   */
  void cancelSnapshot();

  /**
   * Reads the span's existing rows (again) from {@code from}, merged into the changes: a re-snapshot, for
   * example after a column was added with a volatile default. Replaces a snapshot that is running.
   */
  void snapshot(SnapshotCursor from);

  /** Sends REMOVE and stops delivery; completes when the broker acked it or the stream is gone. */
  CompletionStage<Void> closeAsync();

  /**
   * Sends REMOVE and stops delivery, waiting up to the client's connect timeout for the broker's ack. No
   * listener call starts after it returns (one running on the listener's thread finishes).
   */
  @Override
  void close();
}
