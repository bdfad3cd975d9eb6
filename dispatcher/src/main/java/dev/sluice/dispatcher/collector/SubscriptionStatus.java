package dev.sluice.dispatcher.collector;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.dispatcher.StateChange;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionStalledException;
import dev.sluice.dispatcher.SubscriptionState;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public side of one dispatcher: the {@link StateChange} its listener last heard (what
 * {@code SubscriptionHandle.status()} returns) and the trouble being retried, which RETRYING names and a
 * stall failure reports. {@link DispatcherSession} tells it each transition; this decides what the
 * listener and the log hear.
 *
 * <pre>{@code
 * status.noteTrouble("cannot connect to broker 127.0.0.1:8300: connection refused", ErrorCode.BROKER_UNREACHABLE);
 * status.current().state();   // RETRYING, heard once by onStateChange and logged at WARN
 * }</pre>
 *
 * <p>Invariants: a change with the same state and reason as the current one is not published again;
 * FAILED and CLOSED never reach onStateChange (FAILED reaches onError through the queue);
 * {@code troubleSinceNanos} is -1 while streaming.
 *
 * <p>Concurrency: every method runs on the collector's context, except {@link #current()} and
 * {@link #state()}, which read a volatile snapshot.
 */
final class SubscriptionStatus {

  // the session's logger name: README's logging table and `sluice tail` name it
  private static final Logger LOG = LoggerFactory.getLogger(DispatcherSession.class);

  private final DispatcherId id;
  private final String changefeedId;
  private final Subscription subscription;
  private final DeliveryQueue queue;
  /** What onStateChange last said (or FAILED, which onError says). */
  private volatile StateChange status;
  private boolean streamedOnce;
  private String troubleReason;
  private ErrorCode troubleCode;
  private long troubleSinceNanos;   // when it last stopped streaming (or was subscribed); -1 while streaming

  /** Starts CONNECTING: the listener hears it first. */
  SubscriptionStatus(DispatcherId id, String changefeedId, Subscription subscription, DeliveryQueue queue) {
    this.id = id;
    this.changefeedId = changefeedId;
    this.subscription = subscription;
    this.queue = queue;
    this.troubleSinceNanos = System.nanoTime();
    publish(SubscriptionState.CONNECTING, subscription.startFromNow() ? "subscribed from the broker's present"
        : "subscribed from " + subscription.start(), null);
  }

  /** The latest public state change. */
  StateChange current() {
    return status;
  }

  /** The public state. */
  SubscriptionState state() {
    return status.state();
  }

  /** How long ago the subscription last streamed (or was subscribed), or -1 while it streams. */
  long troubleSinceNanos() {
    return troubleSinceNanos;
  }

  /** Whether it has been out of streaming for longer than {@code timeout} at {@code nowNanos}. */
  boolean troubledLongerThan(long nowNanos, Duration timeout) {
    return troubleSinceNanos >= 0 && nowNanos - troubleSinceNanos > timeout.toNanos();
  }

  /** Remembers {@code reason} as the trouble being retried, for the next RETRYING; publishes nothing. */
  void recordTrouble(String reason, ErrorCode code) {
    troubleReason = reason;
    troubleCode = code;
  }

  /** Remembers {@code reason} as the trouble being retried and shows it as RETRYING. */
  void noteTrouble(String reason, ErrorCode code) {
    recordTrouble(reason, code);
    publish(SubscriptionState.RETRYING, reason, code);
  }

  /** The handshake started the stream: no trouble any more. */
  void streamed() {
    streamedOnce = true;
    troubleReason = null;
    troubleCode = null;
    troubleSinceNanos = -1;
  }

  /**
   * The error for a subscription that has not streamed for {@code triedFor} while in {@code state}: the trouble
   * being retried when it is transient, else BROKER_UNREACHABLE.
   */
  SluiceException stalled(Duration triedFor, DispatcherState state) {
    ErrorCode code = troubleCode != null && troubleCode.kind() == ErrorCode.Kind.TRANSIENT ? troubleCode
        : ErrorCode.BROKER_UNREACHABLE;
    String reason = troubleReason != null ? troubleReason : "no broker started the stream (still "
        + state.name().toLowerCase() + ")";
    return new SubscriptionStalledException(code, id, subscription.target(), queue.acknowledged(), triedFor, reason);
  }

  /** Takes in transition {@code t} out of {@code from} (before its effects run): the trouble it stands for, if any. */
  void noteTransition(DispatcherState from, DispatcherInput input, String reason, Transition t) {
    String trouble = troubleOf(input, reason, t);
    if (trouble != null) {
      troubleReason = trouble;
      troubleCode = null;
    }
    if (from == DispatcherState.STREAMING && t.next() != DispatcherState.STREAMING) {
      troubleSinceNanos = System.nanoTime();
    }
  }

  /** What transition {@code t} out of {@code from} (its effects run) means for the public state. */
  void publishAfter(DispatcherState from, Transition t, long epoch) {
    switch (t.next()) {
      case STREAMING -> {
        if (from != DispatcherState.STREAMING) {
          publish(SubscriptionState.STREAMING, "streaming epoch " + epoch + " from " + queue.acknowledged(), null);
        }
      }
      case REMOVED -> {
        if (!t.effects().contains(DispatcherEffect.NOTIFY_ERROR)) {
          publish(SubscriptionState.CLOSED, "closed", null);
        }
      }
      default -> {
        if (troubleReason != null) {
          publish(SubscriptionState.RETRYING, troubleReason, troubleCode);
        } else if (!streamedOnce) {
          publish(SubscriptionState.CONNECTING, status.reason(), null);
        }
      }
    }
  }

  /** The subscription failed for good with {@code error}: FAILED, and the listener's onError, once. */
  void fail(SluiceException error) {
    StateChange change = new StateChange(SubscriptionState.FAILED, error.getMessage(), error.code(), Instant.now());
    status = change;
    LOG.atWarn().addKeyValue("dispatcherId", id).addKeyValue("changefeedId", changefeedId)
        .addKeyValue("target", subscription.target()).addKeyValue("state", SubscriptionState.FAILED)
        .addKeyValue("code", error.code()).log("subscription FAILED: {}", error.getMessage());
    queue.fail(error, change);
  }

  private void publish(SubscriptionState next, String reason, ErrorCode code) {
    StateChange last = status;
    if (last != null && last.state() == next && last.reason().equals(reason)) {
      return;
    }
    StateChange change = new StateChange(next, reason, code, Instant.now());
    status = change;
    (next == SubscriptionState.RETRYING || next == SubscriptionState.FAILED ? LOG.atWarn() : LOG.atInfo())
        .addKeyValue("dispatcherId", id).addKeyValue("changefeedId", changefeedId)
        .addKeyValue("target", subscription.target()).addKeyValue("state", next)
        .addKeyValue("code", code).log("subscription {}: {}", next, reason);
    if (next != SubscriptionState.FAILED && next != SubscriptionState.CLOSED) {
      queue.offer(Delivery.stateChange(change));
    }
  }

  /** The trouble an input stands for, or null when it is none (a step on the normal path). */
  private static String troubleOf(DispatcherInput input, String reason, Transition t) {
    if (t.next() == DispatcherState.REMOVED || t.next() == DispatcherState.STREAMING) {
      return null;
    }
    return switch (input) {
      case BROKER_RESTARTED -> "the broker restarted and lost its dispatchers; registering again";
      case ACK_NOT_FOUND, HEARTBEAT_REMOVED -> "the broker no longer knows this dispatcher; registering again";
      case ACK_STALE -> "the broker holds a newer epoch; resetting with a higher one";
      case SEQUENCE_VIOLATION, EVENTS, RESOLVED -> "resetting after a broken sequence (" + reason + ")";
      default -> null;
    };
  }
}
