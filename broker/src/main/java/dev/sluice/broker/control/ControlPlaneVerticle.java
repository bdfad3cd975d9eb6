package dev.sluice.broker.control;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.RequestRejectedException;
import dev.sluice.api.error.SluiceException;
import dev.sluice.api.v1.AckStatus;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.ControlAck;
import dev.sluice.api.v1.DispatcherAction;
import dev.sluice.api.v1.DispatcherHeartbeat;
import dev.sluice.api.v1.DispatcherRequest;
import dev.sluice.api.v1.DispatcherStatus;
import dev.sluice.api.v1.DispatcherStatusState;
import dev.sluice.api.v1.Handshake;
import dev.sluice.api.v1.HeartbeatBatch;
import dev.sluice.api.v1.HeartbeatResponse;
import dev.sluice.api.v1.Ready;
import dev.sluice.api.v1.ResumeCursor;
import dev.sluice.broker.publication.PublishedTables;
import dev.sluice.broker.security.AccessDeniedException;
import dev.sluice.broker.security.AccessGuard;
import dev.sluice.broker.security.AuditLog;
import dev.sluice.broker.snapshot.SnapshotPlan;
import dev.sluice.broker.snapshot.SnapshotPosition;
import dev.sluice.broker.store.EventStore;
import dev.sluice.broker.store.ScanCursor;
import dev.sluice.schema.SchemaStore;
import dev.sluice.schema.UnknownTableException;
import dev.sluice.schema.TableInfo;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control plane: owns the dispatcher registry and answers REGISTER / RESET / REMOVE at once, with
 * one {@link ControlAck} each, Ready on register and a Handshake carrying the table info on every
 * accepted reset. It never waits for a scan, a store notification or a full data queue.
 *
 * <p><b>Handling order.</b> decode is done by the stream; here: classify the request against the
 * id's state, decide with {@link ControlRules}, execute the effect (all fallible checks run before
 * any state changes, so a rejected REGISTER leaves no trace), reply once.
 *
 * <p><b>Concurrency.</b> Deployed on a dedicated single-thread worker pool, so control work never
 * queues behind data-plane work on an event loop. All fields are confined to that thread; inputs
 * arrive through {@link ControlPlane} methods that hop onto it. The only blocking call is the
 * schema-store lookup for the handshake (a cache hit in the common case).
 */
public final class ControlPlaneVerticle extends VerticleBase implements ControlPlane {

  private static final Logger log = LoggerFactory.getLogger(ControlPlaneVerticle.class);

  private final EventServiceConfig config;
  private final SchemaStore schemaStore;
  private final EventStore eventStore;
  private final DataPlane dataPlane;
  private final LongConsumer gcAction;
  private final LongSupplier nanoClock;
  private final MeterRegistry meters;
  private final boolean snapshots;

  private final DispatcherRegistry registry = new DispatcherRegistry();
  private final AuditLog audit = AuditLog.system();
  private final Tombstones tombstones;
  private final GcCoordinator gc;
  private volatile EventServiceLimits limits;

  private final AtomicInteger registeredCount = new AtomicInteger();
  private final AtomicInteger streamingCount = new AtomicInteger();
  private final AtomicInteger tombstoneCount = new AtomicInteger();
  private long gcTimer = -1;
  private final List<LongSupplier> gcHolds = new java.util.concurrent.CopyOnWriteArrayList<>();
  /** Time a request waits between the stream and this thread: how long control work queues. */
  private java.util.function.LongFunction<String> elsewhere;
  private PublishedTables published = PublishedTables.none();
  private final Timer inboxWait;

  /**
   * @param gcAction runs the GC of both stores up to the given ts; called from this thread, must hand
   *                 the work off (it is I/O)
   */
  /**
   * Names other brokers that can serve a start ts this one refuses as too old (a cluster's members
   * whose servable range covers it), appended to the refusal; "" when there are none. Set before deploy.
   */
  public void whereElse(java.util.function.LongFunction<String> hint) {
    this.elsewhere = java.util.Objects.requireNonNull(hint, "hint");
  }

