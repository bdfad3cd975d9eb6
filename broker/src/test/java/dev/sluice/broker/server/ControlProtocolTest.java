package dev.sluice.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.v1.AckStatus;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.ControlAck;
import dev.sluice.api.v1.DispatcherRequest;
import dev.sluice.broker.NodeIdentity;
import dev.sluice.broker.control.DispatcherView;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.testing.StoreFixture;
import dev.sluice.broker.testing.TestCollector;
import dev.sluice.schema.TableInfo;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every row of PROTOCOL.md's request table through the real service: for each (state of the id,
 * request) the test checks the ack, exactly which messages the request caused on the stream, and the
 * dispatcher's state afterwards. Messages caused by a request are those received before the ack of a
 * following probe request (the control plane answers in order on one stream).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ControlProtocolTest {

  /** state | request | ack | messages caused | state after | reason (a fragment of it; - when accepted). */
  private static final String TABLE = """
      unknown      | REGISTER 0 same    | ACCEPTED                | ACK READY     | epoch=0 streaming=false | -
      unknown      | REGISTER 3 same    | REJECTED(BAD_EPOCH)     | ACK           | absent | REGISTER must carry epoch 0, got 3
      unknown      | REGISTER 0 nonesuch | REJECTED(UNKNOWN_TABLE) | ACK          | absent | 999
      unknown      | REGISTER 0 before  | ACCEPTED                | ACK READY     | epoch=0 streaming=false | -
      unknown      | REGISTER 0 ahead   | REJECTED(START_TS_AHEAD) | ACK          | absent | is above this broker's resolved ts
      unknown      | RESET 1            | NOT_FOUND               | ACK           | absent | no dispatcher with this id is registered; REGISTER it first
      unknown      | REMOVE 0           | NOT_FOUND               | ACK           | absent | nothing to remove
      registered   | REGISTER 0 same    | ACCEPTED                | ACK READY     | epoch=0 streaming=false | -
      registered   | REGISTER 0 other   | REJECTED(ID_IN_USE)     | ACK           | epoch=0 streaming=false | registered with another span, start ts or options
      registered   | RESET 1            | ACCEPTED                | ACK HANDSHAKE | epoch=1 streaming=true | -
      registered   | RESET 0            | STALE                   | ACK           | epoch=0 streaming=false | epoch 0 is not above the current epoch 0
      registered   | REMOVE 0           | ACCEPTED                | ACK           | absent | -
      streaming@2  | REGISTER 0 same    | ACCEPTED                | ACK READY     | epoch=2 streaming=true | -
      streaming@2  | REGISTER 0 other   | REJECTED(ID_IN_USE)     | ACK           | epoch=2 streaming=true | registered with another span, start ts or options
      streaming@2  | REGISTER 2 same    | REJECTED(BAD_EPOCH)     | ACK           | epoch=2 streaming=true | REGISTER must carry epoch 0, got 2
      streaming@2  | RESET 2            | STALE                   | ACK           | epoch=2 streaming=true | epoch 2 is not above the current epoch 2
      streaming@2  | RESET 1            | STALE                   | ACK           | epoch=2 streaming=true | epoch 1 is not above the current epoch 2
      streaming@2  | RESET 5            | ACCEPTED                | ACK HANDSHAKE | epoch=5 streaming=true | -
      streaming@2  | RESET 5 ahead      | REJECTED(START_TS_AHEAD) | ACK          | epoch=5 streaming=false | is above this broker's resolved ts
      streaming@2  | RESET 5 before     | ACCEPTED                | ACK HANDSHAKE | epoch=5 streaming=true | -
      streaming@2  | REMOVE 1           | STALE                   | ACK           | epoch=2 streaming=true | epoch 1 is below the current epoch 2
      streaming@2  | REMOVE 2           | ACCEPTED                | ACK           | absent | -
      streaming@2  | REMOVE 7           | ACCEPTED                | ACK           | absent | -
      suspended@3  | RESET 3            | STALE                   | ACK           | epoch=3 streaming=false | epoch 3 is not above the current epoch 3
      suspended@3  | RESET 4            | ACCEPTED                | ACK HANDSHAKE | epoch=4 streaming=true | -
      tombstoned@2 | REGISTER 0 same    | STALE                   | ACK           | absent | removed at epoch 2 a short while ago; use a new dispatcher id
      tombstoned@2 | RESET 2            | STALE                   | ACK           | absent | epoch 2 is not above epoch 2, at which this dispatcher was removed
      tombstoned@2 | RESET 3            | NOT_FOUND               | ACK           | absent | (it was removed at epoch 2); REGISTER it first
      tombstoned@2 | REMOVE 2           | NOT_FOUND               | ACK           | absent | already removed at epoch 2
      elsewhere@2  | REGISTER 0 other   | ACCEPTED                | ACK READY     | epoch=0 streaming=false | -
      elsewhere@2  | REGISTER 0 same    | ACCEPTED                | ACK READY     | epoch=0 streaming=false | -
      elsewhere@2  | REGISTER 0 nonesuch | REJECTED(UNKNOWN_TABLE) | ACK          | epoch=2 streaming=true | 999
      elsewhere@2  | REGISTER 0 ahead   | REJECTED(START_TS_AHEAD) | ACK          | epoch=2 streaming=true | is above this broker's resolved ts
      elsewhere@2  | RESET 3            | NOT_FOUND               | ACK           | epoch=2 streaming=true | registered on another stream; REGISTER it on this stream first
      elsewhere@2  | REMOVE 1           | STALE                   | ACK           | epoch=2 streaming=true | epoch 1 is below the current epoch 2
      elsewhere@2  | REMOVE 2           | ACCEPTED                | ACK           | absent | -
      """;

  @TempDir static Path dir;
  Vertx vertx;
  StoreFixture stores;
  EventService service;
  TestCollector c;
  TestCollector other;
  TableInfo orders;
  TableInfo altered;
  long start;

  @BeforeAll
  void startService() throws Exception {
    vertx = Vertx.vertx();
    stores = new StoreFixture(dir);
    orders = stores.createTable(100, "orders");
    start = stores.heartbeat();
    altered = stores.addColumn(orders, "note");   // after start: "as created" and "latest" differ
    stores.heartbeat();
    service = EventService.start(vertx, EventServiceConfig.defaults(), NodeIdentity.fresh("node-a", null, null),
        "127.0.0.1", 0, stores.events, stores.schema, stores.meters).await(20, TimeUnit.SECONDS);
    c = TestCollector.connect(service.port());
    c.hello("table-test");
    other = TestCollector.connect(service.port());
    other.hello("other-stream");
  }

  @AfterAll
  void stop() throws Exception {
    c.close();
    other.close();
    service.close().await(20, TimeUnit.SECONDS);
    vertx.close().await(20, TimeUnit.SECONDS);
    stores.close();
  }

  static Stream<String> rows() {
    return TABLE.strip().lines();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void requestInStateGivesTheTableRow(String row) {
    String[] col = row.split("\\|");
    String state = col[0].strip();
    String[] request = col[1].strip().split(" ");
    String expectedAck = col[2].strip();
    String expectedMessages = col[3].strip();
    String expectedAfter = col[4].strip();
    String expectedReason = col[5].strip();
    DispatcherId id = DispatcherId.random();
    arrange(id, state);

    DispatcherRequest r = build(id, request);
    List<BrokerMessage> caused = exchange(r);

    ControlAck ack = caused.get(0).getControlAck();
    String ackText = ack.getStatus().name().substring("ACK_STATUS_".length())
        + (ack.getStatus() == AckStatus.ACK_STATUS_REJECTED ? "(" + ErrorCode.fromWire(ack.getCode()) + ")" : "");
    assertThat(ackText).as("ack of " + row + " (reason: " + ack.getReason() + ")").isEqualTo(expectedAck);
    if (ack.getStatus() != AckStatus.ACK_STATUS_ACCEPTED) {
      assertThat(ack.getReason()).as("a refusal says why, in the words of its row").contains(expectedReason);
    } else {
      assertThat(expectedReason).isEqualTo("-");
    }
    assertThat(kinds(caused)).as("messages caused by " + row).isEqualTo(expectedMessages);
    for (BrokerMessage m : caused) {
      if (m.hasHandshake()) {
        assertThat(m.getHandshake().getEpoch()).isEqualTo(r.getEpoch());
        assertThat(m.getHandshake().getTableInfo().getTableId()).isEqualTo(100);
      }
    }
    assertThat(stateOf(id)).as("state after " + row).isEqualTo(expectedAfter);
  }

  @org.junit.jupiter.api.Test
  void getTableSchemaBeforeTheCreateAnswersWhatTheHandshakeCarries() {
    long before = orders.version() - 5;
    DispatcherId id = DispatcherId.random();
    expect(build(id, "REGISTER 0 before".split(" ")), AckStatus.ACK_STATUS_ACCEPTED);
    c.request(TestCollector.reset(id, 1, before).build());
    dev.sluice.api.v1.TableInfo handshake = c.next(m -> m.hasHandshake()
        && m.getHandshake().getDispatcherId().equals(id.toProto())).getHandshake().getTableInfo();
    assertThat(TableInfo.fromProto(handshake)).as("the handshake carries the table as created").isEqualTo(orders);

    io.grpc.ManagedChannel ch = io.grpc.ManagedChannelBuilder.forAddress("127.0.0.1", service.port()).usePlaintext()
        .build();
    try {
      var stub = dev.sluice.api.v1.EventServiceGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS);
      var byId = stub.getTableSchema(dev.sluice.api.v1.TableSchemaRequest.newBuilder().setTableId(100)
          .setAtTs(before).build());
      var byName = stub.getTableSchema(dev.sluice.api.v1.TableSchemaRequest.newBuilder().setTableName("public.orders")
          .setAtTs(before).build());
      assertThat(byId).as("by id, before the CREATE").isEqualTo(handshake);
      assertThat(byName).as("by name, before the CREATE").isEqualTo(handshake);
      var latest = stub.getTableSchema(dev.sluice.api.v1.TableSchemaRequest.newBuilder().setTableId(100).build());
      assertThat(TableInfo.fromProto(latest)).as("at the resolved ts: the altered table").isEqualTo(altered);
      for (var never : List.of(dev.sluice.api.v1.TableSchemaRequest.newBuilder().setTableId(999).setAtTs(before),
          dev.sluice.api.v1.TableSchemaRequest.newBuilder().setTableName("public.nonesuch").setAtTs(before))) {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> stub.getTableSchema(never.build()))
            .isInstanceOfSatisfying(io.grpc.StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.NOT_FOUND));
      }
    } finally {
      ch.shutdownNow();
    }
  }

  private void arrange(DispatcherId id, String state) {
    switch (state) {
      case "unknown" -> { }
      case "registered" -> expect(build(id, "REGISTER 0 same".split(" ")), AckStatus.ACK_STATUS_ACCEPTED);
      case "streaming@2" -> {
        arrange(id, "registered");
        expect(build(id, "RESET 1".split(" ")), AckStatus.ACK_STATUS_ACCEPTED);
        expect(build(id, "RESET 2".split(" ")), AckStatus.ACK_STATUS_ACCEPTED);
      }
      case "suspended@3" -> {
        arrange(id, "streaming@2");
        expect(build(id, "RESET 3 ahead".split(" ")), AckStatus.ACK_STATUS_REJECTED);
      }
      case "elsewhere@2" -> {
        // streaming on another collector's stream; the request then comes from this one
        TestCollector before = c;
        c = other;
        try {
          arrange(id, "streaming@2");
        } finally {
          c = before;
        }
      }
      case "tombstoned@2" -> {
        arrange(id, "streaming@2");
        expect(build(id, "REMOVE 2".split(" ")), AckStatus.ACK_STATUS_ACCEPTED);
      }
      default -> throw new IllegalArgumentException(state);
    }
  }

  private void expect(DispatcherRequest r, AckStatus status) {
    assertThat(exchange(r).get(0).getControlAck().getStatus()).isEqualTo(status);
  }

  /**
   * Start ts: "same"/absent = the table's life; "other" = another start ts; "before" = before the table was
   * created (accepted: the handshake carries it as created); "ahead" = above the resolved ts; "nonesuch" = a
   * table that never exists.
   */
  private DispatcherRequest build(DispatcherId id, String[] words) {
    long epoch = Long.parseLong(words[1]);
    String variant = words.length > 2 ? words[2] : "same";
    long ts = switch (variant) {
      case "other" -> start - 1;
      case "before" -> orders.version() - 5;
      case "ahead" -> start + 1_000_000;
      default -> start;
    };
    long table = variant.equals("nonesuch") ? 999 : 100;
    return switch (words[0]) {
      case "REGISTER" -> TestCollector.register(id, TableSpan.wholeTable(table), ts).setEpoch(epoch).build();
      case "RESET" -> TestCollector.reset(id, epoch, ts).build();
      case "REMOVE" -> TestCollector.remove(id, epoch).build();
      default -> throw new IllegalArgumentException(words[0]);
    };
  }

  /** Sends the request and a probe; returns what arrived from the request's ack up to the probe's ack. */
  private List<BrokerMessage> exchange(DispatcherRequest r) {
    DispatcherId probe = DispatcherId.random();
    c.request(r);
    c.request(TestCollector.remove(probe, 0).build());
    List<BrokerMessage> caused = new ArrayList<>();
    c.takeUntil(caused::add, m -> m.hasControlAck() && m.getControlAck().getDispatcherId().equals(probe.toProto()),
        java.time.Duration.ofSeconds(10));
    caused.remove(caused.size() - 1);
    caused.removeIf(m -> m.hasResolvedBatch() || m.hasEventBatch() || m.hasHeartbeatResponse());
    assertThat(caused.get(0).hasControlAck()).as("the ack comes first").isTrue();
    assertThat(caused.get(0).getControlAck().getAction()).isEqualTo(r.getAction());
    return caused;
  }

  private static String kinds(List<BrokerMessage> ms) {
    List<String> out = new ArrayList<>();
    for (BrokerMessage m : ms) {
      out.add(switch (m.getKindCase()) {
        case CONTROL_ACK -> "ACK";
        case READY -> "READY";
        case HANDSHAKE -> "HANDSHAKE";
        default -> m.getKindCase().name();
      });
    }
    return String.join(" ", out);
  }

  private String stateOf(DispatcherId id) {
    List<DispatcherView> all = service.controlPlane().dispatchers().await();
    return all.stream().filter(v -> v.id().equals(id.toString())).findFirst()
        .map(v -> "epoch=" + v.epoch() + " streaming=" + v.streaming()).orElse("absent");
  }
}
