package dev.sluice.dispatcher.collector;

import dev.sluice.api.DispatcherId;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.DispatcherState;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.SubscriptionStats;
import io.vertx.core.Context;
import java.util.concurrent.CompletionStage;

/** The user's handle on one {@link DispatcherSession}; hops onto the collector's context for actions. */
final class SessionHandle implements SubscriptionHandle {

  private final DispatcherSession session;
  private final Collector collector;
  private final Context context;

  SessionHandle(DispatcherSession session, Collector collector, Context context) {
    this.session = session;
    this.collector = collector;
    this.context = context;
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
  public DispatcherState state() {
    return session.state();
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
  public CompletionStage<Void> close() {
    context.runOnContext(v -> collector.closeSession(session));
    return session.closed.minimalCompletionStage();
  }

  @Override
  public String toString() {
    return "subscription " + session.id() + " to " + session.subscription().target() + " (" + session.state() + ")";
  }
}
