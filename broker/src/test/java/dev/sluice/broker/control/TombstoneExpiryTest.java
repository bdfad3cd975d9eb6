package dev.sluice.broker.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.AckStatus;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.ControlAck;
import dev.sluice.api.v1.DispatcherAction;
import dev.sluice.api.v1.DispatcherRequest;
import dev.sluice.broker.testing.RecordingLink;
import dev.sluice.broker.testing.StoreFixture;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A REMOVE's tombstone answers late requests of the removed epoch STALE for {@code tombstoneTtl} and
 * then expires: the id is unknown again (and a REGISTER of it is accepted). The control plane runs for
 * real on its own thread over real stores; its clock is injected, so the TTL passes without waiting.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TombstoneExpiryTest {

  private static final long TTL = EventServiceConfig.DEFAULT_TOMBSTONE_TTL.toNanos();

  /** time after the REMOVE at epoch 2 | request | ack. */
  private static final String TABLE = """
      0        | RESET 2    | STALE
      0        | REGISTER 0 | STALE
      ttl-1ns  | RESET 2    | STALE
      ttl-1ns  | RESET 3    | NOT_FOUND
      ttl-1ns  | REGISTER 0 | STALE
      ttl      | RESET 2    | NOT_FOUND
      ttl      | REGISTER 0 | ACCEPTED
      ttl+1h   | REMOVE 2   | NOT_FOUND
      """;

  @TempDir static Path dir;
  Vertx vertx;
  StoreFixture stores;
  ControlPlaneVerticle control;
  final AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
  final RecordingLink link = new RecordingLink(1, Set.of());
  long start;

  @BeforeAll
  void deploy() throws Exception {
    vertx = Vertx.vertx();
    stores = new StoreFixture(dir);
    stores.createTable(100, "orders");
    start = stores.heartbeat();
    EventServiceConfig config = EventServiceConfig.defaults()
        .withGc(Duration.ofMillis(50), EventServiceConfig.DEFAULT_GC_RETENTION);
    control = new ControlPlaneVerticle(config, stores.schema, stores.events, command -> { }, ts -> { }, nanos::get,
        stores.meters);
    vertx.deployVerticle(control, new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER)
        .setWorkerPoolName("test-control").setWorkerPoolSize(1)).await(20, TimeUnit.SECONDS);
  }

  @AfterAll
  void close() throws Exception {
    vertx.close().await(20, TimeUnit.SECONDS);
    stores.close();
  }

  static Stream<String> rows() {
    return TABLE.strip().lines();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void aTombstoneAnswersItsEpochUntilItsTtlHasPassed(String row) throws Exception {
    String[] col = row.split("\\|");
    DispatcherId id = removedAtEpoch2();
    nanos.addAndGet(offset(col[0].strip()));

    String[] request = col[1].strip().split(" ");
    ControlAck ack = ack(request(id, request[0], Long.parseLong(request[1])));

    assertThat(ack.getStatus().name()).as(row + " (reason: " + ack.getReason() + ")")
        .isEqualTo("ACK_STATUS_" + col[2].strip());
  }

  @Test
  void expiredTombstonesAreSweptWithoutARequest() throws Exception {
    removedAtEpoch2();
    await().atMost(Duration.ofSeconds(10)).until(() -> tombstones() >= 1);
    nanos.addAndGet(TTL);
    // the periodic GC round (every 50 ms here) sweeps on the injected clock
    await().atMost(Duration.ofSeconds(10)).until(() -> tombstones() == 0);
  }

  private double tombstones() {
    return stores.meters.get("sluice.control.tombstones").gauge().value();
  }

  private DispatcherId removedAtEpoch2() throws Exception {
    DispatcherId id = DispatcherId.random();
    assertThat(ack(request(id, "REGISTER", 0)).getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    assertThat(ack(request(id, "RESET", 2)).getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    assertThat(ack(request(id, "REMOVE", 2)).getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    return id;
  }

  private static long offset(String cell) {
    return switch (cell) {
      case "0" -> 0;
      case "ttl-1ns" -> TTL - 1;
      case "ttl" -> TTL;
      case "ttl+1h" -> TTL + Duration.ofHours(1).toNanos();
      default -> throw new IllegalArgumentException(cell);
    };
  }

  private DispatcherRequest request(DispatcherId id, String action, long epoch) {
    DispatcherRequest.Builder r = DispatcherRequest.newBuilder().setDispatcherId(id.toProto()).setEpoch(epoch)
        .setStartTs(start);
    return switch (action) {
      case "REGISTER" -> r.setAction(DispatcherAction.DISPATCHER_ACTION_REGISTER).setChangefeedId("cf")
          .setSpan(TableSpan.wholeTable(100).toProto()).build();
      case "RESET" -> r.setAction(DispatcherAction.DISPATCHER_ACTION_RESET).build();
      case "REMOVE" -> r.setAction(DispatcherAction.DISPATCHER_ACTION_REMOVE).build();
      default -> throw new IllegalArgumentException(action);
    };
  }

  private ControlAck ack(DispatcherRequest r) throws Exception {
    control.onRequest(link, r, nanos.get());
    BrokerMessage m = link.nextControl(x -> x.hasControlAck()
        && x.getControlAck().getDispatcherId().equals(r.getDispatcherId()) && x.getControlAck().getAction() == r.getAction());
    return m.getControlAck();
  }
}
