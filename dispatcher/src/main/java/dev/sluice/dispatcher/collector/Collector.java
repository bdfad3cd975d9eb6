package dev.sluice.dispatcher.collector;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.ControlAck;
import dev.sluice.api.v1.CreditReport;
import dev.sluice.api.v1.DataEvent;
import dev.sluice.api.v1.DispatcherAction;
import dev.sluice.api.v1.DispatcherRequest;
import dev.sluice.api.v1.DispatcherStatus;
import dev.sluice.api.v1.DispatcherStatusState;
import dev.sluice.api.v1.Hello;
import dev.sluice.api.v1.ListTablesRequest;
import dev.sluice.api.v1.Resolved;
import dev.sluice.api.v1.StreamError;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.TableList;
import dev.sluice.api.v1.TableSchemaRequest;
import dev.sluice.api.v1.Topology;
import dev.sluice.api.v1.TopologyRequest;
import dev.sluice.api.v1.Welcome;
import dev.sluice.dispatcher.BrokerAddress;
import dev.sluice.dispatcher.BrokerRefusedException;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.SubscriptionRejectedException;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientOptions;
import io.vertx.grpc.common.GrpcStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine behind {@code SluiceClient}: one Connect stream to one broker at a time, multiplexing
 * every dispatcher of the client. It says Hello and checks Welcome, routes broker messages to the
 * dispatchers by id, sends the batched heartbeat and the credit report on their timers, treats a
 * missing HeartbeatResponse as a broken stream, and reconnects with exponential backoff, moving to
 * the next member (configured or learned from GetTopology) each time. After every new Welcome each
 * dispatcher re-registers (epoch 0, Ready, RESET from its checkpoint); an incarnation change of the
 * same broker is told apart for metrics and logs.
 *
 * <p>Concurrency: all state lives on one Vert.x context; public methods hop onto it. Listeners run
 * on a separate executor, one drain at a time per dispatcher, so a slow listener never blocks the
 * event loop and its queue's free bytes become its credit.
 *
 * <pre>{@code
 * Collector c = new Collector(vertx, config, registry);   // normally through SluiceClient.connect
 * c.start();
 * SubscriptionHandle h = c.subscribe(Subscription.table("public.orders"), listener);
 * }</pre>
 */
public final class Collector {

  private static final Logger LOG = LoggerFactory.getLogger(Collector.class);

  private final Vertx vertx;
  private final Context context;
  private final ClientConfig config;
  private GrpcClient grpc;   // replaced after a silent path: its pooled connections may be dead
  private final Failover failover;
  private final CollectorMetrics metrics;
  private final ExecutorService listenerExecutor;
  private final Map<DispatcherId, DispatcherSession> sessions = new ConcurrentHashMap<>();   // gauges read it off the loop
  private final DispatcherSession.Link link = new SessionLink();

  private BrokerStream stream;
  private boolean welcomed;
  private Set<String> features = Set.of();
  private String brokerId;
  private long incarnation;
  private long lastHeartbeatResponseNanos;
  private long topologyTimer = -1;
  /** How often the members' states and servable ranges are read again while a stream is up. */
  private static final long TOPOLOGY_REFRESH_MS = 5_000;
  private long welcomeTimer = -1;
  private long heartbeatTimer = -1;
  private long creditTimer = -1;
  private int streamsOpened;
  private boolean closing;
  private final Map<String, Long> changefeedReceivedOnStream = new HashMap<>();
  private volatile SluiceException fatal;
  private volatile String connectedBroker;

  public Collector(Vertx vertx, ClientConfig config, MeterRegistry registry) {
    this.vertx = vertx;
    this.context = vertx.getOrCreateContext();
    this.config = config;
    this.grpc = newGrpcClient();
    this.failover = new Failover(config.brokers().stream().map(BrokerAddress::parse).toList(),
        config.reconnectBackoffMin(), config.reconnectBackoffMax());
    AtomicInteger threads = new AtomicInteger();
    this.listenerExecutor = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "sluice-listener-" + config.collectorId() + "-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    this.metrics = new CollectorMetrics(registry, config.collectorId(), () -> List.copyOf(sessions.values()));
  }