  /**
   * What the upstream publication leaves out: REGISTER and RESET of such a table are refused
   * ({@code TABLE_NOT_PUBLISHED}). Set before deploy; without it every table counts as published.
   */
  public void publication(PublishedTables tables) {
    this.published = java.util.Objects.requireNonNull(tables, "tables");
  }

  public ControlPlaneVerticle(EventServiceConfig config, SchemaStore schemaStore, EventStore eventStore,
      DataPlane dataPlane, LongConsumer gcAction, LongSupplier nanoClock, MeterRegistry meters) {
    this(config, schemaStore, eventStore, dataPlane, false, gcAction, nanoClock, meters);
  }

  /** @param snapshots whether this broker reads snapshots (has an upstream to read them from) */
  public ControlPlaneVerticle(EventServiceConfig config, SchemaStore schemaStore, EventStore eventStore,
      DataPlane dataPlane, boolean snapshots, LongConsumer gcAction, LongSupplier nanoClock, MeterRegistry meters) {
    this.snapshots = snapshots;
    this.config = config;
    this.schemaStore = schemaStore;
    this.eventStore = eventStore;
    this.dataPlane = dataPlane;
    this.gcAction = gcAction;
    this.nanoClock = nanoClock;
    this.meters = meters;
    this.limits = config.limits();
    this.tombstones = new Tombstones(config.tombstoneTtl().toNanos());
    this.gc = new GcCoordinator(config.gcRetention().toNanos(), config.detachedHoldTtl().toNanos(),
        Math.max(eventStore.gcTs(), schemaStore.gcTs()));
    this.elsewhere = ts -> "";
    Gauge.builder("sluice.dispatchers", registeredCount, AtomicInteger::get).tag("state", "registered")
        .description("dispatchers registered and not streaming").register(meters);
    Gauge.builder("sluice.dispatchers", streamingCount, AtomicInteger::get).tag("state", "streaming")
        .description("dispatchers streaming an epoch").register(meters);
    Gauge.builder("sluice.control.tombstones", tombstoneCount, AtomicInteger::get).register(meters);
    inboxWait = Timer.builder("sluice.control.inbox.wait").publishPercentileHistogram()
        .description("from the stream handing a request over to the control plane starting it").register(meters);
  }

  @Override
  public Future<?> start() {
    gcTimer = vertx.setPeriodic(config.gcInterval().toMillis(), t -> runGc());
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    vertx.cancelTimer(gcTimer);
    return Future.succeededFuture();
  }

  // ---------------------------------------------------------------- inputs (any thread)

  @Override
  public void onRequest(CollectorLink link, DispatcherRequest request, long receivedAtNanos) {
    context.runOnContext(v -> {
      inboxWait.record(nanoClock.getAsLong() - receivedAtNanos, TimeUnit.NANOSECONDS);
      handle(link, request, receivedAtNanos);
    });
  }

  @Override
  public void onHeartbeats(CollectorLink link, HeartbeatBatch batch) {
    context.runOnContext(v -> handleHeartbeats(link, batch));
  }

  @Override
  public void onLinkClosed(CollectorLink link) {
    context.runOnContext(v -> handleLinkClosed(link));
  }

  @Override
  public Future<List<DispatcherView>> dispatchers() {
    Promise<List<DispatcherView>> p = Promise.promise();
    context.runOnContext(v -> {
      List<DispatcherView> out = new ArrayList<>(registry.size());
      var members = published.current();
      for (DispatcherEntry e : registry.all()) {
        out.add(new DispatcherView(e.id().toString(), e.registration.changefeedId(), e.registration.span().toString(),
            e.link.collectorId(), e.epoch, e.streaming, e.checkpointTs,
            members.publishes(e.registration.span().tableId())));
      }
      p.complete(out);
    });
    return p.future();
  }

  @Override
  public void updateLimits(EventServiceLimits newLimits) {
    this.limits = newLimits;
  }

  // ---------------------------------------------------------------- requests

