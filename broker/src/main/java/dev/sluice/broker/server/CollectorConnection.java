package dev.sluice.broker.server;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.sluice.api.DispatcherId;
import dev.sluice.api.ProtocolInfo;
import dev.sluice.api.UnknownFields;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.ChangefeedCredit;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.CreditReport;
import dev.sluice.api.v1.DispatcherCredit;
import dev.sluice.api.v1.Hello;
import dev.sluice.api.v1.StreamError;
import dev.sluice.broker.control.CollectorLink;
import dev.sluice.broker.control.ControlPlane;
import dev.sluice.broker.control.DataPlane;
import dev.sluice.broker.control.DataPlaneCommand;
import io.vertx.core.Context;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import dev.sluice.broker.server.admission.ClientMistakes;
import dev.sluice.broker.server.admission.GrpcPayloads;
import dev.sluice.broker.server.admission.GrpcRejection;
import io.vertx.grpc.common.GrpcMessage;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One collector's {@code Connect} stream on the broker: decodes and checks what the collector sends
 * (Hello first, known message kinds, no unknown fields, size cap) and routes it to the planes; and is
 * the single sequencing point of what goes out.
 *
 * <p><b>Outbound order.</b> Everything sent passes through one FIFO inbox drained on the stream's
 * context, so the happens-before order between the planes is kept (a handshake the control plane
 * queued before telling the data plane to reset precedes every event of that epoch). From the inbox,
 * control messages go to a control lane that is always written before the data lane. Data of a
 * dispatcher is forwarded only for the epoch of the last handshake this stream carried for it, so no
 * event of an old epoch follows a new handshake. Resolved watermarks are coalesced per dispatcher into
 * one ResolvedBatch, flushed within the flush interval and always before later data of the same
 * dispatcher.
 *
 * <p><b>Back-pressure.</b> Lanes are written while the gRPC write queue has room, resumed by its drain
 * handler. Data room is reserved by the data plane before it scans ({@link #tryReserve}) against a
 * per-stream quota and returned as bytes are written, so a collector that never reads stalls only its
 * own dispatchers. A control lane beyond its cap closes the stream as a slow consumer.
 *
 * <p><b>Threads.</b> {@link CollectorLink} methods may be called from any thread; all other state is
 * confined to the stream's context.
 */
final class CollectorConnection implements CollectorLink {

  private static final Logger log = LoggerFactory.getLogger(CollectorConnection.class);
  /** Bytes the gRPC stream may hold beyond our lanes; the rest waits in the lanes, where control jumps ahead. */
  static final int TRANSPORT_QUEUE_BYTES = 128 * 1024;

  private enum State { AWAITING_HELLO, OPEN, CLOSED }

  private sealed interface Outgoing {}

  private record Control(Buffer bytes, long enqueuedNanos) implements Outgoing {}

  private record HandshakeOut(DispatcherId id, long epoch, Buffer bytes, long enqueuedNanos) implements Outgoing {}

  /** A control message on its lane, with when a plane handed it over. */
  private record ControlItem(Buffer bytes, long enqueuedNanos) {}

  private record Fence(DispatcherId id, long epoch) implements Outgoing {}

  private record Forget(DispatcherId id) implements Outgoing {}

  private record Events(DispatcherId id, long epoch, byte[] bytes) implements Outgoing {}

  private record ResolvedOut(DispatcherId id, long epoch, long ts, long lastSeq) implements Outgoing {}

  /** An entry of the data lane: events of one dispatcher's epoch, or a flushed set of watermarks. */
  private sealed interface Queued {}

  private record QueuedEvents(DispatcherId id, long epoch, Buffer bytes) implements Queued {}

  private record QueuedWatermarks(java.util.List<ResolvedCoalescer.Pending> watermarks) implements Queued {}

  private final long id;
  private final Context context;
  private final GrpcServerRequest<Buffer, Buffer> request;
  private final GrpcServerResponse<Buffer, Buffer> response;
  private final ConnectionSettings settings;
  private final ControlPlane controlPlane;
  private final DataPlane dataPlane;
  private final EndpointMetrics metrics;
  private final ClientMistakes mistakes;
  /** Who opened the stream; its table patterns bound what it may REGISTER. */
  private final dev.sluice.broker.security.Principal principal;

  private final ConcurrentLinkedQueue<Outgoing> inbox = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  private final AtomicLong reservedBytes = new AtomicLong();
  private final Map<String, dev.sluice.broker.control.ChangefeedCredit> changefeedCredits = new ConcurrentHashMap<>();
  static final int MAX_CHANGEFEEDS_PER_STREAM = 10_000;

  // confined to the stream's context
  private State state = State.AWAITING_HELLO;
  private final ArrayDeque<ControlItem> controlLane = new ArrayDeque<>();
  /** Checked against the epochs again when written: a handshake may overtake queued data. */
  private final ArrayDeque<Queued> dataLane = new ArrayDeque<>();
  private final Map<DispatcherId, Long> epochs = new HashMap<>();
  private final ResolvedCoalescer resolved;
  private long resolvedTimer = -1;
  private long helloTimer = -1;
  private boolean drainHandlerSet;

  private volatile String collectorId = "";
  private volatile Set<String> features = Set.of();
  private volatile boolean closed;

  CollectorConnection(long id, Context context, GrpcServerRequest<Buffer, Buffer> request, ConnectionSettings settings,
      ControlPlane controlPlane, DataPlane dataPlane, EndpointMetrics metrics, ClientMistakes mistakes,
      dev.sluice.broker.security.Principal principal) {
    this.id = id;
    this.principal = principal;
    this.context = context;
    this.request = request;
    this.response = request.response();
    this.settings = settings;
    this.controlPlane = controlPlane;
    this.dataPlane = dataPlane;
    this.metrics = metrics;
    this.mistakes = mistakes;
    this.resolved = new ResolvedCoalescer(settings.maxResolvedPerBatch());
  }

  private volatile Runnable onClosed = () -> { };

  /** Runs {@code r} once the stream closed. */
  void onClosed(Runnable r) {
    onClosed = r;
  }

  /** Tells the collector to move to another member (retryable DRAINING) and closes the stream. */
  void drain(String why) {
    context.runOnContext(v -> fail(ErrorCode.DRAINING, "this node is draining (" + why + "): move to another member"
        + " and reset from your checkpoints", true));
  }

  /** Wires the stream's handlers; called once on the stream's context. */
  void start() {
    metrics.streamOpened();
    // a small transport queue: control messages wait at most for this much data to drain ahead of them
    response.setWriteQueueMaxSize(TRANSPORT_QUEUE_BYTES);
    // a stream that never says Hello must not hold its slot: MISSING_HELLO once the deadline passes
    helloTimer = context.owner().setTimer(settings.helloTimeoutMillis(), t -> {
      helloTimer = -1;
      if (state == State.AWAITING_HELLO) {
        fail(ErrorCode.MISSING_HELLO, "no Hello within " + settings.helloTimeoutMillis() + " ms of opening the stream;"
            + " the first message of a stream must be Hello", false);
      }
    });
    request.messageHandler(this::onGrpcMessage);
    request.endHandler(v -> close(GrpcStatus.OK, "collector ended the stream"));
    request.exceptionHandler(this::onStreamFailure);
    request.errorHandler(e -> close(null, "the collector cancelled the stream (" + e + ")"));
    response.exceptionHandler(this::onStreamFailure);
  }

  /** A message flagged compressed without an encoding (the frame guard's rejection), or the stream gone. */
  private void onStreamFailure(Throwable e) {
    if (e instanceof GrpcRejection r) {
      fail(ErrorCode.PROTOCOL_VIOLATION, r.getMessage(), false, r.status());
    } else {
      close(null, "stream failed: " + e.getMessage());   // nobody left to answer
    }
  }

  private void onGrpcMessage(GrpcMessage message) {
    if (state == State.CLOSED) {
      return;
    }
    byte[] bytes;
    try {
      // inflated up to what the transport admits, so that an oversized message is named by its size below
      bytes = GrpcPayloads.bytes(message, 2 * settings.maxMessageBytes());
    } catch (GrpcRejection r) {
      mistakes.report(r, ids());
      fail(ErrorCode.PROTOCOL_VIOLATION, r.getMessage(), false, r.status());
      return;
    }
    onMessage(bytes);
  }

  // ---------------------------------------------------------------- inbound (stream context)

  private void onMessage(byte[] payload) {
    metrics.received(payload.length);
    if (payload.length > settings.maxMessageBytes()) {
      fail(ErrorCode.MESSAGE_TOO_LARGE, "message of " + payload.length + " bytes exceeds the limit of "
          + settings.maxMessageBytes() + " bytes", false);
      return;
    }
    CollectorMessage msg;
    try {
      msg = CollectorMessage.parseFrom(payload);
    } catch (InvalidProtocolBufferException e) {
      fail(ErrorCode.PROTOCOL_VIOLATION, "malformed message: not a sluice.v1.CollectorMessage (" + e.getMessage() + ")",
          false);
      return;
    }
    if (msg.getKindCase() == CollectorMessage.KindCase.KIND_NOT_SET) {
      fail(ErrorCode.UNKNOWN_MESSAGE, "message kind is not set or not known to protocol v" + ProtocolInfo.VERSION
          + UnknownFields.find(msg).map(f -> " (unknown field " + f + ")").orElse(""), false);
      return;
    }
    var unknown = UnknownFields.find(msg);
    if (unknown.isPresent()) {
      fail(ErrorCode.UNKNOWN_FIELD, "unknown field " + unknown.get() + " in " + msg.getKindCase()
          + "; this broker speaks protocol v" + ProtocolInfo.VERSION + " and never ignores fields", false);
      return;
    }
    if (state == State.AWAITING_HELLO) {
      if (msg.getKindCase() != CollectorMessage.KindCase.HELLO) {
        fail(ErrorCode.MISSING_HELLO, "the first message of a stream must be Hello, got " + msg.getKindCase(), false);
        return;
      }
      onHello(msg.getHello());
      return;
    }
    switch (msg.getKindCase()) {
      case HELLO -> fail(ErrorCode.PROTOCOL_VIOLATION, "Hello sent twice on one stream", false);
      case DISPATCHER_REQUEST -> controlPlane.onRequest(this, msg.getDispatcherRequest(), System.nanoTime());
      case HEARTBEAT_BATCH -> controlPlane.onHeartbeats(this, msg.getHeartbeatBatch());
      case CREDIT_REPORT -> onCredit(msg.getCreditReport());
      default -> fail(ErrorCode.UNKNOWN_MESSAGE, "unexpected message " + msg.getKindCase(), false);
    }
  }

  private void onHello(Hello hello) {
    if (settings.draining().getAsBoolean()) {
      fail(ErrorCode.DRAINING, "this node is draining: connect to another member", true);
      return;
    }
    if (hello.getProtocolVersion() != ProtocolInfo.VERSION) {
      fail(ErrorCode.UNSUPPORTED_FEATURE, "protocol version " + hello.getProtocolVersion()
          + " is not supported; this broker speaks version " + ProtocolInfo.VERSION, false);
      return;
    }
    Set<String> missing = new TreeSet<>(hello.getRequiredFeaturesList());
    missing.removeAll(ProtocolInfo.BROKER_FEATURES);
    if (!missing.isEmpty()) {
      fail(ErrorCode.UNSUPPORTED_FEATURE, "required features " + missing + " are not supported by this broker; it has "
          + new TreeSet<>(ProtocolInfo.BROKER_FEATURES), false);
      return;
    }
    Set<String> agreed = new TreeSet<>(hello.getRequiredFeaturesList());
    agreed.addAll(hello.getOptionalFeaturesList());
    agreed.retainAll(ProtocolInfo.BROKER_FEATURES);
    agreed.addAll(ProtocolInfo.BROKER_ALWAYS_IN_FORCE); // Welcome lists what is in force, asked for or not
    features = Collections.unmodifiableSet(agreed);
    collectorId = hello.getCollectorId().isEmpty() ? "anonymous-" + id : hello.getCollectorId();
    state = State.OPEN;
    cancelHelloTimer();
    sendControl(BrokerMessage.newBuilder().setWelcome(dev.sluice.api.v1.Welcome.newBuilder()
        .setBrokerId(settings.nodeId()).setIncarnation(settings.incarnation()).setProtocolVersion(ProtocolInfo.VERSION)
        .addAllFeatures(agreed).setMaxMessageBytes(settings.maxMessageBytes())).build());
    log.atInfo().addKeyValue("collectorId", collectorId).addKeyValue("principal", principal.name())
        .addKeyValue("features", agreed).log("collector connected");
  }

  private void onCredit(CreditReport report) {
    for (ChangefeedCredit c : report.getChangefeedsList()) {
      // one entry per changefeed id a stream names: bounded, so a hostile stream cannot grow it without end
      if (!changefeedCredits.containsKey(c.getChangefeedId()) && changefeedCredits.size() >= MAX_CHANGEFEEDS_PER_STREAM) {
        fail(ErrorCode.QUOTA_EXCEEDED, "credit reported for more than " + MAX_CHANGEFEEDS_PER_STREAM
            + " changefeeds on one stream; spread the changefeeds over more collector streams", false);
        return;
      }
      changefeedCredit(c.getChangefeedId()).report(c.getAvailableBytes(), c.getReceivedBytes());
    }
    for (DispatcherCredit c : report.getDispatchersList()) {
      if (c.hasDispatcherId()) {
        dataPlane.submit(new DataPlaneCommand.Credit(DispatcherId.fromProto(c.getDispatcherId()), c.getEpoch(),
            c.getAvailableBytes(), c.getReceivedBytes(), this));
      }
    }
  }

  // ---------------------------------------------------------------- CollectorLink (any thread)

  @Override
  public long id() {
    return id;
  }

  @Override
  public String collectorId() {
    return collectorId;
  }

  @Override
  public Set<String> features() {
    return features;
  }

  @Override
  public dev.sluice.broker.security.Principal principal() {
    return principal;
  }

  @Override
  public void sendControl(BrokerMessage message) {
    enqueue(new Control(wrap(message.toByteArray()), System.nanoTime()));
  }

  @Override
  public void sendHandshake(DispatcherId dispatcher, long epoch, BrokerMessage handshake) {
    enqueue(new HandshakeOut(dispatcher, epoch, wrap(handshake.toByteArray()), System.nanoTime()));
  }

  @Override
  public void fence(DispatcherId dispatcher, long epoch) {
    enqueue(new Fence(dispatcher, epoch));
  }

  @Override
  public void forget(DispatcherId dispatcher) {
    enqueue(new Forget(dispatcher));
  }

  @Override
  public void sendEvents(DispatcherId dispatcher, long epoch, byte[] encodedBrokerMessage) {
    enqueue(new Events(dispatcher, epoch, encodedBrokerMessage));
  }

  @Override
  public void sendResolved(DispatcherId dispatcher, long epoch, long ts, long lastSeq) {
    enqueue(new ResolvedOut(dispatcher, epoch, ts, lastSeq));
  }

  @Override
  public boolean tryReserve(long bytes) {
    if (closed) {
      return false;
    }
    while (true) {
      long now = reservedBytes.get();
      if (now + bytes > settings.queueBytes() && now > 0) {
        return false;
      }
      if (reservedBytes.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  @Override
  public void reserve(long bytes) {
    reservedBytes.addAndGet(bytes);
  }

  @Override
  public void release(long bytes) {
    reservedBytes.addAndGet(-bytes);
  }

  @Override
  public dev.sluice.broker.control.ChangefeedCredit changefeedCredit(String changefeedId) {
    return changefeedCredits.computeIfAbsent(changefeedId, k -> new dev.sluice.broker.control.ChangefeedCredit());
  }

  @Override
  public boolean isClosed() {
    return closed;
  }

  long reservedBytes() {
    return reservedBytes.get();
  }

  private void enqueue(Outgoing o) {
    if (closed) {
      if (o instanceof Events e) {
        release(e.bytes().length);
      }
      return;
    }
    inbox.add(o);
    if (drainScheduled.compareAndSet(false, true)) {
      context.runOnContext(v -> drainInbox());
    }
  }

  // ---------------------------------------------------------------- outbound (stream context)

  private void drainInbox() {
    drainScheduled.set(false);
    Outgoing o;
    while ((o = inbox.poll()) != null) {
      if (state == State.CLOSED) {
        if (o instanceof Events e) {
          release(e.bytes().length);
        }
        continue;
      }
      route(o);
    }
    if (controlLane.size() > settings.controlQueueMessages()) {
      fail(ErrorCode.SLOW_CONSUMER, "the collector does not read: " + controlLane.size()
          + " control messages are queued (limit " + settings.controlQueueMessages() + ")", true);
      return;
    }
    if (resolved.isFull()) {
      flushResolved();
    }
    pump();
  }

  private void route(Outgoing o) {
    if (o instanceof Control c) {
      controlLane.add(new ControlItem(c.bytes(), c.enqueuedNanos()));
    } else if (o instanceof HandshakeOut h) {
      epochs.put(h.id(), h.epoch());
      resolved.drop(h.id());
      controlLane.add(new ControlItem(h.bytes(), h.enqueuedNanos()));
    } else if (o instanceof Fence f) {
      epochs.put(f.id(), f.epoch());
      resolved.drop(f.id());
    } else if (o instanceof Forget f) {
      epochs.remove(f.id());
      resolved.drop(f.id());
    } else if (o instanceof Events e) {
      if (!isCurrent(e.id(), e.epoch())) {
        release(e.bytes().length);
        metrics.staleDropped();
        return;
      }
      if (resolved.contains(e.id())) {
        flushResolved(); // the watermark keeps its place before later events of the dispatcher
      }
      dataLane.add(new QueuedEvents(e.id(), e.epoch(), wrap(e.bytes())));
    } else if (o instanceof ResolvedOut r) {
      if (!isCurrent(r.id(), r.epoch())) {
        metrics.staleDropped();
        return;
      }
      resolved.put(r.id(), r.epoch(), r.ts(), r.lastSeq());
      if (resolvedTimer < 0) {
        resolvedTimer = context.owner().setTimer(settings.resolvedFlushMillis(), t -> {
          resolvedTimer = -1;
          flushResolved();
          pump();
        });
      }
    }
  }

  private boolean isCurrent(DispatcherId dispatcher, long epoch) {
    Long current = epochs.get(dispatcher);
    return current != null && current == epoch;
  }

  private void flushResolved() {
    if (resolved.isEmpty() || state == State.CLOSED) {
      return;
    }
    dataLane.add(new QueuedWatermarks(resolved.drain()));
  }

  /** Writes while the gRPC queue has room: all control first, then data. */
  private void pump() {
    if (state == State.CLOSED) {
      return;
    }
    while (!response.writeQueueFull()) {
      ControlItem control = controlLane.poll();
      Buffer next;
      if (control != null) {
        next = control.bytes();
        metrics.controlWait(System.nanoTime() - control.enqueuedNanos());
      } else {
        next = nextData();
      }
      if (next == null) {
        if (dataLane.isEmpty()) {
          return;
        }
        continue;
      }
      response.write(next);
      metrics.sent(next.length());
    }
    if (!drainHandlerSet) {
      drainHandlerSet = true;
      response.drainHandler(v -> pump());
    }
  }

  /**
   * The next data-lane message still valid now, or null when the head was dropped: data of an epoch a
   * later handshake replaced never reaches the wire, even if it was queued before the handshake.
   */
  private Buffer nextData() {
    Queued q = dataLane.poll();
    if (q instanceof QueuedEvents e) {
      release(e.bytes().length());
      if (!isCurrent(e.id(), e.epoch())) {
        metrics.staleDropped();
        return null;
      }
      return e.bytes();
    }
    if (q instanceof QueuedWatermarks w) {
      byte[] bytes = ResolvedCoalescer.encode(w.watermarks(), p -> isCurrent(p.id(), p.epoch()));
      return bytes == null ? null : wrap(bytes);
    }
    return null;
  }

  /** A buffer over the bytes without copying them (Buffer.buffer(byte[]) copies every message). */
  private static Buffer wrap(byte[] bytes) {
    return BufferInternal.buffer(Unpooled.wrappedBuffer(bytes));
  }

  /** Sends a StreamError and closes this stream only. */
  void fail(ErrorCode code, String detail, boolean retryable) {
    fail(code, detail, retryable, retryable ? GrpcStatus.UNAVAILABLE : GrpcStatus.INVALID_ARGUMENT);
  }

  private void fail(ErrorCode code, String detail, boolean retryable, GrpcStatus status) {
    if (state == State.CLOSED) {
      return;
    }
    metrics.streamError(code);
    Map<String, Object> ids = ids();
    ids.put("code", code);
    mistakes.warnings().warn("stream_error_" + code.name().toLowerCase(java.util.Locale.ROOT), ids,
        "closing stream: " + detail);
    BrokerMessage err = BrokerMessage.newBuilder().setStreamError(StreamError.newBuilder().setCode(code.toWire())
        .setDetail(detail).setRetryable(retryable)).build();
    try {
      response.write(wrap(err.toByteArray()));
    } catch (RuntimeException e) {
      // the stream is already failed: the status below is all that can still go
    }
    close(status, detail);
  }

  private void cancelHelloTimer() {
    if (helloTimer >= 0) {
      context.owner().cancelTimer(helloTimer);
      helloTimer = -1;
    }
  }

  /** Who this stream is, for a warning. */
  private Map<String, Object> ids() {
    Map<String, Object> ids = new java.util.LinkedHashMap<>();
    ids.put("linkId", id);
    ids.put("collectorId", collectorId);
    ids.put("remote", String.valueOf(request.connection().remoteAddress()));
    return ids;
  }

  /**
   * Ends this stream. With a status it is answered (the stream is still writable); without one the
   * peer is gone, and nothing is written: trailers on a closed HTTP/2 stream failed inside Vert.x
   * (a NullPointerException in VertxHttp2Stream$3.cancel, logged on every collector reconnect).
   */
  private void close(GrpcStatus status, String why) {
    if (state == State.CLOSED) {
      return;
    }
    boolean wasOpen = state == State.OPEN;
    state = State.CLOSED;
    closed = true;
    if (resolvedTimer >= 0) {
      context.owner().cancelTimer(resolvedTimer);
    }
    cancelHelloTimer();
    for (Queued q : dataLane) {
      if (q instanceof QueuedEvents e) {
        release(e.bytes().length());
      }
    }
    dataLane.clear();
    controlLane.clear();
    resolved.clear();
    if (status != null) {
      try {
        if (status != GrpcStatus.OK) {
          response.status(status).statusMessage(why);
        }
        response.end();
      } catch (RuntimeException e) {
        // the peer went away meanwhile: nothing left to tell it
      }
    }
    metrics.streamClosed();
    onClosed.run();
    if (wasOpen) {
      controlPlane.onLinkClosed(this);
      log.atInfo().addKeyValue("collectorId", collectorId).log("stream closed: " + why);
    }
  }
}
