package dev.sluice.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.EventServiceGrpc;
import dev.sluice.api.v1.TopologyRequest;
import dev.sluice.broker.NodeIdentity;
import dev.sluice.broker.control.ConnectionLimits;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.testing.RawHttp2Client;
import dev.sluice.broker.testing.StoreFixture;
import dev.sluice.broker.testing.TestCollector;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.vertx.core.Vertx;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gRPC port's admission over real sockets: a connection cap (one more is closed at once and counted),
 * a deadline for a socket's first bytes and a connection's first stream, one for a Connect stream's Hello,
 * and one for a connection left without streams; a live connection with a quiet stream is kept (it answers
 * the broker's pings). Short limits: 5 connections, 600 ms preface and Hello deadlines, 1.5 s idle.
 */
class GrpcPortAdmissionTest {

  private static final Duration PREFACE = Duration.ofMillis(600);
  private static final Duration HELLO = Duration.ofMillis(600);
  private static final Duration IDLE = Duration.ofMillis(1500);

  @TempDir Path dir;
  Vertx vertx;
  StoreFixture stores;
  EventService service;
  final List<AutoCloseable> opened = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    stores = new StoreFixture(dir);
    stores.createTable(100, "orders");
    stores.heartbeat();
    EventServiceConfig config = EventServiceConfig.defaults()
        .withConnections(ConnectionLimits.defaults().withMaxConnections(5).withTimeouts(PREFACE, HELLO, IDLE));
    service = EventService.start(vertx, config, NodeIdentity.fresh("node-a", null, null), "127.0.0.1", 0,
        stores.events, stores.schema, stores.meters).await(20, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : opened) {
      c.close();
    }
    service.close().await(20, TimeUnit.SECONDS);
    vertx.close().await(20, TimeUnit.SECONDS);
    stores.close();
  }

  private RawHttp2Client h2() {
    RawHttp2Client c = RawHttp2Client.connect(service.port());
    opened.add(c);
    return c;
  }

  private double gauge(String name) {
    return stores.meters.get(name).gauge().value();
  }

  private double counter(String name, String... tags) {
    return stores.meters.get(name).tags(tags).counter().count();
  }

  @Test
  void connectionsBeyondTheLimitAreClosedAtOnceAndCounted() {
    List<RawHttp2Client> admitted = new ArrayList<>();
    List<RawHttp2Client.Stream> streams = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      RawHttp2Client c = h2();
      admitted.add(c);
      streams.add(c.open("/sluice.v1.EventService/Connect", Map.of()));   // a stream: not closed as idle
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> gauge("sluice.grpc.connections.open") == 5);
    assertThat(gauge("sluice.grpc.connections.limit")).isEqualTo(5);

    List<RawHttp2Client> beyond = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      beyond.add(h2());
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> beyond.stream().noneMatch(RawHttp2Client::isActive));
    assertThat(counter("sluice.grpc.connections.refused")).isEqualTo(3);
    assertThat(admitted).allMatch(RawHttp2Client::isActive);
    assertThat(gauge("sluice.grpc.connections.open")).isEqualTo(5);

    admitted.get(0).close();   // a slot frees: the next client is served
    await().atMost(Duration.ofSeconds(10)).until(() -> gauge("sluice.grpc.connections.open") == 4);
    assertThat(topology().getThisNodeId()).isEqualTo("node-a");
  }

  @Test
  void aSocketThatSendsNothingOrNoPrefaceIsClosedAfterThePrefaceDeadline() throws Exception {
    for (byte[] sent : List.of(new byte[0], "PRI * HTTP/2.0\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII))) {
      try (Socket s = new Socket("127.0.0.1", service.port())) {
        s.setSoTimeout(15_000);   // a guard for the test only: the broker closes well before
        s.getOutputStream().write(sent);
        long t0 = System.nanoTime();
        InputStream in = s.getInputStream();
        assertThat(in.read()).as("the broker closed the silent socket (sent " + sent.length + " bytes)").isEqualTo(-1);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(PREFACE.minusMillis(100));
      }
    }
  }

  @Test
  void aConnectionThatOpensNoStreamIsClosedAfterThePrefaceDeadline() {
    RawHttp2Client quiet = h2();
    await().atMost(Duration.ofSeconds(10)).until(() -> !quiet.isActive());
    assertThat(counter("sluice.grpc.connections.closed", "reason", "no_stream")).isEqualTo(1);
  }

  @Test
  void aQuietStreamKeepsItsConnectionBecauseItAnswersThePings() {
    TestCollector c = TestCollector.connect(service.port());
    opened.add(c);
    c.hello("quiet");
    // nothing is sent either way for several preface deadlines: only the broker's pings and their acks
    await().during(PREFACE.multipliedBy(4)).atMost(PREFACE.multipliedBy(8)).until(() -> !c.isClosed());
    assertThat(gauge("sluice.grpc.connections.open")).isEqualTo(1);
  }

  @Test
  void aConnectionWhoseStreamsEndedIsClosedAfterTheIdleTimeout() {
    RawHttp2Client c = h2();
    RawHttp2Client.Stream s = c.open("/sluice.v1.EventService/GetTopology", Map.of());
    s.send(RawHttp2Client.frame(false, TopologyRequest.getDefaultInstance().toByteArray()), true);
    await().atMost(Duration.ofSeconds(10)).until(() -> !s.messages().isEmpty());
    long answered = System.nanoTime();
    await().atMost(Duration.ofSeconds(15)).until(() -> !c.isActive());
    assertThat(Duration.ofNanos(System.nanoTime() - answered)).as("open after its last stream")
        .isGreaterThanOrEqualTo(IDLE.minusMillis(200));
    assertThat(counter("sluice.grpc.connections.closed", "reason", "idle")).isEqualTo(1);
  }

  @Test
  void aConnectStreamThatStaysSilentGetsMissingHelloAtItsDeadline() throws Exception {
    RawHttp2Client c = h2();
    RawHttp2Client.Stream s = c.open("/sluice.v1.EventService/Connect", Map.of());   // headers only, no message
    long t0 = System.nanoTime();
    var trailers = s.trailers(Duration.ofSeconds(10));
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(HELLO.minusMillis(100));
    assertThat(trailers.get("grpc-status").toString()).isEqualTo(String.valueOf(Status.Code.INVALID_ARGUMENT.value()));
    BrokerMessage err = parse(s.messages().get(0));
    assertThat(err.getStreamError().getCode()).isEqualTo(ErrorCode.MISSING_HELLO.toWire());
    assertThat(err.getStreamError().getDetail()).contains("no Hello within 600 ms");
    assertThat(counter("sluice.streams.errors", "code", "MISSING_HELLO")).isEqualTo(1);
  }

  private dev.sluice.api.v1.Topology topology() {
    ManagedChannel ch = ManagedChannelBuilder.forAddress("127.0.0.1", service.port()).usePlaintext().build();
    try {
      return EventServiceGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS)
          .getTopology(TopologyRequest.getDefaultInstance());
    } finally {
      ch.shutdownNow();
    }
  }

  private static BrokerMessage parse(byte[] m) {
    try {
      return BrokerMessage.parseFrom(m);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
