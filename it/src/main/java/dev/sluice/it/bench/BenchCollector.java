package dev.sluice.it.bench;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.ProtocolInfo;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.CreditReport;
import dev.sluice.api.v1.DataEvent;
import dev.sluice.api.v1.DispatcherAction;
import dev.sluice.api.v1.DispatcherCredit;
import dev.sluice.api.v1.DispatcherRequest;
import dev.sluice.api.v1.EventServiceGrpcClient;
import dev.sluice.api.v1.Hello;
import dev.sluice.api.v1.Resolved;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientOptions;
import io.vertx.grpc.client.GrpcClientRequest;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A lean collector for benchmarks: one Connect stream multiplexing many dispatchers, generous credit,
 * every message parsed (as a real consumer would), counts and timings kept per dispatcher. Not the
 * dispatcher library: it measures the broker, with the least client work that still decodes rows.
 * All state lives on one Vert.x context; query methods hop onto it.
 */
final class BenchCollector implements AutoCloseable {

  static final long CREDIT_WINDOW = 64L << 20;

  static final class Stream {
    final DispatcherId id;
    long epoch;
    long rows;
    long receivedBytes;
    long resolvedTs;
    long resolvedAtNanos;
    long maxResolvedGapNanos;
    long registerSentNanos;
    long readyNanos;
    long resetSentNanos;
    long handshakeNanos;

    Stream(DispatcherId id) {
      this.id = id;
    }
  }

  private final Vertx vertx;
  private final Context context;
  private final GrpcClient client;
  private GrpcClientRequest<CollectorMessage, BrokerMessage> request;
  private final Map<DispatcherId, Stream> streams = new HashMap<>();
  final AtomicLong totalRows = new AtomicLong();
  final AtomicLong readies = new AtomicLong();
  final AtomicLong handshakes = new AtomicLong();
  /** Receive time minus commit time (µs, this machine's clock) of every DML batch, when recording. */
  final java.util.concurrent.ConcurrentLinkedQueue<Long> latencyMicros = new java.util.concurrent.ConcurrentLinkedQueue<>();
  volatile boolean recordLatency;
  private final boolean creditOnHandshake;

  BenchCollector(Vertx vertx, int port, String collectorId, boolean periodicCredit) throws Exception {
    this(vertx, port, collectorId, periodicCredit, true);
  }