  /** Starts connecting; returns at once. */
  public void start() {
    context.runOnContext(v -> {
      heartbeatTimer = vertx.setPeriodic(config.heartbeatInterval().toMillis(), id -> onHeartbeatTimer());
      creditTimer = vertx.setPeriodic(config.creditInterval().toMillis(), id -> onCreditTimer());
      topologyTimer = vertx.setPeriodic(TOPOLOGY_REFRESH_MS, id -> {
        if (stream != null && welcomed) {
          refreshTopology(stream.address());   // for the next failover's choice
        }
      });
      connect();
    });
  }

  /**
   * Adds a dispatcher for {@code subscription}; {@code listenerFactory} gets its handle before any call and
   * returns the listener. Failures arrive at the listener's {@code onError}.
   */
  public SubscriptionHandle subscribe(Subscription subscription,
      Function<SubscriptionHandle, ChangeListener> listenerFactory) {
    DispatcherId id = subscription.dispatcherId() != null ? subscription.dispatcherId() : DispatcherId.random();
    String creditGroup = subscription.creditGroup() != null ? subscription.creditGroup() : config.collectorId();
    DispatcherSession[] holder = new DispatcherSession[1];
    DeliveryQueue queue = new DeliveryQueue(id, listenerExecutor, config.dispatcherQueueBytes(), subscription.start(),
        error -> context.runOnContext(v -> holder[0].onListenerFailed(error)));
    DispatcherSession session = new DispatcherSession(id, subscription, subscription.span(), creditGroup, queue,
        config.maxTransactionBytes(), link);
    holder[0] = session;
    SessionHandle handle = new SessionHandle(session, this, context, config.connectTimeout());
    ChangeListener listener = Objects.requireNonNull(listenerFactory.apply(handle),
        "the listener factory returned null");
    queue.bind(listener);
    context.runOnContext(v -> {
      metrics.added();
      if (sessions.containsKey(id)) {
        session.failBeforeRegister(new SubscriptionRejectedException(ErrorCode.ID_IN_USE, id,
            subscription.target(), subscription.startTs(), "this client already has a dispatcher with this id"));
        drop(session);
        return;
      }
      prepare(session, subscription, 0);
    });
    return handle;
  }

  /** The TableInfo of {@code table} ("schema.table") at {@code atTs} (0 = latest), from the current broker. */
  public CompletionStage<TableInfo> tableSchema(String table, long atTs) {
    return unary("GetTableSchema", c -> c.getTableSchema(TableSchemaRequest.newBuilder().setTableName(table)
        .setAtTs(atTs).build()));
  }

  /** Every table alive at {@code atTs} (0 = the broker's resolved ts), from the current broker. */
  public CompletionStage<TableList> listTables(long atTs) {
    return unary("ListTables", c -> c.listTables(ListTablesRequest.newBuilder().setAtTs(atTs).build()));
  }

  /** The cluster members as the current broker sees them. */
  public CompletionStage<Topology> topology() {
    return unary("GetTopology", c -> c.getTopology(TopologyRequest.getDefaultInstance()));
  }

  /** The broker the stream is welcomed by, or null while disconnected. */
  public String connectedBroker() {
    return connectedBroker;
  }