  private void handle(CollectorLink link, DispatcherRequest r, long receivedAtNanos) {
    DispatcherAction action = r.getAction();
    if (action != DispatcherAction.DISPATCHER_ACTION_REGISTER && action != DispatcherAction.DISPATCHER_ACTION_RESET
        && action != DispatcherAction.DISPATCHER_ACTION_REMOVE) {
      reply(link, r, AckStatus.ACK_STATUS_REJECTED, r.getEpoch(), ErrorCode.INVALID_REQUEST,
          "action " + action + " is not REGISTER, RESET or REMOVE", receivedAtNanos);
      return;
    }
    if (!r.hasDispatcherId()) {
      reply(link, r, AckStatus.ACK_STATUS_REJECTED, r.getEpoch(), ErrorCode.INVALID_REQUEST,
          "dispatcher_id is missing", receivedAtNanos);
      return;
    }
    DispatcherId id = DispatcherId.fromProto(r.getDispatcherId());
    long now = nanoClock.getAsLong();
    DispatcherEntry entry = registry.get(id);
    OptionalLong tomb = entry == null ? tombstones.epochOf(id, now) : OptionalLong.empty();
    EntryState state = entry != null ? (entry.link.id() == link.id() ? EntryState.KNOWN : EntryState.KNOWN_ELSEWHERE)
        : tomb.isPresent() ? EntryState.TOMBSTONED : EntryState.UNKNOWN;
    long currentEpoch = entry != null ? entry.epoch : tomb.orElse(0);

    RequestKind kind;
    DispatcherRegistration asked = null;
    try {
      if (action == DispatcherAction.DISPATCHER_ACTION_REGISTER && r.getEpoch() == 0 && state != EntryState.TOMBSTONED) {
        asked = RequestValidator.registration(r, link.features());
      }
      kind = classify(r, entry, asked, currentEpoch);
    } catch (RequestRejectedException e) {
      reply(link, r, AckStatus.ACK_STATUS_REJECTED, r.getEpoch(), e.code(), e.getMessage(), receivedAtNanos);
      return;
    }
    ControlDecision decision = ControlRules.decide(state, kind);
    if (decision.effect().isEmpty()) {
      long ackEpoch = decision.status() == AckStatus.ACK_STATUS_STALE ? currentEpoch : r.getEpoch();
      reply(link, r, decision.status(), ackEpoch, decision.code().orElse(null),
          ControlRules.reason(state, kind, r.getEpoch(), currentEpoch), receivedAtNanos);
      return;
    }
    try {
      switch (decision.effect().get()) {
        case REGISTER -> register(link, r, asked, null, receivedAtNanos);
        case TAKE_OVER -> register(link, r, asked, entry, receivedAtNanos);
        case RESEND_READY -> resendReady(link, r, entry, receivedAtNanos);
        case RESET_EPOCH -> reset(link, r, entry, receivedAtNanos);
        case REMOVE -> remove(link, r, entry, now, receivedAtNanos);
      }
    } catch (SluiceException e) {
      reply(link, r, AckStatus.ACK_STATUS_REJECTED, r.getEpoch(), e.code(), e.getMessage(), receivedAtNanos);
    } catch (RuntimeException e) {
      log.atWarn().setCause(e).addKeyValue("dispatcherId", id).addKeyValue("action", action)
          .log("control request failed unexpectedly");
      reply(link, r, AckStatus.ACK_STATUS_REJECTED, r.getEpoch(), ErrorCode.INTERNAL,
          "internal error: " + e, receivedAtNanos);
    }
  }

  private static RequestKind classify(DispatcherRequest r, DispatcherEntry entry, DispatcherRegistration asked,
      long currentEpoch) {
    long epoch = r.getEpoch();
    return switch (r.getAction()) {
      case DISPATCHER_ACTION_REGISTER -> epoch > 0 ? RequestKind.REGISTER_POSITIVE_EPOCH
          : entry == null || asked == null || entry.registration.sameAs(asked) ? RequestKind.REGISTER_SAME
          : RequestKind.REGISTER_DIFFERENT;
      case DISPATCHER_ACTION_RESET -> epoch > currentEpoch ? RequestKind.RESET_NEWER : RequestKind.RESET_NOT_NEWER;
      case DISPATCHER_ACTION_REMOVE -> epoch >= currentEpoch ? RequestKind.REMOVE_CURRENT_OR_NEWER
          : RequestKind.REMOVE_OLDER;
      default -> throw new IllegalStateException("unclassifiable action " + r.getAction());
    };
  }

