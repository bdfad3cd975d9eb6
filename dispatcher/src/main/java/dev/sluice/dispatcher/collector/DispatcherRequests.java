package dev.sluice.dispatcher.collector;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.ProtocolInfo;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.ControlAck;
import dev.sluice.api.v1.DispatcherAction;
import dev.sluice.api.v1.DispatcherRequest;
import dev.sluice.api.v1.EventFilter;
import dev.sluice.api.v1.ResumeCursor;
import dev.sluice.api.v1.SyncPointConfig;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.SnapshotCursor;
import dev.sluice.dispatcher.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control requests of one dispatcher: encodes its REGISTER, RESET and REMOVE with what every request carries
 * (id, changefeed, span, filter, sync point from the start ts, the wanted snapshot), sends them through the
 * {@link DispatcherSession.Link}, and remembers the outstanding one, which only an ack of the same action and
 * epoch answers. It also holds the span and start position a subscription may still be resolving, and counts
 * each RESET under its cause.
 *
 * <pre>{@code
 * requests.sendReset("start", receiver.epoch(), from);   // counted under the cause of the re-registration, if any
 * if (!requests.isAnsweredBy(ack)) { ... }               // a stale ack: another action or epoch
 * }</pre>
 *
 * <p>Invariant: an ack answers the last request sent, once ({@link #answered()}); any other is stale.
 *
 * <p>Concurrency: every method runs on the collector's context, except {@link #resets()}, which reads a volatile.
 */
final class DispatcherRequests {

  // the session's logger name: README's logging table and `sluice tail` name it
  private static final Logger LOG = LoggerFactory.getLogger(DispatcherSession.class);

  private final DispatcherId id;
  private final String changefeedId;
  private final Subscription subscription;
  private final WantedSnapshot wantedSnapshot;
  private final DispatcherSession.Link link;
  private TableSpan span;
  private Checkpoint startPosition;
  private boolean startResolved;
  private DispatcherAction outstandingAction;
  private long outstandingEpoch;
  private boolean registeredBefore;
  private String nextResetReason = "start";
  private volatile long resets;

  /** For {@code subscription} on {@code span} (null while its table name is resolved), nothing sent yet. */
  DispatcherRequests(DispatcherId id, String changefeedId, Subscription subscription, TableSpan span,
      WantedSnapshot wantedSnapshot, DispatcherSession.Link link) {
    this.id = id;
    this.changefeedId = changefeedId;
    this.subscription = subscription;
    this.span = span;
    this.wantedSnapshot = wantedSnapshot;
    this.link = link;
    this.startPosition = subscription.start();
    this.startResolved = !subscription.startFromNow();
  }

  /** The span, or null while a table name is being resolved. */
  TableSpan span() {
    return span;
  }

  /** Sets the span once a table name was resolved (before the first REGISTER). */
  void resolveSpan(TableSpan resolved) {
    this.span = resolved;
  }

  /** Whether the start position is known (always, unless "from now" is still being resolved). */
  boolean startResolved() {
    return startResolved;
  }

  /** The start ts (0 while "from now" is being resolved). */
  long startTs() {
    return startPosition.ts();
  }

  /** Sets the start position once "from now" was resolved (before the first REGISTER). */
  void resolveStart(Checkpoint start) {
    startResolved = true;
    startPosition = start;
  }

  /** Whether a REGISTER was sent (or at least attempted) before. */
  boolean registeredBefore() {
    return registeredBefore;
  }

  /** RESETs sent so far. */
  long resets() {
    return resets;
  }

  /** Sends REGISTER at epoch 0 from {@code startTs}; {@code reason} is the input that caused it. */
  void sendRegister(String reason, long startTs) {
    if (registeredBefore && !"proceed".equals(reason) && !"start".equals(reason)) {
      nextResetReason = reason;   // the RESET after this re-registration is counted under its cause
    }
    registeredBefore = true;
    outstandingAction = DispatcherAction.DISPATCHER_ACTION_REGISTER;
    outstandingEpoch = 0;
    link.send(request(DispatcherAction.DISPATCHER_ACTION_REGISTER, 0, startTs, null));
  }

  /**
   * Sends RESET for the (already bumped) {@code epoch} from {@code from}, with its resume cursor when the stream
   * negotiated resume-cursor; {@code input} is the input that caused it ("start": the pending cause, if any).
   */
  void sendReset(String input, long epoch, Checkpoint from) {
    String reason = "start".equals(input) ? nextResetReason : input;
    nextResetReason = "start";
    boolean cursor = from.hasCursor() && link.hasFeature(ProtocolInfo.FEATURE_RESUME_CURSOR);
    outstandingAction = DispatcherAction.DISPATCHER_ACTION_RESET;
    outstandingEpoch = epoch;
    wantedSnapshot.markSent();
    resets++;
    link.metrics().reset(changefeedId, reason);
    LOG.atInfo().addKeyValue("dispatcherId", id).addKeyValue("epoch", epoch).addKeyValue("startTs", from.ts())
        .addKeyValue("reason", reason).log("sending RESET");
    link.send(request(DispatcherAction.DISPATCHER_ACTION_RESET, epoch, from.ts(),
        cursor ? ResumeCursor.newBuilder().setCommitTs(from.cursorCommitTs()).setNextRowSeq(from.nextRowSeq()).build()
            : null));
  }

  /**
   * Sends REMOVE for {@code epoch}.
   *
   * @return false when there is no stream to send it on (no ack will come)
   */
  boolean sendRemove(long epoch, long startTs) {
    outstandingAction = DispatcherAction.DISPATCHER_ACTION_REMOVE;
    outstandingEpoch = epoch;
    return link.send(request(DispatcherAction.DISPATCHER_ACTION_REMOVE, epoch, startTs, null));
  }

  /** Whether {@code ack} answers the outstanding request (same action and epoch). */
  boolean isAnsweredBy(ControlAck ack) {
    return ack.getAction() == outstandingAction && ack.getEpoch() == outstandingEpoch;
  }

  /** The outstanding request was answered: a repeated ack is stale. */
  void answered() {
    outstandingAction = null;
  }

  private DispatcherRequest request(DispatcherAction action, long requestEpoch, long startTs, ResumeCursor cursor) {
    DispatcherRequest.Builder b = DispatcherRequest.newBuilder().setDispatcherId(id.toProto())
        .setChangefeedId(changefeedId).setSpan(span.toProto()).setAction(action).setEpoch(requestEpoch)
        .setStartTs(startTs);
    if (cursor != null) {
      b.setResumeCursor(cursor);
    }
    if (!subscription.ignoredOps().isEmpty()) {
      b.setFilter(EventFilter.newBuilder().addAllIgnoreOps(subscription.ignoredOps()));
    }
    if (subscription.syncPointInterval() != null) {
      b.setSyncPoint(SyncPointConfig.newBuilder()
          .setIntervalS((int) subscription.syncPointInterval().toSeconds()).setFirstTs(startPosition.ts()));
    }
    SnapshotCursor wanted = wantedSnapshot.toRequest();
    if (wanted != null && action != DispatcherAction.DISPATCHER_ACTION_REMOVE) {
      b.setSnapshot(wanted.toProto());   // REGISTER asks (and has it checked), the RESET runs it from there
    }
    return b.build();
  }
}
