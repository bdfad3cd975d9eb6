package dev.sluice.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.AckStatus;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.ControlAck;
import dev.sluice.api.v1.DispatcherHeartbeat;
import dev.sluice.api.v1.DispatcherStatusState;
import dev.sluice.api.v1.HeartbeatBatch;
import dev.sluice.broker.NodeIdentity;
import dev.sluice.broker.control.DispatcherView;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.testing.ReceiverRules;
import dev.sluice.broker.testing.StoreFixture;
import dev.sluice.broker.testing.TestCollector;
import dev.sluice.schema.TableInfo;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Resets racing each other and racing scans, heartbeats, and the GC point against live checkpoints. */
class ResetConcurrencyTest {

  @TempDir Path dir;
  Vertx vertx;
  StoreFixture stores;
  EventService service;
  TableInfo orders;
  TestCollector c;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    stores = new StoreFixture(dir);
    orders = stores.createTable(100, "orders");
    serve(EventServiceConfig.defaults()
        .withLimits(EventServiceConfig.defaults().limits().withScanBatchBytes(16 << 10)));
  }

  private void serve(EventServiceConfig config) throws Exception {
    if (service != null) {
      c.close();
      service.close().await(20, TimeUnit.SECONDS);
    }
    service = EventService.start(vertx, config, NodeIdentity.fresh("node-a", null, null), "127.0.0.1", 0,
        stores.events, stores.schema, stores.meters).await(20, TimeUnit.SECONDS);
    c = TestCollector.connect(service.port());
    c.hello("c");
  }

  @AfterEach
  void stop() throws Exception {
    c.close();
    service.close().await(20, TimeUnit.SECONDS);
    vertx.close().await(20, TimeUnit.SECONDS);
    stores.close();
  }

  @Test
  void tenRacingResetsLeaveTheHighestEpochWithOneHandshakePerAcceptedEpoch() {
    DispatcherId id = DispatcherId.random();
    c.ack(TestCollector.register(id, TableSpan.wholeTable(100), orders.version()).build());
    List<Long> epochs = new ArrayList<>();
    for (long e = 1; e <= 10; e++) {
      epochs.add(e);
    }
    Collections.shuffle(epochs, new Random(7));
    for (long e : epochs) {
      c.request(TestCollector.reset(id, e, orders.version()).build());
    }
    List<ControlAck> acks = new ArrayList<>();
    List<Long> handshakes = new ArrayList<>();
    c.takeUntil(m -> {
      if (m.hasControlAck() && m.getControlAck().getDispatcherId().equals(id.toProto())) {
        acks.add(m.getControlAck());
      }
      if (m.hasHandshake()) {
        handshakes.add(m.getHandshake().getEpoch());
      }
    }, m -> acks.size() == 10, Duration.ofSeconds(10));

    List<Long> accepted = new ArrayList<>();
    for (ControlAck a : acks) {
      if (a.getStatus() == AckStatus.ACK_STATUS_ACCEPTED) {
        accepted.add(a.getEpoch());
      } else {
        assertThat(a.getStatus()).isEqualTo(AckStatus.ACK_STATUS_STALE);
        assertThat(a.getEpoch()).as("a STALE ack names the epoch that won").isGreaterThan(0);
      }
    }
    assertThat(accepted).contains(10L).isSorted();
    // exactly one handshake per accepted epoch, in the order they were accepted
    assertThat(handshakes).isEqualTo(accepted);
    assertThat(service.controlPlane().dispatchers().await()).singleElement()
        .satisfies(v -> assertThat(v.epoch()).isEqualTo(10));
  }

  @Test
  void aResetDuringAnInFlightScanCancelsItAndNoOldEventFollowsTheNewHandshake() {
    DispatcherId id = DispatcherId.random();
    long from = orders.version();
    long last = 0;
    for (int t = 0; t < 200; t++) {
      long[] ids = new long[100];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = t * 1000L + i;
      }
      last = stores.insert(100, ids);
    }
    ReceiverRules rules = new ReceiverRules();
    c.ack(TestCollector.register(id, TableSpan.wholeTable(100), from).build());
    c.request(TestCollector.reset(id, 1, from).build());
    rules.accept(c.next(BrokerMessage::hasHandshake));
    c.credit(id, 1, 64 << 20, 0);
    // epoch 1 is mid-way through its backlog (many 16 KiB scans) when epoch 2 starts
    c.takeUntil(rules::accept, BrokerMessage::hasEventBatch, Duration.ofSeconds(10));
    c.request(TestCollector.reset(id, 2, from).build());
    c.credit(id, 2, 64 << 20, 0);
    long end = last;
    c.takeUntil(rules::accept, m -> rules.epoch(id) == 2 && rules.resolvedTs(id) >= end, Duration.ofSeconds(30));

    assertThat(rules.violations()).isEmpty();
    assertThat(rules.rows(id)).hasSize(200 * 100);
    assertThat(rules.handshakes(id)).isEqualTo(2);
  }

  @Test
  void heartbeatsUpdateCheckpointsOfTheirEpochAndAnswerRemovedForUnknownIds() {
    DispatcherId id = DispatcherId.random();
    DispatcherId stranger = DispatcherId.random();
    long ts = stores.insert(100, 1);
    c.ack(TestCollector.register(id, TableSpan.wholeTable(100), orders.version()).build());
    c.ack(TestCollector.reset(id, 1, orders.version()).build());

    c.send(CollectorMessage.newBuilder().setHeartbeatBatch(HeartbeatBatch.newBuilder()
        .addHeartbeats(DispatcherHeartbeat.newBuilder().setDispatcherId(id.toProto()).setEpoch(1).setCheckpointTs(ts))
        .addHeartbeats(DispatcherHeartbeat.newBuilder().setDispatcherId(id.toProto()).setEpoch(7).setCheckpointTs(ts + 100))
        .addHeartbeats(DispatcherHeartbeat.newBuilder().setDispatcherId(stranger.toProto()).setEpoch(1))).build());
    var resp = c.next(BrokerMessage::hasHeartbeatResponse).getHeartbeatResponse();

    assertThat(resp.getStatusesList()).singleElement().satisfies(s -> {
      assertThat(s.getDispatcherId()).isEqualTo(stranger.toProto());
      assertThat(s.getState()).isEqualTo(DispatcherStatusState.DISPATCHER_STATUS_STATE_REMOVED);
    });
    DispatcherView v = service.controlPlane().dispatchers().await().get(0);
    assertThat(v.checkpointTs()).as("the other epoch's heartbeat is ignored").isEqualTo(ts);
  }

  @Test
  void gcFollowsTheLowestLiveCheckpointAndNeverPassesIt() throws Exception {
    // retention of 1 ms: only live checkpoints hold data back
    serve(EventServiceConfig.defaults().withGc(Duration.ofMillis(50), Duration.ofMillis(1)));
    long a = stores.insert(100, 1);
    DispatcherId id = DispatcherId.random();
    assertThat(c.ack(TestCollector.register(id, TableSpan.wholeTable(100), a).build()).getStatus())
        .isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    c.ack(TestCollector.reset(id, 1, a).build());
    for (int i = 0; i < 5; i++) {
      stores.insert(100, 10 + i);
    }
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> stores.events.gcTs() == a);
    org.awaitility.Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
        .until(() -> stores.events.gcTs() == a && stores.schema.gcTs() <= a);

    ControlAck removed = c.ack(TestCollector.remove(id, 1).build());
    assertThat(removed.getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    long resolved = stores.heartbeat();
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> stores.events.gcTs() >= resolved - 10);
  }
}
