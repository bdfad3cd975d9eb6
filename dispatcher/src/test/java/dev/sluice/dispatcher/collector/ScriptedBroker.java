package dev.sluice.dispatcher.collector;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.ProtocolInfo;
import dev.sluice.api.v1.AckStatus;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.ControlAck;
import dev.sluice.api.v1.DispatcherAction;
import dev.sluice.api.v1.DispatcherRequest;
import dev.sluice.api.v1.EventServiceGrpcService;
import dev.sluice.api.v1.Handshake;
import dev.sluice.api.v1.HeartbeatResponse;
import dev.sluice.api.v1.ListTablesRequest;
import dev.sluice.api.v1.Member;
import dev.sluice.api.v1.MemberState;
import dev.sluice.api.v1.Ready;
import dev.sluice.api.v1.StreamError;
import dev.sluice.api.v1.TableEntry;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.TableList;
import dev.sluice.api.v1.TableSchemaRequest;
import dev.sluice.api.v1.Topology;
import dev.sluice.api.v1.TopologyRequest;
import dev.sluice.api.v1.Welcome;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.streams.ReadStream;
import io.vertx.core.streams.WriteStream;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.StatusException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A scripted in-process broker: a real Vert.x gRPC server on a loopback port implementing
 * {@link EventServiceGrpcService}, whose behaviour each test scripts. It is a fake because the real
 * broker is written in parallel and cannot be had yet; it implements only what PROTOCOL.md says a
 * broker answers (Welcome, one ControlAck per request, Ready, Handshake, heartbeat responses) and lets
 * the test push any event, violation or stream error at the collector over a real socket.
 *
 * <p>By default it answers REGISTER with ACCEPTED + Ready, RESET with ACCEPTED + Handshake (at the
 * requested start ts, with {@link #tableInfo}), REMOVE with ACCEPTED, and every HeartbeatBatch with an
 * empty HeartbeatResponse; each of these can be switched off to script it by hand.
 */
public final class ScriptedBroker implements AutoCloseable {

  public final String brokerId;
  public volatile long incarnation;
  public volatile TableInfo tableInfo;
  public volatile Set<String> features = ProtocolInfo.BROKER_FEATURES;
  public volatile boolean autoControl = true;
  public volatile boolean answerHeartbeats = true;
  public volatile boolean welcome = true;
  /** The at_ts ListTables answers with. */
  public volatile long listAtTs;
  /** ListTables calls answered. */
  public final java.util.concurrent.atomic.AtomicInteger listCalls = new java.util.concurrent.atomic.AtomicInteger();
  public final List<String> extraMembers = new CopyOnWriteArrayList<>();
  public final Map<String, TableEntry> tables = new ConcurrentHashMap<>();
  /** GetTableSchema calls still to answer UNAVAILABLE ("not known yet"), as a broker asked above its resolved ts. */
  public final java.util.concurrent.atomic.AtomicInteger schemaNotYetKnown =
      new java.util.concurrent.atomic.AtomicInteger();
  /** Every message received, all connections, in arrival order. */
  public final List<CollectorMessage> received = new CopyOnWriteArrayList<>();
  /** Arrival time (nanos) of each heartbeat batch and credit report. */
  public final List<Long> heartbeatNanos = new CopyOnWriteArrayList<>();
  public final List<Long> creditNanos = new CopyOnWriteArrayList<>();
  public final List<Long> helloNanos = new CopyOnWriteArrayList<>();

  private final Vertx vertx;
  private HttpServer server;
  private volatile Context serverContext;
  private volatile WriteStream<BrokerMessage> current;
  private final List<WriteStream<BrokerMessage>> streams = new CopyOnWriteArrayList<>();

  public ScriptedBroker(Vertx vertx, String brokerId, long incarnation, TableInfo tableInfo) {
    this.vertx = vertx;
    this.brokerId = brokerId;
    this.incarnation = incarnation;
    this.tableInfo = tableInfo;
  }

  public ScriptedBroker start() throws Exception {
    GrpcServer grpc = GrpcServer.server(vertx);
    grpc.addService(new EventServiceGrpcService() {
      @Override
      protected void connect(ReadStream<CollectorMessage> in, WriteStream<BrokerMessage> out) {
        serverContext = Vertx.currentContext();
        streams.add(out);
        in.handler(msg -> onMessage(msg, out));
        in.endHandler(v -> out.end());
        in.exceptionHandler(e -> { });
      }

      @Override
      public Future<Topology> getTopology(TopologyRequest request) {
        Topology.Builder t = Topology.newBuilder().setThisNodeId(brokerId).addMembers(Member.newBuilder()
            .setNodeId(brokerId).setGrpcAddress(address()).setIncarnation(incarnation)
            .setState(MemberState.MEMBER_STATE_SERVING));
        for (String other : extraMembers) {
          t.addMembers(Member.newBuilder().setNodeId("peer-" + other).setGrpcAddress(other)
              .setState(MemberState.MEMBER_STATE_SERVING));
        }
        return Future.succeededFuture(t.build());
      }

      @Override
      public Future<TableInfo> getTableSchema(TableSchemaRequest request) {
        if (schemaNotYetKnown.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
          return Future.failedFuture(new StatusException(GrpcStatus.UNAVAILABLE, "the schema at ts "
              + request.getAtTs() + " is not known yet; retry shortly"));
        }
        TableEntry e = tables.get(request.getTableName());
        return e == null ? Future.failedFuture(new StatusException(GrpcStatus.NOT_FOUND, "no table " + request.getTableName()))
            : Future.succeededFuture(e.getTableInfo());
      }

      @Override
      public Future<TableList> listTables(ListTablesRequest request) {
        listCalls.incrementAndGet();
        return Future.succeededFuture(TableList.newBuilder().addAllTables(tables.values()).setAtTs(listAtTs).build());
      }
    });
    server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0))
        .requestHandler(grpc).listen().await(10, TimeUnit.SECONDS);
    return this;
  }

  public String address() {
    return "127.0.0.1:" + server.actualPort();
  }

  public int port() {
    return server.actualPort();
  }

  private void onMessage(CollectorMessage msg, WriteStream<BrokerMessage> out) {
    received.add(msg);
    switch (msg.getKindCase()) {
      case HELLO -> {
        helloNanos.add(System.nanoTime());
        current = out;
        if (welcome) {
          out.write(BrokerMessage.newBuilder().setWelcome(Welcome.newBuilder().setBrokerId(brokerId)
              .setIncarnation(incarnation).setProtocolVersion(ProtocolInfo.VERSION)
              .addAllFeatures(features.stream().filter(f -> msg.getHello().getRequiredFeaturesList().contains(f)
                  || msg.getHello().getOptionalFeaturesList().contains(f)).toList())).build());
        }
      }
      case HEARTBEAT_BATCH -> {
        heartbeatNanos.add(System.nanoTime());
        if (answerHeartbeats) {
          out.write(BrokerMessage.newBuilder().setHeartbeatResponse(HeartbeatResponse.getDefaultInstance()).build());
        }
      }
      case CREDIT_REPORT -> creditNanos.add(System.nanoTime());
      case DISPATCHER_REQUEST -> {
        if (autoControl) {
          autoAnswer(msg.getDispatcherRequest(), out);
        }
      }
      default -> { }
    }
  }

  private void autoAnswer(DispatcherRequest r, WriteStream<BrokerMessage> out) {
    out.write(ack(r, AckStatus.ACK_STATUS_ACCEPTED));
    switch (r.getAction()) {
      case DISPATCHER_ACTION_REGISTER -> out.write(BrokerMessage.newBuilder()
          .setReady(Ready.newBuilder().setDispatcherId(r.getDispatcherId())).build());
      case DISPATCHER_ACTION_RESET -> out.write(handshake(r));
      default -> { }
    }
  }

  public BrokerMessage handshake(DispatcherRequest r) {
    Handshake.Builder h = Handshake.newBuilder().setDispatcherId(r.getDispatcherId()).setEpoch(r.getEpoch())
        .setSeq(1).setStartTs(r.getStartTs()).setTableInfo(infoFor(r.getSpan().getTableId()));
    if (r.hasResumeCursor()) {
      h.setResumeCursor(r.getResumeCursor());
    }
    return BrokerMessage.newBuilder().setHandshake(h).build();
  }

  private TableInfo infoFor(long tableId) {
    for (TableEntry e : tables.values()) {
      if (e.getTableInfo().getTableId() == tableId) {
        return e.getTableInfo();
      }
    }
    return tableInfo;
  }

  public static BrokerMessage ack(DispatcherRequest r, AckStatus status) {
    return BrokerMessage.newBuilder().setControlAck(ControlAck.newBuilder().setDispatcherId(r.getDispatcherId())
        .setAction(r.getAction()).setEpoch(r.getEpoch()).setStatus(status)).build();
  }

  /** Writes {@code msg} on the newest stream, on the server's context. */
  public void send(BrokerMessage msg) {
    WriteStream<BrokerMessage> out = current;
    serverContext.runOnContext(v -> out.write(msg));
  }

  public void sendAll(List<BrokerMessage> msgs) {
    WriteStream<BrokerMessage> out = current;
    serverContext.runOnContext(v -> msgs.forEach(out::write));
  }

  /** Sends a StreamError and ends the stream, as PROTOCOL.md says a broker does. */
  public void streamError(dev.sluice.api.v1.ErrorCode code, String detail, boolean retryable) {
    WriteStream<BrokerMessage> out = current;
    serverContext.runOnContext(v -> {
      out.write(BrokerMessage.newBuilder().setStreamError(StreamError.newBuilder().setCode(code).setDetail(detail)
          .setRetryable(retryable)).build());
      out.end();
    });
  }

  /** Ends every open stream (the broker "restarts" when the incarnation is changed too). */
  public void endStreams() {
    Context ctx = serverContext;
    if (ctx != null) {
      ctx.runOnContext(v -> streams.forEach(s -> s.end().onFailure(e -> { })));
    }
  }

  /** Dispatcher requests received so far matching {@code action}, in order. */
  public List<DispatcherRequest> requests(DispatcherAction action) {
    List<DispatcherRequest> out = new ArrayList<>();
    for (CollectorMessage m : received) {
      if (m.hasDispatcherRequest() && m.getDispatcherRequest().getAction() == action) {
        out.add(m.getDispatcherRequest());
      }
    }
    return out;
  }

  public List<CollectorMessage> messages(Predicate<CollectorMessage> p) {
    return received.stream().filter(p).toList();
  }

  public DispatcherRequest lastRequest(DispatcherAction action) {
    List<DispatcherRequest> rs = requests(action);
    return rs.isEmpty() ? null : rs.get(rs.size() - 1);
  }

  public static DispatcherId id(DispatcherRequest r) {
    return DispatcherId.fromProto(r.getDispatcherId());
  }

  @Override
  public void close() {
    if (server != null) {
      try {
        server.close().await(10, TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        throw new IllegalStateException("scripted broker did not close in 10 s", e);
      }
    }
  }
}