  /**
   * All-or-nothing: every check runs before the first change, so a rejection leaves no state (and a
   * take-over leaves the old registration in place).
   *
   * @param replaced the registration another stream held, dropped once the checks passed; or null
   */
  private void register(CollectorLink link, DispatcherRequest r, DispatcherRegistration reg, DispatcherEntry replaced,
      long receivedAtNanos) {
    if (replaced == null && registry.size() >= limits.maxDispatchers()) {
      throw RequestValidator.reject(ErrorCode.QUOTA_EXCEEDED, "this broker already serves "
          + registry.size() + " dispatchers (limit maxDispatchers=" + limits.maxDispatchers()
          + "); register on another member or raise the limit");
    }
    checkAboveGc(reg.startTs(), reg);
    // as RESET: nothing above what both stores have resolved can be promised yet (transient: retry)
    long servable = Math.min(eventStore.resolvedTs(), schemaStore.resolvedTs());
    if (reg.startTs() > servable) {
      throw SluiceException.of(ErrorCode.START_TS_AHEAD, "start ts " + reg.startTs() + " is above this broker's"
          + " resolved ts " + servable + "; retry shortly or register from a lower ts");
    }
    // the table must exist (and not be dropped) at the start ts, or be created after it
    TableInfo atStart = StartTableInfo.byId(schemaStore, reg.span().tableId(), reg.startTs());
    checkReadable(link, atStart, "REGISTER");   // a snapshot is a read of the table too: the same rule
    published.check(atStart, "REGISTER");   // none of its changes would arrive: refused, not served empty
    RequestValidator.snapshot(r, link.features(), atStart, snapshots);

    if (replaced != null) {
      registry.remove(replaced.id());
      uncount(replaced);
      replaced.link.forget(replaced.id());
      dataPlane.submit(new DataPlaneCommand.Remove(replaced.id()));
      log.atInfo().addKeyValue("dispatcherId", reg.id()).addKeyValue("collectorId", link.collectorId())
          .addKeyValue("oldCollectorId", replaced.link.collectorId()).addKeyValue("oldEpoch", replaced.epoch)
          .log("dispatcher re-registered from another stream; the old registration is dropped");
    }
    DispatcherEntry entry = new DispatcherEntry(reg, link);
    registry.put(entry);
    gc.releaseDetached(reg.id());
    registeredCount.incrementAndGet();
    dataPlane.submit(new DataPlaneCommand.Add(reg, link));
    reply(link, r, AckStatus.ACK_STATUS_ACCEPTED, 0, null, "", receivedAtNanos);
    sendReady(link, reg.id());
    log.atDebug().addKeyValue("dispatcherId", reg.id()).addKeyValue("changefeedId", reg.changefeedId())
        .addKeyValue("span", reg.span()).addKeyValue("startTs", reg.startTs()).log("dispatcher registered");
  }

  private void resendReady(CollectorLink link, DispatcherRequest r, DispatcherEntry entry, long receivedAtNanos) {
    reply(link, r, AckStatus.ACK_STATUS_ACCEPTED, 0, null, "", receivedAtNanos);
    sendReady(link, entry.id());
  }

