package dev.sluice.dispatcher.collector;

import dev.sluice.api.DispatcherId;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.SnapshotCursor;
import dev.sluice.dispatcher.StateChange;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.SubscriptionState;
import dev.sluice.dispatcher.SubscriptionStats;
import io.vertx.core.Context;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The user's handle on one {@link DispatcherSession}; hops onto the collector's context for actions. */
final class SessionHandle implements SubscriptionHandle {

  private final DispatcherSession session;
  private final Collector collector;
  private final Context context;
  private final Duration closeTimeout;

  SessionHandle(DispatcherSession session, Collector collector, Context context, Duration closeTimeout) {
    this.session = session;
    this.collector = collector;
    this.context = context;
    this.closeTimeout = closeTimeout;
  }

  @Override
  public DispatcherId dispatcherId() {
    return session.id();
  }

  @Override
  public Subscription subscription() {
    return session.subscription();
  }

  @Override
  public SubscriptionState state() {
    return session.publicState();
  }

  @Override
  public StateChange status() {
    return session.status();
  }

  @Override
  public void acknowledge(Checkpoint checkpoint) {
    session.queue().acknowledge(checkpoint);
  }

  @Override
  public Checkpoint acknowledged() {
    return session.queue().acknowledged();
  }

  @Override
  public SubscriptionStats stats() {
    return session.stats();
  }

  @Override
  public CompletionStage<Void> streaming() {
    return session.streaming.minimalCompletionStage();
  }

  @Override
  public SnapshotCursor snapshotCursor() {
    return session.snapshotCursor();
  }

  @Override
  public boolean snapshotPaused() {
    return session.snapshotPaused();
  }

  @Override
  public void pauseSnapshot() {
    context.runOnContext(v -> session.pauseSnapshot());
  }

  @Override
  public void resumeSnapshot() {
    context.runOnContext(v -> session.resumeSnapshot());
  }

  @Override
  public void cancelSnapshot() {
    context.runOnContext(v -> session.cancelSnapshot());
  }

  @Override
  public void snapshot(SnapshotCursor from) {
    java.util.Objects.requireNonNull(from, "from");
    context.runOnContext(v -> session.snapshot(from));
  }

  @Override
  public CompletionStage<Void> closeAsync() {
    context.runOnContext(v -> collector.closeSession(session));
    return session.closed.minimalCompletionStage();
  }

  @Override
  public void close() {
    try {
      closeAsync().toCompletableFuture().get(closeTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // delivery has stopped already; the broker drops the dispatcher with the stream or on its next heartbeat
    }
  }

  @Override
  public String toString() {
    return "subscription " + session.id() + " to " + session.subscription().target() + " (" + session.publicState() + ")";
  }
}
