package dev.sluice.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.ProtocolInfo;
import dev.sluice.api.TableSpan;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.v1.AckStatus;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.ControlAck;
import dev.sluice.api.v1.DataEvent;
import dev.sluice.api.v1.DispatcherRequest;
import dev.sluice.api.v1.EventFilter;
import dev.sluice.api.v1.ResumeCursor;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.SyncPointConfig;
import dev.sluice.broker.NodeIdentity;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.testing.StoreFixture;
import dev.sluice.broker.testing.TestCollector;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a stream negotiated in Hello is what it gets: Welcome lists the features in force (what was asked
 * for and the broker has, plus credits and resolved batches, which a v1 broker always applies), and a
 * request that uses a feature the stream did not negotiate is refused with UNSUPPORTED_FEATURE, leaving the
 * stream open. Real service over gRPC, real stores.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FeatureNegotiationTest {

  /** optional features asked for (- = none) | Welcome.features. */
  private static final String WELCOMES = """
      -                             | credits resolved-batch
      sync-point                    | credits resolved-batch sync-point
      credits teleport              | credits resolved-batch
      fragmented-txn resume-cursor  | credits fragmented-txn resolved-batch resume-cursor
      """;

  /** features asked for | request using a feature | ack | reason fragment. */
  private static final String REQUESTS = """
      -             | REGISTER sync_point   | REJECTED(UNSUPPORTED_FEATURE) | sync_point needs the feature 'sync-point'
      -             | REGISTER filter       | REJECTED(UNSUPPORTED_FEATURE) | filter.ignore_ops needs the feature 'event-filter'
      -             | RESET resume_cursor   | REJECTED(UNSUPPORTED_FEATURE) | resume_cursor needs the feature 'resume-cursor'
      sync-point    | REGISTER sync_point   | ACCEPTED                      | -
      event-filter  | REGISTER filter       | ACCEPTED                      | -
      resume-cursor | RESET resume_cursor   | ACCEPTED                      | -
      """;

  @TempDir static Path dir;
  Vertx vertx;
  StoreFixture stores;
  EventService service;
  long start;
  long bigTxn;
  final List<TestCollector> collectors = new ArrayList<>();

  @BeforeAll
  void startService() throws Exception {
    vertx = Vertx.vertx();
    stores = new StoreFixture(dir);
    stores.createTable(100, "orders");
    start = stores.heartbeat();
    long[] ids = new long[300];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i + 1;
    }
    bigTxn = stores.insert(100, ids);   // ~6 KiB of rows: above a 4 KiB scan budget
    stores.heartbeat();
    EventServiceConfig config = EventServiceConfig.defaults()
        .withLimits(EventServiceConfig.defaults().limits().withScanBatchBytes(4096));
    service = EventService.start(vertx, config, NodeIdentity.fresh("node-a", null, null), "127.0.0.1", 0,
        stores.events, stores.schema, stores.meters).await(20, TimeUnit.SECONDS);
  }

  @AfterAll
  void stop() throws Exception {
    collectors.forEach(TestCollector::close);
    service.close().await(20, TimeUnit.SECONDS);
    vertx.close().await(20, TimeUnit.SECONDS);
    stores.close();
  }

  static Stream<String> welcomes() {
    return WELCOMES.strip().lines();
  }

  static Stream<String> requests() {
    return REQUESTS.strip().lines();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("welcomes")
  void welcomeListsTheFeaturesInForce(String row) {
    String[] col = row.split("\\|");
    Negotiated c = collector(words(col[0]));
    assertThat(String.join(" ", new TreeSet<>(c.welcome.getFeaturesList()))).isEqualTo(col[1].strip());
    assertThat(c.welcome.getFeaturesList()).containsAll(ProtocolInfo.BROKER_ALWAYS_IN_FORCE);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("requests")
  void aFeatureUsedIsAFeatureNegotiated(String row) {
    String[] col = row.split("\\|");
    Negotiated c = collector(words(col[0]));
    DispatcherId id = DispatcherId.random();
    String[] request = col[1].strip().split(" ");
    DispatcherRequest.Builder r;
    if (request[0].equals("REGISTER")) {
      r = TestCollector.register(id, TableSpan.wholeTable(100), start);
      switch (request[1]) {
        case "sync_point" -> r.setSyncPoint(SyncPointConfig.newBuilder().setIntervalS(10));
        case "filter" -> r.setFilter(EventFilter.newBuilder().addIgnoreOps(RowOp.ROW_OP_DELETE));
        default -> throw new IllegalArgumentException(request[1]);
      }
    } else {
      assertThat(c.c.ack(TestCollector.register(id, TableSpan.wholeTable(100), start).build()).getStatus())
          .isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
      r = TestCollector.reset(id, 1, start).setResumeCursor(ResumeCursor.newBuilder().setCommitTs(bigTxn)
          .setNextRowSeq(100));
    }
    ControlAck ack = c.c.ack(r.build());
    String ackText = ack.getStatus().name().substring("ACK_STATUS_".length())
        + (ack.getStatus() == AckStatus.ACK_STATUS_REJECTED ? "(" + ErrorCode.fromWire(ack.getCode()) + ")" : "");
    assertThat(ackText).as("ack (reason: " + ack.getReason() + ")").isEqualTo(col[2].strip());
    if (!col[3].strip().equals("-")) {
      assertThat(ack.getReason()).contains(col[3].strip()).contains("did not negotiate in Hello");
    }
    // a refused request closes nothing: the stream serves the next one
    DispatcherId next = DispatcherId.random();
    assertThat(c.c.ack(TestCollector.register(next, TableSpan.wholeTable(100), start).build()).getStatus())
        .isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    c.c.assertOpen();
  }

  @Test
  void aLargeTransactionIsCutIntoFragmentsOnlyWhereFragmentsWereNegotiated() {
    assertThat(fragmentsOf(List.of(ProtocolInfo.FEATURE_FRAGMENTED_TXN))).as("fragment count with the feature")
        .isGreaterThan(1);
    assertThat(fragmentsOf(List.of())).as("without it the transaction comes whole, in one DmlBatch").isEqualTo(1);
  }

  /** How many DmlBatch fragments the big transaction reached a stream with {@code features} in. */
  private int fragmentsOf(List<String> features) {
    Negotiated c = collector(features);
    DispatcherId id = DispatcherId.random();
    assertThat(c.c.ack(TestCollector.register(id, TableSpan.wholeTable(100), start).build()).getStatus())
        .isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    assertThat(c.c.ack(TestCollector.reset(id, 1, start).build()).getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    c.c.credit(id, 1, 64 << 20, 0);
    int fragments = 0;
    int rows = 0;
    while (rows < 300) {
      BrokerMessage m = c.c.next(BrokerMessage::hasEventBatch, Duration.ofSeconds(20));
      for (DataEvent e : m.getEventBatch().getEventsList()) {
        if (e.hasDml() && e.getDml().getCommitTs() == bigTxn) {
          assertThat(e.getDml().getFragmentIndex()).isEqualTo(fragments);
          fragments++;
          rows += e.getDml().getRowsCount();
          assertThat(e.getDml().getLastFragment()).isEqualTo(rows == 300);
        }
      }
    }
    return fragments;
  }

  private record Negotiated(TestCollector c, dev.sluice.api.v1.Welcome welcome) {}

  private Negotiated collector(List<String> features) {
    TestCollector c = TestCollector.connect(service.port());
    collectors.add(c);
    return new Negotiated(c, c.hello("features-test", features));
  }

  private static List<String> words(String cell) {
    String s = cell.strip();
    return s.equals("-") ? List.of() : Arrays.asList(s.split(" +"));
  }
}