  private void reset(CollectorLink link, DispatcherRequest r, DispatcherEntry entry, long receivedAtNanos) {
    DispatcherRegistration reg = entry.registration;
    long epoch = r.getEpoch();
    long startTs = r.getStartTs();
    // the old epoch is cancelled whatever happens next
    entry.epoch = epoch;
    setStreaming(entry, false);
    TableInfo info;
    ScanCursor cursor;
    SnapshotPlan snapshot = null;
    try {
      RequestValidator.resetMatches(r, reg);
      cursor = RequestValidator.cursor(r, link.features());
      checkAboveGc(startTs, reg);
      long servable = Math.min(eventStore.resolvedTs(), schemaStore.resolvedTs());
      if (startTs > servable) {
        throw SluiceException.of(ErrorCode.START_TS_AHEAD, "start ts " + startTs
            + " is above this broker's resolved ts " + servable + "; retry shortly or reset from a lower ts");
      }
      // a transaction is resumed whole or not at all: its rows after the cursor must not be sent before it resolves
      if (cursor != null && cursor.commitTs() > servable) {
        throw SluiceException.of(ErrorCode.START_TS_AHEAD, "resume cursor at ts " + cursor.commitTs()
            + " is above this broker's resolved ts " + servable + "; retry shortly or reset without the cursor");
      }
      // resumed rows follow the schema of their own transaction: with ddl-in-txn the version after the DDL the
      // cursor passed (the later ones are sent at their places), else its last one (its DDL is not re-sent)
      info = cursor == null ? StartTableInfo.byId(schemaStore, reg.span().tableId(), startTs)
          : StartTableInfo.byId(schemaStore, reg.span().tableId(), cursor.commitTs(),
              reg.ddlInTxn() ? cursor.nextRowSeq() : Long.MAX_VALUE);
      checkReadable(link, info, "RESET");   // the table may have been renamed out of the principal's patterns
      published.check(info, "RESET");   // it may have left the publication since REGISTER
      SnapshotPosition from = RequestValidator.snapshot(r, link.features(), info, snapshots);
      if (from != null) {
        snapshot = new SnapshotPlan(from, createdAfter(reg.span().tableId(), startTs));
      }
    } catch (SluiceException e) {
      suspend(link, entry, epoch, e);
      throw e;
    } catch (RuntimeException e) {
      SluiceException wrapped = SluiceException.of(ErrorCode.SCHEMA_UNAVAILABLE,
          "could not read the table info of " + reg.span() + " at ts " + startTs + ": " + e.getMessage(), e);
      suspend(link, entry, epoch, wrapped);
      throw wrapped;
    }
    setStreaming(entry, true);
    entry.checkpointTs = startTs;
    reply(link, r, AckStatus.ACK_STATUS_ACCEPTED, epoch, null, "", receivedAtNanos);
    Handshake.Builder hs = Handshake.newBuilder().setDispatcherId(r.getDispatcherId()).setEpoch(epoch).setSeq(1)
        .setStartTs(startTs).setTableInfo(info.toProto());
    if (cursor != null) {
      hs.setResumeCursor(ResumeCursor.newBuilder().setCommitTs(cursor.commitTs()).setNextRowSeq(cursor.nextRowSeq()));
    }
    link.sendHandshake(entry.id(), epoch, BrokerMessage.newBuilder().setHandshake(hs).build());
    dataPlane.submit(new DataPlaneCommand.Reset(entry.id(), epoch, startTs, cursor, info.version(),
        info.versionRowSeq(), snapshot));
    meters.timer("sluice.control.handshake.latency").record(nanoClock.getAsLong() - receivedAtNanos, TimeUnit.NANOSECONDS);
    log.atDebug().addKeyValue("dispatcherId", entry.id()).addKeyValue("changefeedId", reg.changefeedId())
        .addKeyValue("epoch", epoch).addKeyValue("startTs", startTs).log("dispatcher reset");
  }

  /** Keeps the by-state gauges in step with the entry's state. */
  private void setStreaming(DispatcherEntry entry, boolean streaming) {
    if (entry.streaming != streaming) {
      entry.streaming = streaming;
      (streaming ? streamingCount : registeredCount).incrementAndGet();
      (streaming ? registeredCount : streamingCount).decrementAndGet();
    }
  }

  private void uncount(DispatcherEntry entry) {
    (entry.streaming ? streamingCount : registeredCount).decrementAndGet();
  }

  private void suspend(CollectorLink link, DispatcherEntry entry, long epoch, SluiceException why) {
    link.fence(entry.id(), epoch);
    dataPlane.submit(new DataPlaneCommand.Suspend(entry.id(), epoch));
    log.atInfo().addKeyValue("dispatcherId", entry.id()).addKeyValue("changefeedId", entry.registration.changefeedId())
        .addKeyValue("epoch", epoch).addKeyValue("code", why.code()).log("reset rejected: " + why.getMessage());
  }

