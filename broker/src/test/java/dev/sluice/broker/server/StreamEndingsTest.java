package dev.sluice.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.AckStatus;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.Hello;
import dev.sluice.broker.NodeIdentity;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.testing.RawHttp2Client;
import dev.sluice.broker.testing.StoreFixture;
import dev.sluice.broker.testing.TestCollector;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * How a collector stream ends when the collector leaves: cancelled (RST_STREAM) on a connection that
 * stays, or with its whole connection gone. Either way the broker drops the stream's dispatchers and
 * counts the stream closed, and logs nothing at ERROR or with a stack trace (ending a closed HTTP/2 stream
 * with trailers failed inside Vert.x with a NullPointerException on every reconnect; a cancel was never
 * noticed at all). Real service, stock grpc-java client and a raw HTTP/2 client.
 */
class StreamEndingsTest {

  @TempDir Path dir;
  Vertx vertx;
  StoreFixture stores;
  EventService service;
  long start;
  final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  @BeforeEach
  void startService() throws Exception {
    vertx = Vertx.vertx();
    stores = new StoreFixture(dir);
    stores.createTable(100, "orders");
    start = stores.heartbeat();
    service = EventService.start(vertx, EventServiceConfig.defaults(), NodeIdentity.fresh("node-a", null, null),
        "127.0.0.1", 0, stores.events, stores.schema, stores.meters).await(20, TimeUnit.SECONDS);
    logged.start();
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logged);
  }

  @AfterEach
  void stop() throws Exception {
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logged);
    service.close().await(20, TimeUnit.SECONDS);
    vertx.close().await(20, TimeUnit.SECONDS);
    stores.close();
  }

  @Test
  void aCancelledStreamDropsItsDispatchers() {
    TestCollector c = TestCollector.connect(service.port());
    try {
      c.hello("cancels");
      streamingDispatcher(c);
      c.cancel();   // the connection stays open
      await().atMost(Duration.ofSeconds(10)).until(() -> service.controlPlane().dispatchers().await().isEmpty()
          && openStreams() == 0);
    } finally {
      c.close();
    }
    assertNothingLoggedAsAnError();
  }

  @Test
  void aConnectionThatDropsLeavesNoErrorBehind() throws Exception {
    TestCollector c = TestCollector.connect(service.port());
    c.hello("drops");
    streamingDispatcher(c);
    RawHttp2Client raw = RawHttp2Client.connect(service.port());
    RawHttp2Client.Stream s = raw.open("/sluice.v1.EventService/Connect", Map.of());
    s.send(RawHttp2Client.frame(false, CollectorMessage.newBuilder().setHello(Hello.newBuilder().setCollectorId("raw")
        .setProtocolVersion(1)).build().toByteArray()), false);
    await().atMost(Duration.ofSeconds(10)).until(() -> s.messages().stream().anyMatch(m -> parse(m).hasWelcome()));
    assertThat(openStreams()).isEqualTo(2);

    raw.close();   // TCP closed under an open stream, no RST_STREAM first
    c.close();
    await().atMost(Duration.ofSeconds(10)).until(() -> service.controlPlane().dispatchers().await().isEmpty()
        && openStreams() == 0);
    assertNothingLoggedAsAnError();
  }

  private void streamingDispatcher(TestCollector c) {
    DispatcherId id = DispatcherId.random();
    assertThat(c.ack(TestCollector.register(id, TableSpan.wholeTable(100), start).build()).getStatus())
        .isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    assertThat(c.ack(TestCollector.reset(id, 1, start).build()).getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    c.credit(id, 1, 1 << 20, 0);
    assertThat(service.controlPlane().dispatchers().await()).hasSize(1);
  }

  private double openStreams() {
    return stores.meters.get("sluice.streams.open").gauge().value();
  }

  private void assertNothingLoggedAsAnError() {
    assertThat(logged.list).as("log events with a stack trace or at ERROR")
        .filteredOn(e -> e.getThrowableProxy() != null || e.getLevel().isGreaterOrEqual(Level.ERROR))
        .extracting(e -> e.getLoggerName() + ": " + e.getFormattedMessage()
            + (e.getThrowableProxy() == null ? "" : " / " + e.getThrowableProxy().getClassName()))
        .isEmpty();
  }

  private static BrokerMessage parse(byte[] m) {
    try {
      return BrokerMessage.parseFrom(m);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
