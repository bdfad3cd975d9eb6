package dev.sluice.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.ProtocolInfo;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.AckStatus;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.ControlAck;
import dev.sluice.api.v1.EventServiceGrpc;
import dev.sluice.api.v1.DataEvent;
import dev.sluice.api.v1.Handshake;
import dev.sluice.api.v1.Hello;
import dev.sluice.api.v1.ListTablesRequest;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.TableList;
import dev.sluice.api.v1.TableSchemaRequest;
import dev.sluice.api.v1.Topology;
import dev.sluice.api.v1.TopologyRequest;
import dev.sluice.api.v1.Welcome;
import dev.sluice.broker.NodeIdentity;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.testing.ReceiverRules;
import dev.sluice.broker.testing.StoreFixture;
import dev.sluice.broker.testing.TestCollector;
import dev.sluice.schema.TableInfo;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The event service end to end over real gRPC sockets, driven by a stock grpc-java client, with real
 * RocksDB stores written the way capture writes them.
 */
class EventServiceTest {

  @TempDir Path dir;
  Vertx vertx;
  StoreFixture stores;
  EventService service;
  TableInfo orders;
  final List<TestCollector> collectors = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    stores = new StoreFixture(dir);
    orders = stores.createTable(100, "orders");
    EventServiceConfig config = EventServiceConfig.defaults()
        .withLimits(EventServiceConfig.defaults().limits().withConnectionQueueBytes(256 << 10));
    service = EventService.start(vertx, config, NodeIdentity.fresh("node-a", null, null), "127.0.0.1", 0,
        stores.events, stores.schema, stores.meters).await(20, TimeUnit.SECONDS);
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
    return c;
  }

  /** Registers and resets a dispatcher of the whole orders table from {@code startTs} and grants credit. */
  private DispatcherId stream(TestCollector c, ReceiverRules rules, long startTs) {
    DispatcherId id = DispatcherId.random();
    assertThat(c.ack(TestCollector.register(id, TableSpan.wholeTable(100), startTs).build()).getStatus())
        .isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    assertThat(c.ack(TestCollector.reset(id, 1, startTs).build()).getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    rules.accept(c.next(m -> m.hasHandshake()));
    c.credit(id, 1, 64 << 20, 0);
    return id;
  }

  private void until(TestCollector c, ReceiverRules rules, DispatcherId id, long ts) {
    c.takeUntil(rules::accept, m -> rules.resolvedTs(id) >= ts, Duration.ofSeconds(20));
  }

  @Test
  void helloIsAnsweredWithWelcomeCarryingIncarnationAndAgreedFeatures() {
    TestCollector c = collector();
    Welcome w = c.hello("c1");
    assertThat(w.getBrokerId()).isEqualTo("node-a");
    assertThat(w.getIncarnation()).isEqualTo(service.identity().incarnation()).isNotZero();
    assertThat(w.getProtocolVersion()).isEqualTo(ProtocolInfo.VERSION);
    assertThat(w.getFeaturesList()).containsExactlyInAnyOrderElementsOf(ProtocolInfo.BROKER_FEATURES);
  }

  @Test
  void registerSendsReadyAtOnceAndResetSendsAHandshakeCarryingTheTableInfoAtTheStartTs() {
    TestCollector c = collector();
    c.hello("c1");
    TableInfo v2 = stores.addColumn(orders, "note");
    DispatcherId id = DispatcherId.random();

    ControlAck reg = c.ack(TestCollector.register(id, TableSpan.wholeTable(100), orders.version()).build());
    assertThat(reg.getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    assertThat(c.next(BrokerMessage::hasReady).getReady().getDispatcherId()).isEqualTo(id.toProto());

    ControlAck reset = c.ack(TestCollector.reset(id, 1, orders.version()).build());
    assertThat(reset.getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    Handshake h = c.next(BrokerMessage::hasHandshake).getHandshake();
    assertThat(h.getSeq()).isEqualTo(1);
    assertThat(h.getEpoch()).isEqualTo(1);
    assertThat(TableInfo.fromProto(h.getTableInfo())).isEqualTo(orders);

    c.ack(TestCollector.reset(id, 2, v2.version()).build());
    Handshake h2 = c.next(BrokerMessage::hasHandshake).getHandshake();
    assertThat(TableInfo.fromProto(h2.getTableInfo())).isEqualTo(v2);
  }

  @Test
  void rowsDdlAndWatermarksArriveInProtocolOrder() {
    TestCollector c = collector();
    c.hello("c1");
    ReceiverRules rules = new ReceiverRules();
    DispatcherId id = stream(c, rules, orders.version());
    long t1 = stores.insert(100, 1, 2);
    stores.addColumn(orders, "note");
    long t3 = stores.insert(100, 3);
    long end = stores.heartbeat();

    until(c, rules, id, end);

    assertThat(rules.violations()).isEmpty();
    assertThat(rules.rows(id)).extracting(r -> r.getAfter(0).getInt64Value()).containsExactly(1L, 2L, 3L);
    assertThat(rules.rowCommitTs(id)).containsExactly(t1, t1, t3);
    assertThat(rules.ddls(id)).isEqualTo(1);
  }

  @Test
  void aDispatcherThatNeverReportedCreditGetsNoRows() {
    TestCollector c = collector();
    c.hello("c1");
    DispatcherId id = DispatcherId.random();
    c.ack(TestCollector.register(id, TableSpan.wholeTable(100), orders.version()).build());
    c.ack(TestCollector.reset(id, 1, orders.version()).build());
    stores.insert(100, 1);

    await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(2))
        .until(() -> c.drain().stream().noneMatch(BrokerMessage::hasEventBatch));

    c.credit(id, 1, 1 << 20, 0);
    assertThat(c.next(BrokerMessage::hasEventBatch).getEventBatch().getEvents(0).getDml().getRowsCount()).isEqualTo(1);
  }

  @Test
  void anIdleDispatcherGetsWatermarksWithoutAScan() {
    stores.createTable(200, "idle");
    TestCollector c = collector();
    c.hello("c1");
    ReceiverRules rules = new ReceiverRules();
    DispatcherId id = DispatcherId.random();
    long start = stores.lastTs();
    c.ack(TestCollector.register(id, TableSpan.wholeTable(200), start).build());
    c.ack(TestCollector.reset(id, 1, start).build());
    rules.accept(c.next(BrokerMessage::hasHandshake));
    c.credit(id, 1, 1 << 20, 0);
    double scansBefore = stores.meters.counter("sluice.scan.tasks", "outcome", "started").count();

    stores.insert(100, 7); // another table moves the resolved ts
    long end = stores.heartbeat();
    c.takeUntil(rules::accept, m -> rules.resolvedTs(id) >= end, Duration.ofSeconds(10));

    assertThat(rules.violations()).isEmpty();
    assertThat(rules.lastSeq(id)).isEqualTo(1);
    assertThat(stores.meters.counter("sluice.scan.tasks", "outcome", "started").count()).isEqualTo(scansBefore);
  }

  @Test
  void unaryCallsAnswerFromTheSchemaStoreForAStockClient() {
    ManagedChannel ch = ManagedChannelBuilder.forAddress("127.0.0.1", service.port()).usePlaintext().build();
    try {
      var stub = EventServiceGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS);
      Topology topo = stub.getTopology(TopologyRequest.getDefaultInstance());
      assertThat(topo.getThisNodeId()).isEqualTo("node-a");
      assertThat(topo.getMembers(0).getGrpcAddress()).isEqualTo("127.0.0.1:" + service.port());
      assertThat(topo.getMembers(0).getResolvedTs()).isEqualTo(stores.lastTs());

      var byName = stub.getTableSchema(TableSchemaRequest.newBuilder().setTableName("public.orders").build());
      assertThat(byName.getTableId()).isEqualTo(100);
      var byId = stub.getTableSchema(TableSchemaRequest.newBuilder().setTableId(100).setAtTs(orders.version()).build());
      assertThat(TableInfo.fromProto(byId)).isEqualTo(orders);

      TableList list = stub.listTables(ListTablesRequest.getDefaultInstance());
      assertThat(list.getTablesList()).singleElement().satisfies(e -> {
        assertThat(e.getTableInfo().getTableName()).isEqualTo("orders");
        assertThat(e.getCreatedTs()).isEqualTo(orders.version());
      });

      assertThatStatus(() -> stub.getTableSchema(TableSchemaRequest.newBuilder().setTableName("public.nope").build()),
          Status.Code.NOT_FOUND, "public.nope");
      assertThatStatus(() -> stub.getTableSchema(TableSchemaRequest.newBuilder().setTableName("nodot").build()),
          Status.Code.INVALID_ARGUMENT, "schema.table");
      // above the resolved ts the table may yet be created below the ts: retryable, not NOT_FOUND
      long ahead = stores.lastTs() + 1_000;
      assertThatStatus(() -> stub.getTableSchema(TableSchemaRequest.newBuilder().setTableName("public.nope")
          .setAtTs(ahead).build()), Status.Code.UNAVAILABLE, "not known yet");
      assertThatStatus(() -> stub.getTableSchema(TableSchemaRequest.newBuilder().setTableId(999)
          .setAtTs(ahead).build()), Status.Code.UNAVAILABLE, "retry shortly");
    } finally {
      ch.shutdownNow();
    }
  }

  /** It failed with OUT_OF_RANGE after the first GC (the history was read from below the GC point). */
  @Test
  void listTablesAnswersAfterTheSchemaStoreWasCollected() {
    stores.insert(100, 7);
    long gcTs = stores.heartbeat();
    stores.schema.gc(gcTs);
    ManagedChannel ch = ManagedChannelBuilder.forAddress("127.0.0.1", service.port()).usePlaintext().build();
    try {
      var stub = EventServiceGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS);
      TableList list = stub.listTables(ListTablesRequest.getDefaultInstance());
      assertThat(list.getTablesList()).singleElement().satisfies(e -> {
        assertThat(e.getTableInfo().getTableName()).isEqualTo("orders");
        assertThat(e.getCreatedTs()).isEqualTo(orders.version());
      });
    } finally {
      ch.shutdownNow();
    }
  }

  private static void assertThatStatus(Runnable call, Status.Code code, String text) {
    try {
      call.run();
      throw new AssertionError("expected " + code);
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getCode()).isEqualTo(code);
      assertThat(e.getStatus().getDescription()).contains(text);
    }
  }

  @Test
  void aRequestBeforeHelloClosesTheStreamWithMissingHello() {
    TestCollector c = collector();
    c.request(TestCollector.register(DispatcherId.random(), TableSpan.wholeTable(100), 0).build());
    BrokerMessage err = c.next(BrokerMessage::hasStreamError);
    assertThat(err.getStreamError().getCode()).isEqualTo(dev.sluice.api.error.ErrorCode.MISSING_HELLO.toWire());
    assertThat(c.awaitClosed().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
  }

  @Test
  void anUnknownRequiredFeatureIsRefused() {
    TestCollector c = collector();
    c.send(CollectorMessage.newBuilder().setHello(Hello.newBuilder().setCollectorId("c").setProtocolVersion(1)
        .addRequiredFeatures("teleport")).build());
    BrokerMessage err = c.next(BrokerMessage::hasStreamError);
    assertThat(err.getStreamError().getCode())
        .isEqualTo(dev.sluice.api.error.ErrorCode.UNSUPPORTED_FEATURE.toWire());
    assertThat(err.getStreamError().getDetail()).contains("teleport");
    c.awaitClosed();
  }

  @Test
  void garbageBytesCloseOnlyTheirStream() {
    TestCollector good = collector();
    good.hello("good");
    ReceiverRules rules = new ReceiverRules();
    DispatcherId id = stream(good, rules, orders.version());

    TestCollector bad = collector();
    bad.hello("bad");
    bad.sendRaw(new byte[] {(byte) 0xff, (byte) 0xff, 0x01, 0x02, 0x03});
    BrokerMessage err = bad.next(BrokerMessage::hasStreamError);
    assertThat(err.getStreamError().getCode()).isEqualTo(dev.sluice.api.error.ErrorCode.PROTOCOL_VIOLATION.toWire());
    bad.awaitClosed();

    long ts = stores.insert(100, 42);
    until(good, rules, id, ts);
    assertThat(rules.violations()).isEmpty();
    assertThat(rules.rows(id)).hasSize(1);
    good.assertOpen();
  }

  @Test
  void anOversizedMessageIsRefusedWithItsSize() {
    TestCollector c = collector();
    c.hello("c");
    byte[] huge = CollectorMessage.newBuilder().setDispatcherRequest(
        TestCollector.register(DispatcherId.random(), TableSpan.wholeTable(100), 0)
            .setChangefeedId("x".repeat(EventServiceConfig.DEFAULT_MAX_MESSAGE_BYTES + 10))).build().toByteArray();
    c.sendRaw(huge);
    BrokerMessage err = c.next(BrokerMessage::hasStreamError);
    assertThat(err.getStreamError().getCode()).isEqualTo(dev.sluice.api.error.ErrorCode.MESSAGE_TOO_LARGE.toWire());
    assertThat(err.getStreamError().getDetail()).contains(Integer.toString(huge.length), "limit");
  }

  @Test
  void anUnknownFieldIsRefusedNotIgnored() {
    TestCollector c = collector();
    c.hello("c");
    var withExtra = TestCollector.register(DispatcherId.random(), TableSpan.wholeTable(100), 0).build().toBuilder()
        .setUnknownFields(com.google.protobuf.UnknownFieldSet.newBuilder()
            .addField(99, com.google.protobuf.UnknownFieldSet.Field.newBuilder().addVarint(1).build()).build())
        .build();
    c.request(withExtra);
    BrokerMessage err = c.next(BrokerMessage::hasStreamError);
    assertThat(err.getStreamError().getCode()).isEqualTo(dev.sluice.api.error.ErrorCode.UNKNOWN_FIELD.toWire());
    assertThat(err.getStreamError().getDetail()).contains("#99");
  }

  @Test
  void badRequestsAreRejectedWithCodesAndTheStreamStaysOpen() {
    TestCollector c = collector();
    c.hello("c");
    DispatcherId id = DispatcherId.random();

    ControlAck badSpan = c.ack(TestCollector.register(id, TableSpan.wholeTable(100), 0)
        .setSpan(dev.sluice.api.v1.TableSpan.newBuilder().setTableId(100).setHashLo(5).setHashHi(5)).build());
    assertThat(badSpan.getStatus()).isEqualTo(AckStatus.ACK_STATUS_REJECTED);
    assertThat(badSpan.getCode()).isEqualTo(dev.sluice.api.error.ErrorCode.INVALID_SPAN.toWire());
    assertThat(badSpan.getReason()).contains("hash_hi");

    ControlAck unknownTable = c.ack(TestCollector.register(id, TableSpan.wholeTable(999), orders.version()).build());
    assertThat(unknownTable.getCode()).isEqualTo(dev.sluice.api.error.ErrorCode.UNKNOWN_TABLE.toWire());
    assertThat(unknownTable.getReason()).contains("999");

    ControlAck unknownOption = c.ack(TestCollector.register(id, TableSpan.wholeTable(100), orders.version())
        .putOptions("turbo", "yes").build());
    assertThat(unknownOption.getCode()).isEqualTo(dev.sluice.api.error.ErrorCode.UNKNOWN_FIELD.toWire());
    assertThat(unknownOption.getReason()).contains("turbo");

    ControlAck notFound = c.ack(TestCollector.reset(DispatcherId.random(), 1, orders.version()).build());
    assertThat(notFound.getStatus()).isEqualTo(AckStatus.ACK_STATUS_NOT_FOUND);

    ControlAck badEpoch = c.ack(TestCollector.register(id, TableSpan.wholeTable(100), orders.version())
        .setEpoch(3).build());
    assertThat(badEpoch.getCode()).isEqualTo(dev.sluice.api.error.ErrorCode.BAD_EPOCH.toWire());

    c.assertOpen();
    assertThat(c.ack(TestCollector.register(id, TableSpan.wholeTable(100), orders.version()).build()).getStatus())
        .isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
  }

  @Test
  void aStartTsBelowTheGcPointIsRejectedWithBothNumbers() {
    long a = stores.insert(100, 1);
    stores.insert(100, 2);
    stores.events.gc(a + 5);
    stores.schema.gc(a + 5);
    TestCollector c = collector();
    c.hello("c");

    ControlAck ack = c.ack(TestCollector.register(DispatcherId.random(), TableSpan.wholeTable(100), a - 5).build());

    assertThat(ack.getStatus()).isEqualTo(AckStatus.ACK_STATUS_REJECTED);
    assertThat(ack.getCode()).isEqualTo(dev.sluice.api.error.ErrorCode.START_TS_BELOW_GC.toWire());
    assertThat(ack.getReason()).contains(Long.toString(a - 5), Long.toString(a + 5));
  }

  @Test
  void aTableUnknownAtAStartTsAboveTheResolvedTsIsRetryableNotUnknownForGood() {
    long resolved = stores.insert(100, 1);
    TestCollector c = collector();
    c.hello("c");

    ControlAck ahead = c.ack(TestCollector.register(DispatcherId.random(), TableSpan.wholeTable(999), resolved + 50)
        .build());
    ControlAck unknown = c.ack(TestCollector.register(DispatcherId.random(), TableSpan.wholeTable(999), resolved)
        .build());

    assertThat(ahead.getCode()).as(ahead.getReason()).isEqualTo(dev.sluice.api.error.ErrorCode.START_TS_AHEAD.toWire());
    assertThat(ahead.getReason()).contains("retry");
    assertThat(unknown.getCode()).isEqualTo(dev.sluice.api.error.ErrorCode.UNKNOWN_TABLE.toWire());
  }

  @Test
  void aDispatcherMayStartJustBeforeItsTablesCreateAndGetsTheCreateThenTheRows() {
    long before = stores.insert(100, 1);
    TableInfo born = stores.createTable(300, "born");
    long rows = stores.insert(300, 7);
    TestCollector c = collector();
    c.hello("c");
    DispatcherId id = DispatcherId.random();

    ControlAck registered = c.ack(TestCollector.register(id, TableSpan.wholeTable(300), before).build());

    assertThat(registered.getStatus()).as(registered.getReason()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    assertThat(c.ack(TestCollector.reset(id, 1, before).build()).getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    Handshake hs = c.next(BrokerMessage::hasHandshake).getHandshake();
    assertThat(hs.getTableInfo().getTableName()).isEqualTo("born");
    assertThat(hs.getTableInfo().getVersion()).isEqualTo(born.version());
    c.credit(id, 1, 64 << 20, 0);
    List<DataEvent> events = new ArrayList<>();
    c.takeUntil(m -> {
      if (m.hasEventBatch()) {
        events.addAll(m.getEventBatch().getEventsList());
      }
    }, m -> events.stream().anyMatch(e -> e.hasDml() && e.getDml().getCommitTs() == rows), Duration.ofSeconds(10));
    assertThat(events.get(0).getDdl().getCommitTs()).isEqualTo(born.version());
    assertThat(events.get(0).getDdl().getDdlType()).isEqualTo(dev.sluice.api.v1.DdlType.DDL_TYPE_CREATE_TABLE);
  }

  @Test
  void aStartTsBelowWhereCaptureBeganIsRejectedButZeroAsksForEverythingThere() {
    stores.insert(100, 1);
    long floor = stores.insert(100, 2);
    var batch = stores.events.newBatch();
    batch.setFloorTs(floor);   // as a node that joined a cluster later: it holds nothing committed before
    stores.events.write(batch, true);
    TestCollector c = collector();
    c.hello("c");

    ControlAck below = c.ack(TestCollector.register(DispatcherId.random(), TableSpan.wholeTable(100), floor - 1).build());
    ControlAck zero = c.ack(TestCollector.register(DispatcherId.random(), TableSpan.wholeTable(100), 0).build());
    ControlAck at = c.ack(TestCollector.register(DispatcherId.random(), TableSpan.wholeTable(100), floor).build());

    assertThat(below.getStatus()).isEqualTo(AckStatus.ACK_STATUS_REJECTED);
    assertThat(below.getCode()).isEqualTo(dev.sluice.api.error.ErrorCode.START_TS_BELOW_GC.toWire());
    assertThat(below.getReason()).contains(Long.toString(floor - 1), Long.toString(floor), "capture began");
    assertThat(zero.getStatus()).as(zero.getReason()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    assertThat(at.getStatus()).as(at.getReason()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    assertThat(stores.events.floorTs()).isEqualTo(floor);
  }

  @Test
  void theGcBoundaryIsTheOneTheRejectionNames() {
    stores.insert(100, 1);
    long b = stores.insert(100, 2);
    stores.events.gc(b);
    stores.schema.gc(b);
    TestCollector c = collector();
    c.hello("c");

    ControlAck below = c.ack(TestCollector.register(DispatcherId.random(), TableSpan.wholeTable(100), b - 1).build());
    DispatcherId id = DispatcherId.random();
    ControlAck at = c.ack(TestCollector.register(id, TableSpan.wholeTable(100), b).build());

    assertThat(below.getCode()).isEqualTo(dev.sluice.api.error.ErrorCode.START_TS_BELOW_GC.toWire());
    assertThat(below.getReason()).contains("register again from " + b + " or later");
    assertThat(at.getStatus()).as(at.getReason()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    assertThat(c.ack(TestCollector.reset(id, 1, b).build()).getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
  }

  @Test
  void aCollectorThatNeverReadsIsCappedAndOthersKeepStreaming() {
    TestCollector slow = TestCollector.connectNeverReading(service.port());
    collectors.add(slow);
    slow.read(3); // Welcome, ack, Ready
    slow.send(CollectorMessage.newBuilder().setHello(Hello.newBuilder().setCollectorId("slow").setProtocolVersion(1)
        .addAllOptionalFeatures(ProtocolInfo.BROKER_FEATURES)).build());
    DispatcherId slowId = DispatcherId.random();
    slow.request(TestCollector.register(slowId, TableSpan.wholeTable(100), orders.version()).build());
    slow.request(TestCollector.reset(slowId, 1, orders.version()).build());
    slow.credit(slowId, 1, 1L << 40, 0);

    TestCollector fast = collector();
    fast.hello("fast");
    ReceiverRules rules = new ReceiverRules();
    DispatcherId fastId = stream(fast, rules, orders.version());

    long last = 0;
    for (int batch = 0; batch < 40; batch++) {
      long[] ids = new long[500];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = batch * 1000L + i;
      }
      last = stores.insert(100, ids);
    }
    until(fast, rules, fastId, last);

    assertThat(rules.violations()).isEmpty();
    assertThat(rules.rows(fastId)).hasSize(40 * 500);
    slow.assertOpen();
    // the slow stream's rows wait for room while it reads nothing; the fast one may have finished before the
    // first of those skips was counted
    await("a scan for the slow collector skipped for want of room").atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(stores.meters.find("sluice.scan.skipped").tag("reason", "no_room").counter()
            .count()).isPositive());
    slow.assertOpen();
  }

  @Test
  void rowsOfASpanAreExactlyTheRowsWhoseKeyHashItContains() {
    TestCollector c = collector();
    c.hello("c");
    List<TableSpan> halves = TableSpan.wholeTable(100).split(2);
    ReceiverRules rules = new ReceiverRules();
    List<DispatcherId> ids = new ArrayList<>();
    for (TableSpan half : halves) {
      DispatcherId id = DispatcherId.random();
      c.ack(TestCollector.register(id, half, orders.version()).build());
      c.ack(TestCollector.reset(id, 1, orders.version()).build());
      rules.accept(c.next(BrokerMessage::hasHandshake));
      c.credit(id, 1, 1 << 20, 0);
      ids.add(id);
    }
    long[] keys = new long[200];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = i;
    }
    long ts = stores.insert(100, keys);
    c.takeUntil(rules::accept, m -> rules.resolvedTs(ids.get(0)) >= ts && rules.resolvedTs(ids.get(1)) >= ts,
        Duration.ofSeconds(10));

    assertThat(rules.violations()).isEmpty();
    for (int i = 0; i < 2; i++) {
      for (RowChange r : rules.rows(ids.get(i))) {
        assertThat(halves.get(i).contains(r.getKeyHash())).isTrue();
      }
    }
    assertThat(rules.rows(ids.get(0)).size() + rules.rows(ids.get(1)).size()).isEqualTo(200);
  }

  @Test
  void lowerLimitsAppliedAtRuntimeTakeEffect() {
    TestCollector c = collector();
    c.hello("c1");
    DispatcherId first = DispatcherId.random();
    assertThat(c.ack(TestCollector.register(first, TableSpan.wholeTable(100), orders.version()).build()).getStatus())
        .isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);

    service.updateLimits(service.limits().withMaxDispatchers(1));

    ControlAck refused = c.ack(TestCollector.register(DispatcherId.random(), TableSpan.wholeTable(100),
        orders.version()).build());
    assertThat(refused.getCode()).isEqualTo(dev.sluice.api.error.ErrorCode.QUOTA_EXCEEDED.toWire());
    assertThat(refused.getReason()).contains("maxDispatchers=1");
    assertThat(service.limits().maxDispatchers()).isEqualTo(1);
  }

  @Test
  void aChangefeedCreditOfZeroHoldsBackItsDispatchersEvenWithDispatcherCredit() {
    TestCollector c = collector();
    c.hello("c1");
    ReceiverRules rules = new ReceiverRules();
    DispatcherId id = DispatcherId.random();
    c.ack(TestCollector.register(id, TableSpan.wholeTable(100), orders.version()).build());
    c.request(TestCollector.reset(id, 1, orders.version()).build());
    rules.accept(c.next(BrokerMessage::hasHandshake));
    c.send(CollectorMessage.newBuilder().setCreditReport(dev.sluice.api.v1.CreditReport.newBuilder()
        .addChangefeeds(dev.sluice.api.v1.ChangefeedCredit.newBuilder().setChangefeedId("cf-test")
            .setAvailableBytes(0).setReceivedBytes(0))
        .addDispatchers(dev.sluice.api.v1.DispatcherCredit.newBuilder().setDispatcherId(id.toProto()).setEpoch(1)
            .setAvailableBytes(1 << 20))).build());
    long ts = stores.insert(100, 1);

    await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(2))
        .until(() -> c.drain().stream().noneMatch(BrokerMessage::hasEventBatch));

    c.send(CollectorMessage.newBuilder().setCreditReport(dev.sluice.api.v1.CreditReport.newBuilder()
        .addChangefeeds(dev.sluice.api.v1.ChangefeedCredit.newBuilder().setChangefeedId("cf-test")
            .setAvailableBytes(1 << 20).setReceivedBytes(0))).build());
    until(c, rules, id, ts);
    assertThat(rules.rows(id)).hasSize(1);
    assertThat(rules.violations()).isEmpty();
  }

  @Test
  void dispatchersBehindAnExhaustedScanRateAreNotRetriedOneByOneEveryTick() {
    TestCollector c = collector();
    c.hello("c1");
    ReceiverRules rules = new ReceiverRules();
    int dispatchers = 200;
    for (int i = 0; i < dispatchers; i++) {
      stream(c, rules, orders.version());
    }
    // the lowest rate: a few scans of the row spend it, the other dispatchers wait on the limiter
    service.updateLimits(service.limits().withScanRateBytesPerSecond(1024));
    stores.insert(100, 1);
    io.micrometer.core.instrument.Counter rateLimited =
        stores.meters.find("sluice.scan.skipped").tag("reason", "rate_limited").counter();
    await().atMost(Duration.ofSeconds(10)).until(() -> rateLimited.count() >= dispatchers / 2);
    double parked = rateLimited.count();

    // a second is 100 ticks (10 ms) and 4 idle passes (250 ms): retrying each waiting dispatcher on every
    // tick counted ~20,000 skips here; a pass that stops at the exhausted limiter counts ~4 per dispatcher
    await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2))
        .until(() -> rateLimited.count() - parked < 10.0 * dispatchers);
  }

  @Test
  void dispatchersWaitingForTheOnlyScanSlotTakeTurns() {
    assertTakeTurns(true);
  }

  @Test
  void dispatchersOfDifferentDataPlaneInstancesTakeTurnsAtTheOnlyScanSlot() {
    assertTakeTurns(false);
  }

  /** Two dispatchers, 400 rows each, one scan slot and 4 KiB scans: their event batches interleave. */
  private void assertTakeTurns(boolean sameInstance) {
    service.updateLimits(service.limits().withScanConcurrency(1).withScanBatchBytes(4096));
    long ts = 0;
    for (int batch = 0; batch < 20; batch++) {   // 400 rows: several 4 KiB scans for each dispatcher
      long[] ids = new long[20];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = batch * 100L + i;
      }
      ts = stores.insert(100, ids);
    }
    TestCollector c = collector();
    c.hello("c1");
    ReceiverRules rules = new ReceiverRules();
    int instances = EventServiceConfig.defaults().dataPlaneInstances();
    DispatcherId a = DispatcherId.random();
    DispatcherId b;
    do {
      b = DispatcherId.random();
    } while ((Math.floorMod(b.partitionHash(), instances) == Math.floorMod(a.partitionHash(), instances))
        != sameInstance);
    for (DispatcherId id : List.of(a, b)) {
      c.ack(TestCollector.register(id, TableSpan.wholeTable(100), orders.version()).build());
      c.ack(TestCollector.reset(id, 1, orders.version()).build());
      rules.accept(c.next(BrokerMessage::hasHandshake));
    }
    c.send(CollectorMessage.newBuilder().setCreditReport(dev.sluice.api.v1.CreditReport.newBuilder()
        .addDispatchers(dev.sluice.api.v1.DispatcherCredit.newBuilder().setDispatcherId(a.toProto()).setEpoch(1)
            .setAvailableBytes(64 << 20))
        .addDispatchers(dev.sluice.api.v1.DispatcherCredit.newBuilder().setDispatcherId(b.toProto()).setEpoch(1)
            .setAvailableBytes(64 << 20))).build());
    List<DispatcherId> batches = new ArrayList<>();
    long last = ts;
    DispatcherId first = a;
    DispatcherId second = b;
    c.takeUntil(m -> {
      rules.accept(m);
      if (m.hasEventBatch()) {
        batches.add(DispatcherId.fromProto(m.getEventBatch().getDispatcherId()));
      }
    }, m -> rules.resolvedTs(first) >= last && rules.resolvedTs(second) >= last, Duration.ofSeconds(20));

    assertThat(rules.violations()).isEmpty();
    assertThat(rules.rows(a)).hasSize(400);
    assertThat(rules.rows(b)).hasSize(400);
    // a dispatcher that finished a scan queues behind the other instead of taking the slot straight back
    DispatcherId starter = batches.get(0);
    DispatcherId other = starter.equals(a) ? b : a;
    assertThat(batches.indexOf(other)).isLessThan(batches.lastIndexOf(starter));
  }
}