  private void remove(CollectorLink link, DispatcherRequest r, DispatcherEntry entry, long now, long receivedAtNanos) {
    registry.remove(entry.id());
    uncount(entry);
    gc.releaseDetached(entry.id());
    tombstones.add(entry.id(), r.getEpoch(), now);
    tombstoneCount.set(tombstones.size());
    entry.link.forget(entry.id());
    dataPlane.submit(new DataPlaneCommand.Remove(entry.id()));
    reply(link, r, AckStatus.ACK_STATUS_ACCEPTED, r.getEpoch(), null, "", receivedAtNanos);
    log.atDebug().addKeyValue("dispatcherId", entry.id()).addKeyValue("epoch", r.getEpoch()).log("dispatcher removed");
  }

  /** Refuses (PERMISSION_DENIED, audited) a table outside the stream principal's table patterns. */
  private void checkReadable(CollectorLink link, TableInfo info, String action) {
    if (!link.principal().mayRead(info.qualifiedName())) {
      AccessDeniedException e = AccessGuard.tableDenied(link.principal(), info.qualifiedName(), action);
      audit.refused(e, action, info.qualifiedName(), link.collectorId());
      throw e;
    }
  }

  /** Whether the table was created after {@code ts}: then the log, from {@code ts} on, holds all its rows. */
  private boolean createdAfter(long tableId, long ts) {
    try {
      schemaStore.tableInfoAt(tableId, ts);
      return false;
    } catch (UnknownTableException e) {
      return true;   // StartTableInfo found its CREATE after ts
    }
  }

  private void checkAboveGc(long startTs, DispatcherRegistration reg) {
    // the schema store answers table info at ts >= its GC point only, so that is the bound for both stores
    long gcTs = Math.max(Math.max(gc.gcTs(), eventStore.gcTs()), schemaStore.gcTs());
    if (startTs < gcTs) {
      throw RequestValidator.reject(ErrorCode.START_TS_BELOW_GC, "start ts " + startTs + " is below the GC point "
          + gcTs + " of table span " + reg.span() + "; register again from " + gcTs + " or later"
          + elsewhereHint(startTs));
    }
    // 0 asks for everything this broker has; a later ts below the floor would silently miss what came before
    long floorTs = eventStore.floorTs();
    if (startTs > 0 && startTs < floorTs) {
      throw RequestValidator.reject(ErrorCode.START_TS_BELOW_GC, "start ts " + startTs + " is below " + floorTs
          + ", where this broker's capture began (it joined later than the changes at that ts), for table span "
          + reg.span() + "; register at a broker whose servable range covers " + startTs + ", or from " + floorTs
          + " or later" + elsewhereHint(startTs));
    }
  }

  private String elsewhereHint(long startTs) {
    String others = elsewhere.apply(startTs);
    return others.isEmpty() ? "" : " (members that can serve it: " + others + ")";
  }

  private void sendReady(CollectorLink link, DispatcherId id) {
    link.sendControl(BrokerMessage.newBuilder().setReady(Ready.newBuilder().setDispatcherId(id.toProto())
        .setResolvedTs(Math.min(eventStore.resolvedTs(), schemaStore.resolvedTs()))).build());
  }