  /** Removes every dispatcher, closes the stream and stops; completes when done. */
  public CompletionStage<Void> close() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    context.runOnContext(v -> {
      closing = true;
      List<CompletableFuture<Void>> removals = new ArrayList<>();
      for (DispatcherSession s : List.copyOf(sessions.values())) {
        s.close();
        removals.add(s.closed);
      }
      Future.fromCompletionStage(CompletableFuture.allOf(removals.toArray(CompletableFuture[]::new)), context)
          .timeout(2, java.util.concurrent.TimeUnit.SECONDS)
          .onComplete(ar -> {
            vertx.cancelTimer(heartbeatTimer);
            vertx.cancelTimer(creditTimer);
            vertx.cancelTimer(topologyTimer);
            vertx.cancelTimer(welcomeTimer);
            if (stream != null) {
              stream.close(new BrokerStream.StreamEndedException("client closed"));
            }
            grpc.close().onComplete(x -> {
              listenerExecutor.shutdown();
              done.complete(null);
            });
          });
    });
    return done;
  }

  // ---- connection ----------------------------------------------------------------------------

  private GrpcClient newGrpcClient() {
    long maxMessage = Math.max(4L << 20, Math.min(Integer.MAX_VALUE, config.dispatcherQueueBytes()));
    return GrpcClient.client(vertx, new GrpcClientOptions().setMaxMessageSize(maxMessage),
        ClientTls.apply(config.security(), new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2)
            .setHttp2ClearTextUpgrade(false)
            .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, config.connectTimeout().toMillis()))));
  }

  /**
   * Ends {@code s} after the broker went silent (no Welcome, no HeartbeatResponse) and drops every pooled
   * connection with it: a silenced HTTP/2 connection, or one still waiting for the server's preface,
   * would otherwise carry the next stream too and stay silent forever.
   */
  private void closeSilent(BrokerStream s, TimeoutException cause) {
    GrpcClient old = grpc;
    grpc = newGrpcClient();
    s.close(cause);
    old.close();
  }

  private void connect() {
    if (closing || fatal != null) {
      return;
    }
    BrokerAddress address = failover.current();
    BrokerStream s = new BrokerStream(address, this::onMessage, cause -> onStreamEnd(cause));
    stream = s;
    welcomed = false;
    streamsOpened++;
    if (streamsOpened > 1) {
      metrics.reconnected();
    }
    changefeedReceivedOnStream.clear();
    LOG.atInfo().addKeyValue("collectorId", config.collectorId()).addKeyValue("broker", address)
        .log("opening Connect stream");
    s.open(grpc, config.security().authorization(), FeatureNegotiation.hello(config.collectorId()));
    welcomeTimer = vertx.setTimer(config.connectTimeout().toMillis(), id -> {
      if (stream == s && !welcomed) {
        closeSilent(s, new TimeoutException("no Welcome from " + address + " within " + config.connectTimeout()));
      }
    });
  }

  private void onStreamEnd(Throwable cause) {
    BrokerStream ended = stream;
    if (ended == null || !ended.isEnded()) {
      return;   // an older stream ending late
    }
    stream = null;
    vertx.cancelTimer(welcomeTimer);
    boolean wasWelcomed = welcomed;
    welcomed = false;
    connectedBroker = null;
    metrics.connected(false);
    (closing ? LOG.atInfo() : LOG.atWarn()).addKeyValue("collectorId", config.collectorId())
        .addKeyValue("broker", ended.address()).addKeyValue("welcomed", wasWelcomed)
        .log("stream ended: {}", TroubleText.describe(cause, ended.address()));
    for (DispatcherSession s : List.copyOf(sessions.values())) {
      if (s.state() == DispatcherState.REMOVED) {
        s.onRemoveDone();
        drop(s);
      } else if (!closing) {
        s.onStreamLost(TroubleText.describe(cause, ended.address()),
            wasWelcomed ? null : ErrorCode.BROKER_UNREACHABLE);
      } else {
        s.onStreamChange(DispatcherInput.DISCONNECTED);
      }
    }
    if (closing || fatal != null) {
      return;
    }
    BrokerAddress next = failover.advance(resumeTs());
    // a working stream broke and another member can take over: go there now, not after a backoff
    long delay = wasWelcomed && !next.equals(ended.address()) ? failover.switchDelayMs() : failover.nextDelayMs();
    vertx.setTimer(Math.max(1, delay), id -> connect());
  }

  private void onMessage(BrokerMessage msg) {
    switch (msg.getKindCase()) {
      case WELCOME -> onWelcome(msg.getWelcome());
      case STREAM_ERROR -> onStreamError(msg.getStreamError());
      case CONTROL_ACK -> onAck(msg.getControlAck());
      case READY -> withSession(msg.getReady().getDispatcherId(), DispatcherSession::onReady);
      case HANDSHAKE -> withSession(msg.getHandshake().getDispatcherId(), s -> s.onHandshake(msg.getHandshake()));
      case EVENT_BATCH -> {
        var batch = msg.getEventBatch();
        DispatcherSession s = sessions.get(DispatcherId.fromProto(batch.getDispatcherId()));
        if (s != null) {
          long bytes = 0;
          for (DataEvent e : batch.getEventsList()) {
            bytes += e.getSerializedSize();
          }
          changefeedReceivedOnStream.merge(s.changefeedId(), bytes, Long::sum);
          s.onEvents(batch);
        }
      }
      case RESOLVED_BATCH -> {
        for (Resolved r : msg.getResolvedBatch().getResolvedList()) {
          withSession(r.getDispatcherId(), s -> s.onResolved(r));
        }
      }
      case HEARTBEAT_RESPONSE -> {
        lastHeartbeatResponseNanos = System.nanoTime();
        for (DispatcherStatus st : msg.getHeartbeatResponse().getStatusesList()) {
          if (st.getState() == DispatcherStatusState.DISPATCHER_STATUS_STATE_REMOVED) {
            withSession(st.getDispatcherId(), s -> s.onHeartbeatRemoved(st.getEpoch()));
          }
        }
      }
      case KIND_NOT_SET -> LOG.atWarn().addKeyValue("collectorId", config.collectorId())
          .log("broker message without a kind ignored");
    }
  }

  /** The lowest checkpoint any dispatcher resumes from (0 when none has one): the next member must keep it. */
  private long resumeTs() {
    long min = Long.MAX_VALUE;
    for (DispatcherSession s : sessions.values()) {
      min = Math.min(min, s.resumeTs());
    }
    return min == Long.MAX_VALUE ? 0 : min;
  }

  private void onWelcome(Welcome w) {
    BrokerStream s = stream;
    if (s == null || welcomed) {
      return;
    }
    BrokerRefusedException refusal = FeatureNegotiation.refusal(w, s.address().toString());
    if (refusal != null) {
      fail(refusal);
      return;
    }
    vertx.cancelTimer(welcomeTimer);
    welcomed = true;
    features = Set.copyOf(w.getFeaturesList());
    failover.welcomed();
    lastHeartbeatResponseNanos = System.nanoTime();
    boolean restarted = w.getBrokerId().equals(brokerId) && w.getIncarnation() != incarnation;
    if (brokerId != null && !restarted && !w.getBrokerId().equals(brokerId)) {
      metrics.failedOver();
    }
    if (brokerId != null && !restarted) {
      LOG.atInfo().addKeyValue("collectorId", config.collectorId()).addKeyValue("brokerId", w.getBrokerId())
          .addKeyValue("previousBrokerId", brokerId).log("welcomed");
    } else if (restarted) {
      LOG.atWarn().addKeyValue("collectorId", config.collectorId()).addKeyValue("brokerId", w.getBrokerId())
          .addKeyValue("incarnation", Long.toHexString(w.getIncarnation()))
          .addKeyValue("previousIncarnation", Long.toHexString(incarnation))
          .log("broker restarted (incarnation changed): every dispatcher registers again");
    }
    brokerId = w.getBrokerId();
    incarnation = w.getIncarnation();
    connectedBroker = brokerId + "@" + s.address();
    metrics.connected(true);
    DispatcherInput input = restarted ? DispatcherInput.BROKER_RESTARTED : DispatcherInput.CONNECTED;
    for (DispatcherSession d : List.copyOf(sessions.values())) {
      SluiceException missing = missingFeature(d);
      if (missing != null) {
        d.failBeforeRegister(missing);
        drop(d);
      } else {
        d.onStreamChange(input);
      }
    }
    refreshTopology(s.address());
  }

  private void onStreamError(StreamError e) {
    BrokerStream s = stream;
    if (s == null) {
      return;
    }
    ErrorCode code = ErrorCode.fromWire(e.getCode());
    if (!welcomed && !e.getRetryable()) {
      fail(new BrokerRefusedException(code, s.address().toString(), e.getDetail()));
      return;
    }
    LOG.atWarn().addKeyValue("collectorId", config.collectorId()).addKeyValue("broker", s.address())
        .addKeyValue("code", code).addKeyValue("retryable", e.getRetryable()).log("StreamError: {}", e.getDetail());
    if (code == ErrorCode.DRAINING) {
      failover.draining(s.address());   // move to another member, whatever the last topology said
    }
    s.close(new BrokerStream.StreamEndedException("StreamError " + code + ": " + e.getDetail()));
  }

  private void onAck(ControlAck ack) {
    DispatcherSession s = sessions.get(DispatcherId.fromProto(ack.getDispatcherId()));
    if (s == null) {
      return;
    }
    if (s.state() == DispatcherState.REMOVED) {
      if (ack.getAction() == DispatcherAction.DISPATCHER_ACTION_REMOVE) {
        s.onRemoveDone();
        drop(s);
      }
      return;
    }
    s.onAck(ack);
    if (s.state() == DispatcherState.REMOVED && s.closed.isDone()) {
      drop(s);
    }
  }

  private void withSession(dev.sluice.api.v1.DispatcherId id, java.util.function.Consumer<DispatcherSession> action) {
    DispatcherSession s = sessions.get(DispatcherId.fromProto(id));
    if (s != null) {
      action.accept(s);
      if (s.state() == DispatcherState.REMOVED && s.closed.isDone()) {
        drop(s);
      }
    }
  }

  /** Stops the client for good: every dispatcher fails with {@code error}. */
  private void fail(SluiceException error) {
    fatal = error;
    LOG.atError().addKeyValue("collectorId", config.collectorId()).log(error.getMessage());
    for (DispatcherSession s : List.copyOf(sessions.values())) {
      s.failBeforeRegister(error);
      drop(s);
    }
    if (stream != null) {
      stream.close(error);
    }
  }

  // ---- timers --------------------------------------------------------------------------------

  private void onHeartbeatTimer() {
    failStalled();
    BrokerStream s = stream;
    if (s == null || !welcomed) {
      return;
    }
    long silentNanos = System.nanoTime() - lastHeartbeatResponseNanos;
    long limitNanos = config.heartbeatInterval().toNanos() * config.heartbeatTimeoutIntervals();
    if (silentNanos > limitNanos) {
      closeSilent(s, new TimeoutException("no HeartbeatResponse from " + s.address() + " for "
          + config.heartbeatTimeoutIntervals() + " heartbeat intervals"));
      return;
    }
    s.sendReport(CollectorMessage.newBuilder().setHeartbeatBatch(Reports.heartbeats(sessions.values())).build());
  }

  private void onCreditTimer() {
    BrokerStream s = stream;
    if (s == null || !welcomed) {
      return;
    }
    CreditReport report = Reports.credits(sessions.values(), config.changefeedQueueBytes(), changefeedReceivedOnStream);
    if (report.getDispatchersCount() == 0) {
      return;
    }
    s.sendReport(CollectorMessage.newBuilder().setCreditReport(report).build());
  }

  // ---- dispatchers ---------------------------------------------------------------------------

  private void activate(DispatcherSession session) {
    if (fatal != null) {
      session.failBeforeRegister(fatal);
    }
    if (session.state() == DispatcherState.REMOVED || closing) {
      drop(session);
      return;
    }
    sessions.put(session.id(), session);
    if (welcomed) {
      SluiceException missing = missingFeature(session);
      if (missing != null) {
        session.failBeforeRegister(missing);
        drop(session);
        return;
      }
      session.onStreamChange(DispatcherInput.CONNECTED);
    }
  }

  /**
   * What a subscription needs before its REGISTER: its start ts when it starts "from now" (the broker's
   * resolved ts, from GetTopology), then its span when it names a table. Each step retries transport
   * failures with backoff until ClientConfig.retryTimeout, shown as RETRYING.
   */
  private void prepare(DispatcherSession session, Subscription sub, int attempt) {
    if (session.state() == DispatcherState.REMOVED || closing) {
      drop(session);
      return;
    }
    if (sub.startFromNow() && !session.startResolved()) {
      unaryOnContext(c -> c.getTopology(TopologyRequest.getDefaultInstance()))
          .onSuccess(t -> {
            session.resolveStart(Checkpoint.at(BrokerCalls.resolvedTsOf(t)));
            prepare(session, sub, 0);
          })
          .onFailure(err -> retryPrepare(session, sub, attempt, "GetTopology", err));
    } else if (session.span() == null) {
      resolveTable(session, sub, session.startTs(), attempt);
    } else {
      activate(session);
    }
  }

  /**
   * Looks the table up at the start ts, and, when it did not exist yet, at the latest ts: a table created
   * after the start ts is subscribed by its id from the start ts, and its CREATE comes first (EVENT-SERVICE.md).
   */
  private void resolveTable(DispatcherSession session, Subscription sub, long atTs, int attempt) {
    unaryOnContext(c -> c.getTableSchema(TableSchemaRequest.newBuilder().setTableName(sub.tableName())
        .setAtTs(atTs).build()))
        .onSuccess(info -> {
          session.resolveSpan(TableSpan.wholeTable(info.getTableId()));
          prepare(session, sub, 0);
        })
        .onFailure(err -> {
          GrpcStatus status = BrokerCalls.grpcStatus(err);
          if (status == GrpcStatus.NOT_FOUND && atTs != 0) {
            resolveTable(session, sub, 0, attempt);   // created after the start ts, or never: ask the latest
          } else if (status == GrpcStatus.PERMISSION_DENIED || status == GrpcStatus.UNAUTHENTICATED) {
            // the broker's own sentence says which principal, table pattern or credential is missing
            session.failBeforeRegister(new SubscriptionRejectedException(status == GrpcStatus.PERMISSION_DENIED
                ? ErrorCode.PERMISSION_DENIED : ErrorCode.UNAUTHENTICATED, session.id(), sub.target(), sub.startTs(),
                "GetTableSchema answered " + TroubleText.statusName(status) + ": " + BrokerCalls.statusMessage(err)));
            drop(session);
          } else if (status == GrpcStatus.NOT_FOUND || status == GrpcStatus.FAILED_PRECONDITION
              || status == GrpcStatus.INVALID_ARGUMENT) {
            String why = switch (status) {
              case FAILED_PRECONDITION -> "table " + sub.tableName() + " was dropped at or before ts " + session.startTs();
              case INVALID_ARGUMENT -> "the broker refused the table name \"" + sub.tableName() + "\"; give schema.table";
              default -> "table " + sub.tableName() + " is unknown to the broker at ts " + session.startTs()
                  + " and now; check the name (schema.table, case-sensitive, as SluiceClient.listTables lists them)";
            };
            session.failBeforeRegister(new SubscriptionRejectedException(
                status == GrpcStatus.FAILED_PRECONDITION ? ErrorCode.TABLE_DROPPED : ErrorCode.UNKNOWN_TABLE,
                session.id(), sub.target(), session.startTs(), why + " (GetTableSchema: " + status.name() + ")"));
            drop(session);
          } else {
            retryPrepare(session, sub, attempt, "GetTableSchema", err);
          }
        });
  }

  private void retryPrepare(DispatcherSession session, Subscription sub, int attempt, String call, Throwable err) {
    BrokerAddress address = stream != null ? stream.address() : failover.current();
    GrpcStatus status = BrokerCalls.grpcStatus(err);
    String why = TroubleText.describe(err, address) + " (" + call + ")";
    session.noteTrouble(why, status == null ? ErrorCode.BROKER_UNREACHABLE : ErrorCode.SCHEMA_UNAVAILABLE);
    long triedNanos = System.nanoTime() - session.troubleSinceNanos();
    if (triedNanos > config.retryTimeout().toNanos()) {
      session.failStalled(java.time.Duration.ofNanos(triedNanos));
      drop(session);
      return;
    }
    LOG.atInfo().addKeyValue("dispatcherId", session.id()).addKeyValue("target", sub.target())
        .log("{} failed; retrying: {}", call, why);
    vertx.setTimer(failover.delayMs(attempt), id -> prepare(session, sub, attempt + 1));
  }

  /** Fails every subscription that has not streamed for longer than ClientConfig.retryTimeout. */
  private void failStalled() {
    long now = System.nanoTime();
    for (DispatcherSession s : List.copyOf(sessions.values())) {
      if (s.failIfStalled(now, config.retryTimeout()) && s.closed.isDone()) {
        drop(s);
      }
    }
  }

  private SluiceException missingFeature(DispatcherSession d) {
    return FeatureNegotiation.missingFor(d.id(), d.subscription(), features, brokerId);
  }

  /** Forgets a dispatcher; its close future completes (no REMOVE ack can reach it any more). */
  private void drop(DispatcherSession s) {
    sessions.remove(s.id(), s);
    if (s.markDropped()) {
      metrics.dropped(s.state());
    }
    s.onRemoveDone();
  }

  void closeSession(DispatcherSession s) {
    s.close();
    if (!sessions.containsKey(s.id()) || s.closed.isDone()) {
      drop(s);   // never registered (table name still resolving) or nothing to wait for
    }
  }

  // ---- unary calls ---------------------------------------------------------------------------

  /** A call for a user: its failure is a SluiceException (CallErrors), never a transport class. */
  private <T> CompletionStage<T> unary(String name, Function<BrokerCalls.Calls, Future<T>> call) {
    Promise<T> promise = Promise.promise();
    context.runOnContext(v -> {
      BrokerAddress address = stream != null ? stream.address() : failover.current();
      unaryOnContext(call).onComplete(ar -> {
        if (ar.succeeded()) {
          promise.complete(ar.result());
        } else {
          promise.fail(CallErrors.of(name, ar.cause(), address));
        }
      });
    });
    return promise.future().toCompletionStage();
  }

  private <T> Future<T> unaryOnContext(Function<BrokerCalls.Calls, Future<T>> call) {
    return BrokerCalls.call(grpc, stream != null ? stream.address() : failover.current(), config.connectTimeout(),
        config.security().authorization(), call);
  }

  private void refreshTopology(BrokerAddress address) {
    BrokerCalls.call(grpc, address, config.connectTimeout(), config.security().authorization(),
            c -> c.getTopology(TopologyRequest.getDefaultInstance()))
        .onSuccess(failover::learn)
        .onFailure(err -> LOG.atInfo().addKeyValue("broker", address)
            .log("GetTopology failed: {}", TroubleText.describe(err, address)));
  }

  /** Members known for failover (configured and learned from GetTopology). */
  public List<BrokerAddress> knownMembers() {
    return failover.members();
  }

  private final class SessionLink implements DispatcherSession.Link {
    @Override
    public boolean send(DispatcherRequest request) {
      BrokerStream s = stream;
      return s != null && welcomed && s.send(CollectorMessage.newBuilder().setDispatcherRequest(request).build());
    }

    @Override
    public void scheduleProceed(DispatcherSession session, long delayMs, long generation) {
      if (delayMs <= 0) {
        context.runOnContext(v -> session.onProceed(generation));
      } else {
        vertx.setTimer(delayMs, id -> session.onProceed(generation));
      }
    }

    @Override
    public boolean hasFeature(String feature) {
      return features.contains(feature);
    }

    @Override
    public long retryDelayMs(int attempt) {
      return failover.delayMs(attempt);
    }

    @Override
    public CollectorMetrics metrics() {
      return metrics;
    }
  }
}
