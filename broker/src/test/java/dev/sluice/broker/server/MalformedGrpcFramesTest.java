package dev.sluice.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.AckStatus;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.Hello;
import dev.sluice.api.v1.Topology;
import dev.sluice.api.v1.TopologyRequest;
import dev.sluice.broker.NodeIdentity;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.testing.RawHttp2Client;
import dev.sluice.broker.testing.StoreFixture;
import dev.sluice.broker.testing.TestCollector;
import io.netty.handler.codec.http2.Http2Headers;
import io.vertx.core.Vertx;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * What no stock gRPC client sends, sent as raw HTTP/2 frames to a real broker: every such stream gets a
 * gRPC status of its own (and a Connect stream a StreamError first), only that stream ends, nothing is
 * logged with a stack trace, and the other streams of the same connection and of other connections go on.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MalformedGrpcFramesTest {

  private static final String SERVICE = "/sluice.v1.EventService/";

  /** method | grpc-encoding (- = none) | message sent | grpc-status | grpc-message fragment. */
  private static final String TABLE = """
      GetTopology    | -      | compressed-flag    | 13 | flagged compressed but the request names no grpc-encoding
      ListTables     | -      | compressed-flag    | 13 | flagged compressed but the request names no grpc-encoding
      GetTableSchema | -      | compressed-flag    | 13 | flagged compressed but the request names no grpc-encoding
      GetTopology    | -      | garbage            | 3  | malformed sluice.v1.TopologyRequest
      ListTables     | -      | garbage            | 3  | malformed sluice.v1.ListTablesRequest
      GetTableSchema | -      | garbage            | 3  | malformed sluice.v1.TableSchemaRequest
      GetTopology    | snappy | plain              | 12 | grpc-encoding snappy is not supported
      GetTopology    | gzip   | gzip-garbage       | 13 | could not decompress
      GetTopology    | gzip   | gzip               | 0  | -
      GetTopology    | gzip   | plain              | 0  | -
      GetTopology    | -      | plain              | 0  | -
      Connect        | -      | compressed-flag    | 13 | flagged compressed but the request names no grpc-encoding
      Connect        | -      | garbage            | 3  | malformed message
      Connect        | snappy | plain              | 12 | grpc-encoding snappy is not supported
      """;

  @TempDir static Path dir;
  Vertx vertx;
  StoreFixture stores;
  EventService service;
  RawHttp2Client h2;
  final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  @BeforeAll
  void startService() throws Exception {
    vertx = Vertx.vertx();
    stores = new StoreFixture(dir);
    stores.createTable(100, "orders");
    stores.heartbeat();
    service = EventService.start(vertx, EventServiceConfig.defaults(), NodeIdentity.fresh("node-a", null, null),
        "127.0.0.1", 0, stores.events, stores.schema, stores.meters).await(20, TimeUnit.SECONDS);
    logged.start();
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logged);
    h2 = RawHttp2Client.connect(service.port());
  }

  @AfterAll
  void stop() throws Exception {
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logged);
    h2.close();
    service.close().await(20, TimeUnit.SECONDS);
    vertx.close().await(20, TimeUnit.SECONDS);
    stores.close();
  }

  static Stream<String> rows() {
    return TABLE.strip().lines();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void eachMistakeGetsAStatusOfItsOwn(String row) throws Exception {
    String[] col = row.split("\\|");
    String method = col[0].strip();
    RawHttp2Client.Stream s = send(method, col[1].strip(), col[2].strip());
    Http2Headers trailers = s.trailers(Duration.ofSeconds(10));
    String message = trailers.contains("grpc-message") ? decode(trailers.get("grpc-message").toString()) : "";
    assertThat(trailers.get("grpc-status")).as(row + " (grpc-message: " + message + ")").isNotNull();
    assertThat(trailers.get("grpc-status").toString()).as(row + " (grpc-message: " + message + ")")
        .isEqualTo(col[3].strip());
    if (!col[4].strip().equals("-")) {
      assertThat(message).contains(col[4].strip());
    }
    if (col[3].strip().equals("12")) {
      assertThat(trailers.get("grpc-accept-encoding")).as("what the broker accepts").isNotNull();
    }
    if (method.equals("GetTopology") && col[3].strip().equals("0")) {
      assertThat(Topology.parseFrom(s.messages().get(0)).getThisNodeId()).isEqualTo("node-a");
    }
    if (method.equals("Connect") && !col[3].strip().equals("12")) {
      BrokerMessage err = BrokerMessage.parseFrom(s.messages().get(s.messages().size() - 1));
      assertThat(err.hasStreamError()).as("a Connect stream is told why first").isTrue();
      assertThat(err.getStreamError().getDetail()).contains(col[4].strip());
    }
  }

  @Test
  void manyMistakesHoldNothingAndTheOtherStreamsGoOn() throws Exception {
    TestCollector good = TestCollector.connect(service.port());
    try {
      good.hello("good");
      DispatcherId id = DispatcherId.random();
      List<RawHttp2Client.Stream> bad = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        bad.add(send(i % 2 == 0 ? "Connect" : "GetTopology", "-", "compressed-flag"));
      }
      for (RawHttp2Client.Stream s : bad) {
        assertThat(s.trailers(Duration.ofSeconds(20)).get("grpc-status").toString()).isEqualTo("13");
      }
      // the same connection and another one still serve
      RawHttp2Client.Stream same = send("GetTopology", "-", "plain");
      assertThat(same.trailers(Duration.ofSeconds(10)).get("grpc-status").toString()).isEqualTo("0");
      assertThat(h2.isActive()).isTrue();
      assertThat(good.ack(TestCollector.register(id, TableSpan.wholeTable(100), stores.lastTs()).build()).getStatus())
          .isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
      good.assertOpen();
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
          .until(() -> stores.meters.get("sluice.streams.open").gauge().value() == 1);   // only the good one
      assertThat(stores.meters.get("sluice.grpc.rejected").tag("reason", "compressed_without_encoding").counter().count())
          .isGreaterThanOrEqualTo(200);
      List<ILoggingEvent> warns = logged.list.stream()
          .filter(e -> e.getFormattedMessage().contains("compressed")).toList();
      assertThat(warns.size()).as("warnings about 200 mistakes: rate-limited").isLessThan(20);
    } finally {
      good.close();
    }
  }

  @Test
  void noClientMistakeIsLoggedWithAStackTrace() throws Exception {
    for (String row : TABLE.strip().lines().toList()) {
      String[] col = row.split("\\|");
      send(col[0].strip(), col[1].strip(), col[2].strip()).trailers(Duration.ofSeconds(10));
    }
    assertThat(logged.list).as("log events with a stack trace or at ERROR")
        .filteredOn(e -> e.getThrowableProxy() != null || e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.ERROR))
        .extracting(e -> e.getLoggerName() + ": " + e.getFormattedMessage()
            + (e.getThrowableProxy() == null ? "" : " / " + e.getThrowableProxy().getClassName()))
        .isEmpty();
  }

  private RawHttp2Client.Stream send(String method, String encoding, String what) throws Exception {
    byte[] message = method.equals("Connect")
        ? CollectorMessage.newBuilder().setHello(Hello.newBuilder().setCollectorId("raw").setProtocolVersion(1)).build()
            .toByteArray()
        : method.equals("GetTableSchema")
        ? dev.sluice.api.v1.TableSchemaRequest.newBuilder().setTableId(100).build().toByteArray()
        : method.equals("ListTables") ? dev.sluice.api.v1.ListTablesRequest.getDefaultInstance().toByteArray()
        : TopologyRequest.getDefaultInstance().toByteArray();
    byte[] framed = switch (what) {
      case "plain" -> RawHttp2Client.frame(false, message);
      case "compressed-flag" -> RawHttp2Client.frame(true, message);
      case "garbage" -> RawHttp2Client.frame(false, new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07});
      case "gzip" -> RawHttp2Client.frame(true, gzip(message));
      case "gzip-garbage" -> RawHttp2Client.frame(true, new byte[] {1, 2, 3, 4, 5});
      default -> throw new IllegalArgumentException(what);
    };
    RawHttp2Client.Stream s = h2.open(SERVICE + method, encoding.equals("-") ? Map.of() : Map.of("grpc-encoding", encoding));
    s.send(framed, !method.equals("Connect"));
    return s;
  }

  private static byte[] gzip(byte[] b) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream z = new GZIPOutputStream(out)) {
      z.write(b);
    }
    return out.toByteArray();
  }

  private static String decode(String grpcMessage) {
    return java.net.URLDecoder.decode(grpcMessage.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8);
  }
}
