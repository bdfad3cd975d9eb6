package dev.sluice.dispatcher.collector;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.ProtocolInfo;
import dev.sluice.api.TableSpan;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.api.v1.ControlAck;
import dev.sluice.api.v1.DispatcherCredit;
import dev.sluice.api.v1.DispatcherHeartbeat;
import dev.sluice.api.v1.DispatcherRequest;
import dev.sluice.api.v1.EventBatch;
import dev.sluice.api.v1.Handshake;
import dev.sluice.api.v1.Resolved;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.SnapshotCursor;
import dev.sluice.dispatcher.SnapshotOutcome;
import dev.sluice.dispatcher.StateChange;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionRejectedException;
import dev.sluice.dispatcher.SubscriptionState;
import dev.sluice.dispatcher.SubscriptionStats;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One dispatcher on the collector side: turns each broker message for its id, and each user action, into one
 * {@link DispatcherInput}, runs {@link DispatcherTransitions} and executes the effects. Its
 * {@link EpochReceiver} checks and applies the messages of the live epoch (deliveries into its
 * {@link DeliveryQueue}), {@link DispatcherRequests} sends its REGISTER, RESET and REMOVE through the
 * {@link Link}, {@link SubscriptionStatus} says what the listener and the log hear of it, and
 * {@link WantedSnapshot} holds the snapshot it asks for.
 *
 * <p>Invariants: a scheduled PROCEED is dropped once a REGISTER, a REMOVE or a later timer came after it
 * ({@code timerGeneration}); the ack invariant is {@link DispatcherRequests}', the epoch, seq and dedup ones
 * {@link EpochReceiver}'s.
 *
 * <p>Concurrency: every method runs on the collector's context, except {@link #stats()}, {@link #state()},
 * {@link #status()}, {@link #publicState()}, {@link #snapshotCursor()} and {@link #snapshotPaused()}, which
 * read volatile snapshots.
 */
final class DispatcherSession {

  private static final Logger LOG = LoggerFactory.getLogger(DispatcherSession.class);

  /** What the session needs from its collector. */
  interface Link {
    /** Sends on the current stream; false when there is none (the next stream re-registers anyway). */
    boolean send(DispatcherRequest request);

    /** Feeds {@link DispatcherInput#PROCEED} to {@code session} after {@code delayMs} unless {@code generation} is stale. */
    void scheduleProceed(DispatcherSession session, long delayMs, long generation);

    /** Whether the current stream negotiated {@code feature}. */
    boolean hasFeature(String feature);

    /** Backoff for the {@code attempt}-th retry (0-based). */
    long retryDelayMs(int attempt);

    CollectorMetrics metrics();
  }

  private final DispatcherId id;
  private final Subscription subscription;
  private final String changefeedId;
  private final DeliveryQueue queue;
  private final EpochReceiver receiver;
  private final DispatcherRequests requests;
  private final Link link;
  final CompletableFuture<Void> streaming = new CompletableFuture<>();
  final CompletableFuture<Void> closed = new CompletableFuture<>();

  private volatile DispatcherState state = DispatcherState.REGISTERING;
  private long timerGeneration;
  private int retryAttempt;
  private SluiceException pendingError;
  private boolean dropped;
  private final SubscriptionStatus status;
  private final WantedSnapshot wantedSnapshot;
  /** A user's change came while a reset was in flight: a new epoch follows its handshake. */
  private boolean resetWanted;

  DispatcherSession(DispatcherId id, Subscription subscription, TableSpan span, String changefeedId,
      DeliveryQueue queue, long maxTransactionBytes, Link link) {
    this.id = id;
    this.subscription = subscription;
    this.changefeedId = changefeedId;
    this.queue = queue;
    this.link = link;
    this.wantedSnapshot = new WantedSnapshot(subscription.snapshot());
    this.requests = new DispatcherRequests(id, changefeedId, subscription, span, wantedSnapshot, link);
    this.receiver = new EpochReceiver(id, changefeedId, subscription.start(), queue, maxTransactionBytes,
        wantedSnapshot, link.metrics());
    this.status = new SubscriptionStatus(id, changefeedId, subscription, queue);
  }

  /** The span, or null while a table name is being resolved. */
  TableSpan span() {
    return requests.span();
  }

  /** Whether the start position is known (always, unless "from now" is still being resolved). */
  boolean startResolved() {
    return requests.startResolved();
  }

  /** The start ts (0 while "from now" is being resolved). */
  long startTs() {
    return requests.startTs();
  }

  /** Sets the start position once "from now" was resolved (before the first REGISTER). */
  void resolveStart(Checkpoint start) {
    requests.resolveStart(start);
    receiver.restartAt(start);
  }

  /** The latest public state change. */
  StateChange status() {
    return status.current();
  }

  /** The public state. */
  SubscriptionState publicState() {
    return status.state();
  }

  /**
   * Records trouble being retried that needs no transition (the broker cannot be reached, a lookup failed):
   * shown as RETRYING with {@code reason} unless the subscription streams or has ended.
   */
  void noteTrouble(String reason, ErrorCode code) {
    if (state == DispatcherState.STREAMING || state == DispatcherState.REMOVED) {
      return;
    }
    status.noteTrouble(reason, code);
  }

  /**
   * Fails the subscription when it has not streamed for longer than {@code timeout} (ClientConfig.retryTimeout):
   * the broker stayed unreachable, or kept refusing it transiently.
   *
   * @return whether it failed now
   */
  boolean failIfStalled(long nowNanos, Duration timeout) {
    if (state == DispatcherState.STREAMING || state == DispatcherState.REMOVED
        || !status.troubledLongerThan(nowNanos, timeout)) {
      return false;
    }
    failStalled(Duration.ofNanos(nowNanos - status.troubleSinceNanos()));
    return true;
  }

  /** Fails with a {@link dev.sluice.dispatcher.SubscriptionStalledException} after {@code triedFor} without streaming. */
  void failStalled(Duration triedFor) {
    SluiceException error = status.stalled(triedFor, state);
    if (requests.registeredBefore() || state != DispatcherState.REGISTERING) {
      pendingError = error;
      fire(DispatcherInput.LISTENER_FAILED, "retry_timeout", null);
    } else {
      failBeforeRegister(error);
    }
  }

  /** How long ago the subscription last streamed (or was subscribed), or -1 while it streams. */
  long troubleSinceNanos() {
    return status.troubleSinceNanos();
  }

  DispatcherId id() {
    return id;
  }

  Subscription subscription() {
    return subscription;
  }

  /** Sets the span once a table name was resolved (before the first REGISTER). */
  void resolveSpan(TableSpan resolved) {
    requests.resolveSpan(resolved);
  }

  String changefeedId() {
    return changefeedId;
  }

  DispatcherState state() {
    return state;
  }

  long epoch() {
    return receiver.epoch();
  }

  DeliveryQueue queue() {
    return queue;
  }

  long resolvedTs() {
    return receiver.resolvedTs();
  }

  /** Whether an epoch is live (a RESET sent or streaming): heartbeats and credits are reported. */
  boolean isLive() {
    return state == DispatcherState.RESETTING || state == DispatcherState.STREAMING;
  }

  SubscriptionStats stats() {
    return new SubscriptionStats(status.state(), receiver.epoch(), queue.acknowledged(), queue.deliveredTs(),
        receiver.resolvedTs(), queue.queuedBytes(), receiver.eventsReceived(), receiver.bytesReceived(),
        requests.resets());
  }

  // ---- inputs from the collector -------------------------------------------------------------

  void onStreamChange(DispatcherInput input) {
    fire(input, input.name().toLowerCase(), null);
  }

  /** The stream ended because of {@code trouble} (a sentence naming the broker). */
  void onStreamLost(String trouble, ErrorCode code) {
    if (state != DispatcherState.REMOVED) {
      status.recordTrouble(trouble, code);
    }
    fire(DispatcherInput.DISCONNECTED, "disconnected", null);
    noteTrouble(trouble, code);
  }

  void onProceed(long generation) {
    if (generation == timerGeneration) {
      fire(DispatcherInput.PROCEED, "start", null);   // the first reset after Ready, or a retry
    }
  }

  void close() {
    fire(DispatcherInput.CLOSE, "close", null);
  }

  void onListenerFailed(SluiceException error) {
    pendingError = error;
    fire(DispatcherInput.LISTENER_FAILED, "listener_failed", null);
  }

  /** Fails a subscription before it reached the broker (name resolution, missing feature). */
  void failBeforeRegister(SluiceException error) {
    pendingError = error;
    fire(DispatcherInput.ACK_REJECTED, "rejected_locally", null);
  }

  void onReady() {
    fire(DispatcherInput.READY, "ready", null);
  }

  void onAck(ControlAck ack) {
    if (!requests.isAnsweredBy(ack)) {
      fire(DispatcherInput.STALE_EPOCH, "stale_ack", null);
      return;
    }
    requests.answered();
    switch (ack.getStatus()) {
      case ACK_STATUS_ACCEPTED -> fire(DispatcherInput.ACK_ACCEPTED, "accepted", null);
      case ACK_STATUS_NOT_FOUND -> fire(DispatcherInput.ACK_NOT_FOUND, "not_found", null);
      case ACK_STATUS_STALE -> {
        pendingError = new SubscriptionRejectedException(ErrorCode.STALE_EPOCH, id, subscription.target(),
            queue.acknowledged().ts(), "the broker holds a tombstone or a newer registration for this dispatcher id;"
            + " subscribe again with a new dispatcher id (" + ack.getReason() + ")");
        fire(DispatcherInput.ACK_STALE, "stale_ack", null);
      }
      default -> {
        ErrorCode code = ErrorCode.fromWire(ack.getCode());
        if (code.kind() == ErrorCode.Kind.TRANSIENT) {
          LOG.atInfo().addKeyValue("dispatcherId", id).addKeyValue("code", code).addKeyValue("reason", ack.getReason())
              .log("request rejected transiently; retrying with backoff");
          status.recordTrouble(code + ": " + (ack.getReason().isEmpty() ? "(no reason given)" : ack.getReason()),
              code);
          fire(DispatcherInput.ACK_RETRYABLE, "retryable", null);
        } else {
          pendingError = new SubscriptionRejectedException(code.kind() == ErrorCode.Kind.REJECTED ? code
              : ErrorCode.INVALID_REQUEST, id, subscription.target(), queue.acknowledged().ts(),
              ack.getReason().isEmpty() ? "(no reason given)" : ack.getReason());
          fire(DispatcherInput.ACK_REJECTED, "rejected", null);
        }
      }
    }
  }

  void onHandshake(Handshake h) {
    if (!isLive() || receiver.isStale(h.getEpoch())) {
      fire(DispatcherInput.STALE_EPOCH, "stale_handshake", null);
      return;
    }
    String violation = receiver.handshakeViolation(h, state == DispatcherState.STREAMING);
    if (violation != null) {
      fire(DispatcherInput.SEQUENCE_VIOLATION, violation, null);
      return;
    }
    fire(DispatcherInput.HANDSHAKE, "handshake", () -> {
      receiver.applyHandshake(h);
      retryAttempt = 0;
      status.streamed();
      streaming.complete(null);
    });
    if (resetWanted && state == DispatcherState.STREAMING) {
      resetWanted = false;
      if (wantedSnapshot.changedSinceSent()) {
        fire(DispatcherInput.RESET_REQUESTED, "snapshot_changed", null);
      }
    }
  }

  void onEvents(EventBatch batch) {
    if (!isLive() || receiver.isStale(batch.getEpoch())) {
      fire(DispatcherInput.STALE_EPOCH, "stale_events", null);
      return;
    }
    String violation = receiver.eventsViolation(batch, state == DispatcherState.RESETTING,
        link.hasFeature(ProtocolInfo.FEATURE_DDL_IN_TXN));
    if (violation != null) {
      fire(DispatcherInput.SEQUENCE_VIOLATION, violation, null);
      return;
    }
    fire(DispatcherInput.EVENTS, "events", () -> receiver.applyEvents(batch));
  }

  void onResolved(Resolved r) {
    if (!isLive() || receiver.isStale(r.getEpoch())) {
      fire(DispatcherInput.STALE_EPOCH, "stale_resolved", null);
      return;
    }
    String violation = receiver.resolvedViolation(r, state == DispatcherState.RESETTING);
    if (violation != null) {
      fire(DispatcherInput.SEQUENCE_VIOLATION, violation, null);
      return;
    }
    fire(DispatcherInput.RESOLVED, "resolved", () -> receiver.applyResolved(r));
  }

  /** The broker listed this dispatcher as REMOVED for {@code statusEpoch}. */
  void onHeartbeatRemoved(long statusEpoch) {
    if (isLive() && statusEpoch == receiver.epoch()) {
      fire(DispatcherInput.HEARTBEAT_REMOVED, "heartbeat_removed", null);
    } else {
      fire(DispatcherInput.STALE_EPOCH, "stale_status", null);
    }
  }

  // ---- the snapshot (user actions, on the collector's context) ---------------------------------

  /** Where the snapshot would continue, or null when none is wanted. */
  SnapshotCursor snapshotCursor() {
    return wantedSnapshot.cursor();
  }

  boolean snapshotPaused() {
    return wantedSnapshot.paused();
  }

  /** Stops reading the snapshot; its position is kept for {@link #resumeSnapshot}. */
  void pauseSnapshot() {
    if (wantedSnapshot.pause()) {
      requestReset("snapshot_paused");
    }
  }

  void resumeSnapshot() {
    if (wantedSnapshot.resume()) {
      requestReset("snapshot_resumed");
    }
  }

  /** Ends the snapshot; the listener hears CANCELLED in stream order (READ rows already on their way still come). */
  void cancelSnapshot() {
    if (!wantedSnapshot.cancel()) {
      return;
    }
    queue.offer(Delivery.snapshotDone(new SnapshotOutcome(SnapshotOutcome.Status.CANCELLED,
        "cancelled by the subscriber", 0, 0), receiver.queuedPosition()));
    requestReset("snapshot_cancelled");
  }

  /** Reads the span's rows again from {@code from}, merged into the changes (a re-snapshot). */
  void snapshot(SnapshotCursor from) {
    wantedSnapshot.restartFrom(from);
    requestReset("snapshot_requested");
  }

  /** A new epoch that carries the current snapshot wish: now when streaming, after the handshake when resetting. */
  private void requestReset(String reason) {
    if (state == DispatcherState.STREAMING) {
      fire(DispatcherInput.RESET_REQUESTED, reason, null);
    } else if (state == DispatcherState.RESETTING) {
      resetWanted = true;
    }
  }

  // ---- reports -------------------------------------------------------------------------------

  /** Where this dispatcher resumes after a reconnect: its acknowledged checkpoint. */
  long resumeTs() {
    return queue.acknowledged().ts();
  }

  /** This dispatcher's heartbeat; the checkpoint is clamped to what the current epoch delivered. */
  DispatcherHeartbeat heartbeat() {
    return receiver.heartbeat();
  }

  DispatcherCredit credit() {
    return receiver.credit();
  }

  /** Bytes held for the listener (queued plus a half-assembled transaction). */
  long heldBytes() {
    return receiver.heldBytes();
  }

  // ---- the state machine ---------------------------------------------------------------------

  private void fire(DispatcherInput input, String reason, Runnable delivery) {
    DispatcherState from = state;
    Transition t = DispatcherTransitions.apply(from, input);
    if (t.isIgnoreOf(from)) {
      return;
    }
    state = t.next();
    status.noteTransition(from, input, reason, t);
    if (from != t.next()) {
      LOG.atDebug().addKeyValue("dispatcherId", id).addKeyValue("changefeedId", changefeedId)
          .addKeyValue("from", from).addKeyValue("to", t.next()).addKeyValue("input", input)
          .addKeyValue("reason", reason).addKeyValue("epoch", receiver.epoch()).log("dispatcher transition");
      link.metrics().stateChanged(from, t.next());
    }
    for (DispatcherEffect effect : t.effects()) {
      switch (effect) {
        case SEND_REGISTER -> sendRegister(reason);
        case SEND_RESET -> sendReset(reason);
        case SEND_REMOVE -> sendRemove();
        case DELIVER -> {
          if (delivery != null) {
            delivery.run();
          }
        }
        case SCHEDULE_PROCEED -> link.scheduleProceed(this, 0, ++timerGeneration);
        case SCHEDULE_RETRY -> link.scheduleProceed(this, link.retryDelayMs(retryAttempt++), ++timerGeneration);
        case NOTIFY_ERROR -> notifyError();
      }
    }
    status.publishAfter(from, t, receiver.epoch());
    if (t.next() == DispatcherState.REMOVED) {
      if (!t.effects().contains(DispatcherEffect.NOTIFY_ERROR)) {
        queue.stop();
      }
      streaming.completeExceptionally(pendingError != null ? pendingError
          : new IllegalStateException("dispatcher " + id + " was removed before it streamed"));
      if (!t.effects().contains(DispatcherEffect.SEND_REMOVE)) {
        closed.complete(null);
      }
    }
  }

  private void sendRegister(String reason) {
    timerGeneration++;
    receiver.abandonEpoch();
    requests.sendRegister(reason, queue.acknowledged().ts());
  }

  private void sendReset(String input) {
    Checkpoint from = receiver.startEpoch();   // the epoch is bumped first
    requests.sendReset(input, receiver.epoch(), from);
  }

  private void sendRemove() {
    timerGeneration++;
    if (!requests.sendRemove(receiver.epoch(), queue.acknowledged().ts())) {
      closed.complete(null);
    }
  }

  /** True the first time: the collector forgets this dispatcher once. */
  boolean markDropped() {
    if (dropped) {
      return false;
    }
    dropped = true;
    return true;
  }

  /** The REMOVE was acked (any status) or its stream is gone. */
  void onRemoveDone() {
    closed.complete(null);
  }

  private void notifyError() {
    status.fail(pendingError != null ? pendingError
        : SluiceException.of(ErrorCode.INTERNAL, "dispatcher " + id + " failed"));
  }
}