  /**
   * @param creditOnHandshake whether a dispatcher reports credit when its handshake arrives; without,
   *     it is never scanned and the stream carries only control messages and watermarks
   */
  BenchCollector(Vertx vertx, int port, String collectorId, boolean periodicCredit, boolean creditOnHandshake)
      throws Exception {
    this.vertx = vertx;
    this.creditOnHandshake = creditOnHandshake;
    this.context = vertx.getOrCreateContext();
    this.client = GrpcClient.client(vertx, new GrpcClientOptions().setMaxMessageSize(64L << 20), new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2)
        .setHttp2ClearTextUpgrade(false).setInitialSettings(new Http2Settings().setInitialWindowSize(1 << 20))
        .setHttp2ConnectionWindowSize(8 << 20));
    CompletableFuture<Void> welcomed = new CompletableFuture<>();
    context.runOnContext(v -> client.request(SocketAddress.inetSocketAddress(port, "127.0.0.1"),
        EventServiceGrpcClient.Connect).onSuccess(req -> {
          request = req;
          req.response().onSuccess(resp -> resp.handler(m -> {
            if (m.hasWelcome()) {
              welcomed.complete(null);
            }
            onMessage(m);
          })).onFailure(welcomed::completeExceptionally);
          req.write(CollectorMessage.newBuilder().setHello(Hello.newBuilder().setCollectorId(collectorId)
              .setProtocolVersion(ProtocolInfo.VERSION).addAllOptionalFeatures(ProtocolInfo.BROKER_FEATURES)).build());
        }).onFailure(welcomed::completeExceptionally));
    welcomed.get(30, TimeUnit.SECONDS);
    if (periodicCredit) {
      vertx.setPeriodic(200, t -> context.runOnContext(v -> grantCredit()));
    }
  }

  private void onMessage(BrokerMessage m) {
    long now = System.nanoTime();
    switch (m.getKindCase()) {
      case READY -> {
        Stream s = streams.get(DispatcherId.fromProto(m.getReady().getDispatcherId()));
        if (s != null && s.readyNanos == 0) {
          s.readyNanos = now;
          readies.incrementAndGet();
        }
      }
      case HANDSHAKE -> {
        Stream s = streams.get(DispatcherId.fromProto(m.getHandshake().getDispatcherId()));
        if (s != null) {
          s.handshakeNanos = now;
          s.epoch = m.getHandshake().getEpoch();
          s.receivedBytes = 0;
          handshakes.incrementAndGet();
          if (creditOnHandshake) {
            credit(s);
          }
        }
      }
      case EVENT_BATCH -> {
        Stream s = streams.get(DispatcherId.fromProto(m.getEventBatch().getDispatcherId()));
        if (s != null) {
          for (DataEvent e : m.getEventBatch().getEventsList()) {
            s.receivedBytes += e.getSerializedSize();
            if (e.hasDml()) {
              if (recordLatency && e.getDml().getCommitTimeMicros() > 0) {
                latencyMicros.add(System.currentTimeMillis() * 1000 - e.getDml().getCommitTimeMicros());
              }
              s.rows += e.getDml().getRowsCount();
              totalRows.addAndGet(e.getDml().getRowsCount());
            }
          }
        }
      }
      case RESOLVED_BATCH -> {
        for (Resolved r : m.getResolvedBatch().getResolvedList()) {
          Stream s = streams.get(DispatcherId.fromProto(r.getDispatcherId()));
          if (s != null) {
            if (s.resolvedAtNanos != 0) {
              s.maxResolvedGapNanos = Math.max(s.maxResolvedGapNanos, now - s.resolvedAtNanos);
            }
            s.resolvedTs = r.getTs();
            s.resolvedAtNanos = now;
          }
        }
      }
      default -> { }
    }
  }

  private void credit(Stream s) {
    request.write(CollectorMessage.newBuilder().setCreditReport(CreditReport.newBuilder().addDispatchers(
        DispatcherCredit.newBuilder().setDispatcherId(s.id.toProto()).setEpoch(s.epoch).setAvailableBytes(CREDIT_WINDOW)
            .setReceivedBytes(s.receivedBytes))).build());
  }

  private void grantCredit() {
    CreditReport.Builder report = CreditReport.newBuilder();
    for (Stream s : streams.values()) {
      if (s.epoch > 0) {
        report.addDispatchers(DispatcherCredit.newBuilder().setDispatcherId(s.id.toProto()).setEpoch(s.epoch)
            .setAvailableBytes(CREDIT_WINDOW).setReceivedBytes(s.receivedBytes));
      }
      if (report.getDispatchersCount() >= 5000) {
        request.write(CollectorMessage.newBuilder().setCreditReport(report).build());
        report = CreditReport.newBuilder();
      }
    }
    if (report.getDispatchersCount() > 0) {
      request.write(CollectorMessage.newBuilder().setCreditReport(report).build());
    }
  }

  /** Registers and resets a dispatcher of {@code span} from {@code startTs} (epoch 1). */
  void subscribe(DispatcherId id, TableSpan span, long startTs) {
    context.runOnContext(v -> {
      Stream s = new Stream(id);
      streams.put(id, s);
      s.registerSentNanos = System.nanoTime();
      request.write(CollectorMessage.newBuilder().setDispatcherRequest(DispatcherRequest.newBuilder()
          .setDispatcherId(id.toProto()).setChangefeedId("bench").setSpan(span.toProto())
          .setAction(DispatcherAction.DISPATCHER_ACTION_REGISTER).setStartTs(startTs)).build());
      s.resetSentNanos = System.nanoTime();
      request.write(CollectorMessage.newBuilder().setDispatcherRequest(DispatcherRequest.newBuilder()
          .setDispatcherId(id.toProto()).setAction(DispatcherAction.DISPATCHER_ACTION_RESET).setEpoch(1)
          .setStartTs(startTs)).build());
    });
  }

  /** A snapshot of one dispatcher's figures, copied on the collector's context. */
  Stream snapshot(DispatcherId id) {
    CompletableFuture<Stream> f = new CompletableFuture<>();
    context.runOnContext(v -> {
      Stream s = streams.get(id);
      Stream copy = new Stream(id);
      if (s != null) {
        copy.epoch = s.epoch;
        copy.rows = s.rows;
        copy.resolvedTs = s.resolvedTs;
        copy.resolvedAtNanos = s.resolvedAtNanos;
        copy.maxResolvedGapNanos = s.maxResolvedGapNanos;
        copy.registerSentNanos = s.registerSentNanos;
        copy.readyNanos = s.readyNanos;
        copy.resetSentNanos = s.resetSentNanos;
        copy.handshakeNanos = s.handshakeNanos;
      }
      f.complete(copy);
    });
    return f.join();
  }

  /** The lowest resolved ts and the largest resolved gap (ns) over all dispatchers; resets the gaps. */
  long[] watermarkSummary() {
    CompletableFuture<long[]> f = new CompletableFuture<>();
    context.runOnContext(v -> {
      long min = Long.MAX_VALUE;
      long gap = 0;
      long now = System.nanoTime();
      for (Stream s : streams.values()) {
        min = Math.min(min, s.resolvedTs);
        gap = Math.max(gap, Math.max(s.maxResolvedGapNanos, s.resolvedAtNanos == 0 ? Long.MAX_VALUE : now - s.resolvedAtNanos));
        s.maxResolvedGapNanos = 0;
      }
      f.complete(new long[] {min, gap});
    });
    return f.join();
  }

  int size() {
    CompletableFuture<Integer> f = new CompletableFuture<>();
    context.runOnContext(v -> f.complete(streams.size()));
    return f.join();
  }

  @Override
  public void close() {
    client.close();
  }
}