  private void reply(CollectorLink link, DispatcherRequest r, AckStatus status, long epoch, ErrorCode code,
      String reason, long receivedAtNanos) {
    ControlAck.Builder ack = ControlAck.newBuilder().setDispatcherId(r.getDispatcherId()).setAction(r.getAction())
        .setEpoch(epoch).setStatus(status).setReason(reason);
    if (code != null) {
      ack.setCode(code.toWire());
    }
    link.sendControl(BrokerMessage.newBuilder().setControlAck(ack).build());
    String action = r.getAction() == DispatcherAction.UNRECOGNIZED ? "UNRECOGNIZED" : r.getAction().name();
    String statusName = status.name().substring("ACK_STATUS_".length());
    Timer.builder("sluice.control.request.latency").tag("action", action).tag("status", statusName)
        .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofSeconds(10))
        .register(meters).record(nanoClock.getAsLong() - receivedAtNanos, TimeUnit.NANOSECONDS);
    if (status == AckStatus.ACK_STATUS_REJECTED) {
      Counter.builder("sluice.control.rejections").tag("code", code == null ? "NONE" : code.name()).register(meters)
          .increment();
      log.atInfo().addKeyValue("dispatcherId", DispatcherId.fromProto(r.getDispatcherId()))
          .addKeyValue("changefeedId", r.getChangefeedId()).addKeyValue("epoch", r.getEpoch())
          .addKeyValue("action", action).addKeyValue("code", code).log("request rejected: " + reason);
    }
  }

  // ---------------------------------------------------------------- heartbeats, streams, GC

  private void handleHeartbeats(CollectorLink link, HeartbeatBatch batch) {
    HeartbeatResponse.Builder resp = HeartbeatResponse.newBuilder();
    for (DispatcherHeartbeat hb : batch.getHeartbeatsList()) {
      DispatcherEntry e = hb.hasDispatcherId() ? registry.get(DispatcherId.fromProto(hb.getDispatcherId())) : null;
      if (e == null) {
        resp.addStatuses(DispatcherStatus.newBuilder().setDispatcherId(hb.getDispatcherId()).setEpoch(hb.getEpoch())
            .setState(DispatcherStatusState.DISPATCHER_STATUS_STATE_REMOVED));
      } else if (hb.getEpoch() == e.epoch && e.streaming) {
        // nothing above the servable ts was ever sent: a higher claim must not move the GC point there
        long servable = Math.min(eventStore.resolvedTs(), schemaStore.resolvedTs());
        e.checkpointTs = Math.max(e.checkpointTs, Math.min(hb.getCheckpointTs(), servable));
      }
      // another epoch's heartbeat is ignored (PROTOCOL.md): it raced a reset
    }
    link.sendControl(BrokerMessage.newBuilder().setHeartbeatResponse(resp).build());
  }

  private void handleLinkClosed(CollectorLink link) {
    long now = nanoClock.getAsLong();
    List<DispatcherEntry> gone = registry.onLink(link.id());
    for (DispatcherEntry e : gone) {
      registry.remove(e.id());
      uncount(e);
      gc.holdDetached(e.id(), e.checkpointTs, now);
      dataPlane.submit(new DataPlaneCommand.Remove(e.id()));
    }
    if (!gone.isEmpty()) {
      log.atInfo().addKeyValue("collectorId", link.collectorId()).addKeyValue("dispatchers", gone.size())
          .log("stream closed; its dispatchers were dropped and hold back GC for " + config.detachedHoldTtl());
    }
  }

  @Override
  public void holdGc(LongSupplier lowestHeldTs) {
    gcHolds.add(lowestHeldTs);
  }

  private void runGc() {
    long now = nanoClock.getAsLong();
    tombstoneCount.set(tombstones.sweep(now));
    long minLive = Long.MAX_VALUE;
    for (DispatcherEntry e : registry.all()) {
      minLive = Math.min(minLive, e.checkpointTs);
    }
    long held = Long.MAX_VALUE;
    for (LongSupplier hold : gcHolds) {
      try {
        held = Math.min(held, hold.getAsLong());
      } catch (RuntimeException e) {
        log.atWarn().setCause(e).log("a GC hold could not be read; the GC point stays this round");
        return;
      }
    }
    minLive = Math.min(minLive, held);
    long target = gc.next(minLive, Math.min(eventStore.resolvedTs(), schemaStore.resolvedTs()), now);
    if (target >= 0) {
      log.atInfo().addKeyValue("gcTs", target).addKeyValue("dispatchers", registry.size())
          .addKeyValue("detachedHolds", gc.detachedHolds())
          .addKeyValue("heldTs", held == Long.MAX_VALUE ? null : held).log("advancing GC point");
      gcAction.accept(target);
    }
  }
}
