package dev.sluice.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.AckStatus;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.Resolved;
import dev.sluice.broker.NodeIdentity;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.testing.StoreFixture;
import dev.sluice.broker.testing.TestCollector;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Watermarks from the broker's side: the watermarks of several dispatchers of one stream (on both
 * data-plane instances) travel together in one ResolvedBatch, flushed by the stream's flush timer with no
 * other traffic to push it; and the per-changefeed lag meter tells a changefeed held back from one that
 * keeps up. Real service over gRPC, real stores.
 */
class WatermarksTest {

  @TempDir Path dir;
  Vertx vertx;
  StoreFixture stores;
  EventService service;
  final List<TestCollector> collectors = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    stores = new StoreFixture(dir);
    stores.createTable(100, "orders");
    stores.createTable(200, "items");
    stores.heartbeat();
    service = EventService.start(vertx, EventServiceConfig.defaults(), NodeIdentity.fresh("node-a", null, null),
        "127.0.0.1", 0, stores.events, stores.schema, stores.meters).await(20, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    collectors.forEach(TestCollector::close);
    service.close().await(20, TimeUnit.SECONDS);
    vertx.close().await(20, TimeUnit.SECONDS);
    stores.close();
  }

  private TestCollector collector() {
    TestCollector c = TestCollector.connect(service.port());
    collectors.add(c);
    c.hello("watermarks");
    return c;
  }

  private DispatcherId streaming(TestCollector c, String changefeed, long table, long startTs, boolean credit) {
    DispatcherId id = DispatcherId.random();
    assertThat(c.ack(TestCollector.register(id, TableSpan.wholeTable(table), startTs).setChangefeedId(changefeed)
        .build()).getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    assertThat(c.ack(TestCollector.reset(id, 1, startTs).build()).getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    if (credit) {
      c.credit(id, 1, 64 << 20, 0);
    }
    return id;
  }

  @Test
  void theWatermarksOfSeveralDispatchersOfAStreamShareOneResolvedBatch() {
    TestCollector c = collector();
    long start = stores.lastTs();
    Set<DispatcherId> ids = new HashSet<>();
    for (int i = 0; i < 6; i++) {   // hashed over both data-plane instances
      ids.add(streaming(c, "cf", 100, start, true));
    }
    long ts = stores.heartbeat();   // idle dispatchers: one pass moves every watermark, no scan

    BrokerMessage batch = c.next(m -> m.hasResolvedBatch() && m.getResolvedBatch().getResolvedList().stream()
        .anyMatch(r -> r.getTs() == ts), Duration.ofSeconds(10));

    Set<DispatcherId> inBatch = new HashSet<>();
    for (Resolved r : batch.getResolvedBatch().getResolvedList()) {
      assertThat(r.getTs()).isEqualTo(ts);
      assertThat(r.getLastSeq()).as("nothing but the handshake was sent").isEqualTo(1);
      assertThat(inBatch.add(DispatcherId.fromProto(r.getDispatcherId()))).as("one watermark per dispatcher").isTrue();
    }
    assertThat(inBatch).as("every dispatcher's watermark of ts " + ts + " in the one batch the timer flushed")
        .isEqualTo(ids);
  }

  @Test
  void theLagMeterOfAChangefeedHeldBackGrowsWhileTheOneThatKeepsUpStaysLow() {
    TestCollector c = collector();
    long start = stores.lastTs();
    streaming(c, "keeps-up", 100, start, true);
    streaming(c, "held-back", 200, start, false);   // no credit: its rows are never scanned
    stores.insert(200, 1, 2, 3);
    // the held-back lag grows without end; the other one is republished every second from a fresh watermark
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      stores.heartbeat();   // the stores keep resolving; only the changefeed with credit follows
      return lag("held-back") >= 2500 && lag("keeps-up") >= 0 && lag("keeps-up") < 1000;
    });
  }

  private double lag(String changefeed) {
    var gauge = stores.meters.find("sluice.changefeed.resolved.lag.ms").tag("changefeed", changefeed).gauge();
    return gauge == null ? -1 : gauge.value();
  }
}
