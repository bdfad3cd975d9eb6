package dev.sluice.broker.changefeed;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The serial work queue of one changefeed id: starts, stops and cleanups run one after another on
 * a worker thread, in the order the supervisor decided them, so a stop never overtakes the start it
 * undoes and a cleanup always runs after the runtime it depends on stopped.
 *
 * <p>Concurrency: {@link #submit} is called from the supervisor's thread only; the tasks run one at
 * a time (each after the previous completed), so the lane's fields need no lock; {@link #runtime()}
 * is volatile for the supervisor's progress reads.
 */
final class FeedLane {

  private final Executor workers;
  private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);
  private volatile HostedRuntime runtime;
  private FeedCheckpoint stoppedAt = FeedCheckpoint.NONE;
  private long stoppedGeneration = -1;

  FeedLane(Executor workers) {
    this.workers = workers;
  }

  /** Runs {@code task} after every task submitted before it; a failed task does not stop the lane. */
  CompletableFuture<Void> submit(Runnable task) {
    tail = tail.handle((v, e) -> null).thenRunAsync(task, workers);
    return tail;
  }

  HostedRuntime runtime() {
    return runtime;
  }

  void runtime(HostedRuntime r) {
    runtime = r;
  }

  /** The latest checkpoint a stop of {@code generation} recorded on this lane (lane tasks only). */
  FeedCheckpoint stoppedAt(long generation) {
    return generation == stoppedGeneration ? stoppedAt : FeedCheckpoint.NONE;
  }

  void recordStop(long generation, FeedCheckpoint c) {
    stoppedAt = generation == stoppedGeneration ? stoppedAt.max(c) : c;
    stoppedGeneration = generation;
  }
}
