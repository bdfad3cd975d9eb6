package dev.sluice.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.v1.AckStatus;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.ControlAck;
import dev.sluice.api.v1.DataEvent;
import dev.sluice.api.v1.DispatcherHeartbeat;
import dev.sluice.api.v1.HeartbeatBatch;
import dev.sluice.api.v1.ResumeCursor;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.broker.NodeIdentity;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.store.SourcePosition;
import dev.sluice.broker.store.StoreBatch;
import dev.sluice.broker.testing.StoreFixture;
import dev.sluice.broker.testing.TestCollector;
import dev.sluice.schema.TableInfo;
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
 * Resets that resume inside a transaction, and streams that claim more than they may (a checkpoint above
 * what was sent, credit for another stream's dispatcher, unbounded changefeed ids): the broker keeps each
 * dispatcher's stream exact and never lets one collector's claims hold up or steer another's.
 */
class StreamIsolationAndResumeTest {

  @TempDir
  Path dir;
  private Vertx vertx;
  private StoreFixture stores;
  private EventService service;
  private TableInfo orders;
  private final List<TestCollector> collectors = new ArrayList<>();

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    stores = new StoreFixture(dir);
    orders = stores.createTable(100, "orders");
  }

  private void serve(EventServiceConfig config) throws Exception {
    service = EventService.start(vertx, config, NodeIdentity.fresh("node-a", null, null), "127.0.0.1", 0,
        stores.events, stores.schema, stores.meters).await(20, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    collectors.forEach(TestCollector::close);
    if (service != null) {
      service.close().await(20, TimeUnit.SECONDS);
    }
    vertx.close().await(20, TimeUnit.SECONDS);
    stores.close();
  }

  private TestCollector collector() {
    TestCollector c = TestCollector.connect(service.port());
    collectors.add(c);
    c.hello("c" + collectors.size());
    return c;
  }

  /** Registers a dispatcher of {@code table} from {@code startTs} on {@code c} and resets it to epoch 1 (no credit). */
  private static DispatcherId handshaked(TestCollector c, long table, long startTs) {
    DispatcherId id = DispatcherId.random();
    c.ack(TestCollector.register(id, TableSpan.wholeTable(table), startTs).build());
    c.ack(TestCollector.reset(id, 1, startTs).build());
    c.next(BrokerMessage::hasHandshake);
    return id;
  }

  /** {@code n} rows of one transaction at {@code ts}, stored without resolving it (a fragment still streaming in). */
  private void writeRowsUnresolved(long tableId, long ts, int n) {
    StoreBatch b = stores.events.newBatch();
    for (int i = 0; i < n; i++) {
      RowChange r = StoreFixture.row(RowOp.ROW_OP_INSERT, 1000 + i, "x" + i).toBuilder().setRowSeq(i).build();
      b.putRow(tableId, ts, i, r.getKeyHash(), r.toByteArray());
    }
    stores.events.write(b, false);
  }

  private void resolve(long ts) {
    StoreBatch b = stores.events.newBatch();
    b.putTimeMark(ts, stores.timeMicros() + 1000);
    b.setPosition(new SourcePosition(ts, ts + 1));
    b.setResolvedTs(ts);
    stores.schema.advanceResolvedTs(ts);
    stores.events.write(b, false);
  }

  private static ResumeCursor cursor(long ts, long nextRowSeq) {
    return ResumeCursor.newBuilder().setCommitTs(ts).setNextRowSeq(nextRowSeq).build();
  }

  @Test
  void resumingATransactionThatAlteredTheTableHandsOverTheAlteredSchema() throws Exception {
    serve(EventServiceConfig.defaults());
    long t0 = stores.insert(100, 1);
    long t = stores.nextTs();
    writeRowsUnresolved(100, t, 5);
    TableInfo after = stores.addColumn(orders, "extra");   // the DDL of the same transaction, at t
    TestCollector c = collector();
    DispatcherId id = DispatcherId.random();
    c.ack(TestCollector.register(id, TableSpan.wholeTable(100), t0).build());

    ControlAck ack = c.ack(TestCollector.reset(id, 1, t0).setResumeCursor(cursor(t, 2)).build());

    assertThat(ack.getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    var hs = c.next(BrokerMessage::hasHandshake).getHandshake();
    c.credit(id, 1, 64 << 20, 0);
    var dml = c.next(BrokerMessage::hasEventBatch).getEventBatch().getEvents(0).getDml();
    assertThat(dml.getCommitTs()).isEqualTo(t);
    assertThat(dml.getRowsCount()).isEqualTo(3);
    // the DDL at t is not sent again in this epoch, so the handshake must carry the schema after it
    assertThat(hs.getTableInfo().getColumnsCount()).isEqualTo(after.columns().size());
    assertThat(dml.getTableInfoVersion()).isEqualTo(t);
  }

  @Test
  void aResumeCursorAboveTheResolvedTsIsRetriedUntilItsTransactionIsWholeThenSentOnce() throws Exception {
    serve(EventServiceConfig.defaults());
    long t0 = stores.insert(100, 1);
    long t = stores.nextTs();
    writeRowsUnresolved(100, t, 5);   // on a lagging broker, the transaction at t is not resolved yet
    TestCollector c = collector();
    DispatcherId id = DispatcherId.random();
    c.ack(TestCollector.register(id, TableSpan.wholeTable(100), t0).build());

    ControlAck early = c.ack(TestCollector.reset(id, 1, t0).setResumeCursor(cursor(t, 2)).build());

    assertThat(early.getStatus()).isEqualTo(AckStatus.ACK_STATUS_REJECTED);
    assertThat(early.getCode()).isEqualTo(ErrorCode.START_TS_AHEAD.toWire());
    assertThat(early.getReason()).contains("resume cursor at ts " + t, "retry");

    resolve(t);
    assertThat(c.ack(TestCollector.reset(id, 2, t0).setResumeCursor(cursor(t, 2)).build()).getStatus())
        .isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    c.next(BrokerMessage::hasHandshake);
    c.credit(id, 2, 64 << 20, 0);
    List<DataEvent> dml = new ArrayList<>();
    c.takeUntil(m -> {
      if (m.hasEventBatch()) {
        m.getEventBatch().getEventsList().stream().filter(DataEvent::hasDml).forEach(dml::add);
      }
    }, m -> m.hasResolvedBatch() && m.getResolvedBatch().getResolvedList().stream().anyMatch(r -> r.getTs() >= t),
        Duration.ofSeconds(10));
    assertThat(dml).singleElement().satisfies(e -> {
      assertThat(e.getDml().getCommitTs()).isEqualTo(t);
      assertThat(e.getDml().getRowsCount()).isEqualTo(3);
      assertThat(e.getDml().getLastFragment()).isTrue();
    });
  }

  @Test
  void creditForADispatcherOfAnotherStreamIsIgnored() throws Exception {
    serve(EventServiceConfig.defaults().withDataPlaneInstances(1));
    long t0 = stores.insert(100, 1);
    TestCollector owner = collector();
    DispatcherId d = handshaked(owner, 100, t0);
    TestCollector other = collector();
    DispatcherId mine = handshaked(other, 100, t0);
    long t1 = stores.insert(100, 2);

    other.credit(d, 1, 64 << 20, 0);      // not its dispatcher
    other.credit(mine, 1, 64 << 20, 0);   // same stream, same data plane: applied after the one above
    other.next(m -> m.hasEventBatch() && m.getEventBatch().getEventsList().stream()
        .anyMatch(e -> e.hasDml() && e.getDml().getCommitTs() == t1));

    assertThat(owner.drain()).noneMatch(BrokerMessage::hasEventBatch);
    assertThat(stores.meters.get("sluice.credit.available.bytes").gauge().value()).isEqualTo(64 << 20);
  }

  @Test
  void aStreamNamingMoreChangefeedsThanTheBoundIsClosedAndOthersGoOn() throws Exception {
    serve(EventServiceConfig.defaults());
    TestCollector hostile = collector();
    TestCollector fine = collector();
    dev.sluice.api.v1.CreditReport.Builder report = dev.sluice.api.v1.CreditReport.newBuilder();
    for (int i = 0; i <= CollectorConnection.MAX_CHANGEFEEDS_PER_STREAM; i++) {
      report.addChangefeeds(dev.sluice.api.v1.ChangefeedCredit.newBuilder().setChangefeedId("cf-" + i)
          .setAvailableBytes(1));
    }

    hostile.send(CollectorMessage.newBuilder().setCreditReport(report).build());

    var err = hostile.next(BrokerMessage::hasStreamError).getStreamError();
    assertThat(err.getCode()).isEqualTo(ErrorCode.QUOTA_EXCEEDED.toWire());
    assertThat(err.getDetail()).contains("more than " + CollectorConnection.MAX_CHANGEFEEDS_PER_STREAM);
    hostile.awaitClosed();
    DispatcherId id = DispatcherId.random();
    assertThat(fine.ack(TestCollector.register(id, TableSpan.wholeTable(100), stores.insert(100, 1)).build())
        .getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
  }

  @Test
  void aBogusCheckpointOfOneCollectorDoesNotHoldUpTheDispatchersOfAnother() throws Exception {
    serve(EventServiceConfig.defaults().withDataPlaneInstances(1).withGc(Duration.ofMillis(50), Duration.ofMillis(1)));
    stores.createTable(200, "other");
    long a0 = stores.insert(100, 1);
    TestCollector bad = collector();
    DispatcherId a = handshaked(bad, 100, a0);
    stores.addColumn(orders, "extra");   // no credit for a: this DDL waits for it at a0
    TestCollector good = collector();
    long b0 = stores.insert(200, 1);
    List<DispatcherId> bs = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      DispatcherId b = DispatcherId.random();
      bs.add(b);
      good.ack(TestCollector.register(b, TableSpan.wholeTable(200), b0).build());
      good.ack(TestCollector.reset(b, 1, b0).build());
      good.credit(b, 1, 64 << 20, 0);
    }

    // a claims far more than it was sent: the GC point passes a's progress (the others hold it no lower)
    bad.send(CollectorMessage.newBuilder().setHeartbeatBatch(HeartbeatBatch.newBuilder()
        .addHeartbeats(DispatcherHeartbeat.newBuilder().setDispatcherId(a.toProto()).setEpoch(1)
            .setCheckpointTs(Long.MAX_VALUE / 4))).build());
    stores.insert(200, 2);
    await().atMost(Duration.ofSeconds(10)).until(() -> stores.schema.gcTs() > a0);
    long b2 = stores.insert(200, 3);

    Set<DispatcherId> got = new HashSet<>();
    good.takeUntil(m -> {
      if (m.hasEventBatch() && m.getEventBatch().getEventsList().stream()
          .anyMatch(e -> e.hasDml() && e.getDml().getCommitTs() == b2)) {
        got.add(DispatcherId.fromProto(m.getEventBatch().getDispatcherId()));
      }
    }, m -> got.size() == bs.size(), Duration.ofSeconds(10));
    assertThat(got).containsExactlyInAnyOrderElementsOf(bs);
    assertThat(stores.meters.get("sluice.data.stream.failures").counter().count()).isPositive();
    assertThat(stores.schema.gcTs()).as("the claim is capped at what the broker could have sent")
        .isLessThanOrEqualTo(Math.min(stores.events.resolvedTs(), stores.schema.resolvedTs()));
  }
}
