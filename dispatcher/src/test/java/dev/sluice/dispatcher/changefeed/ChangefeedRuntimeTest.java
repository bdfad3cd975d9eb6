package dev.sluice.dispatcher.changefeed;

import static dev.sluice.dispatcher.collector.TestEvents.ORDERS;
import static dev.sluice.dispatcher.collector.TestEvents.batch;
import static dev.sluice.dispatcher.collector.TestEvents.resolved;
import static dev.sluice.dispatcher.collector.TestEvents.txn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.DataEvent;
import dev.sluice.api.v1.DdlEvent;
import dev.sluice.api.v1.DdlType;
import dev.sluice.api.v1.DispatcherAction;
import dev.sluice.api.v1.DispatcherRequest;
import dev.sluice.api.v1.TableEntry;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.SubscriptionState;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.collector.ScriptedBroker;
import dev.sluice.dispatcher.sink.JdbcSinkConfig;
import dev.sluice.dispatcher.sink.JdbcUpsertSink;
import dev.sluice.dispatcher.sink.JsonLinesSink;
import dev.sluice.dispatcher.sink.UnsupportedDdlException;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link ChangefeedRuntime} against a {@link ScriptedBroker} (the real broker is built in parallel)
 * over loopback sockets, writing to real sinks: JSON lines files and an embedded PostgreSQL.
 */
class ChangefeedRuntimeTest {

  static final TableInfo ITEMS = ORDERS.toBuilder().setTableId(16385).setTableName("items").build();
  static final TableInfo TMP = ORDERS.toBuilder().setTableId(16386).setTableName("tmp_x").build();
  static final TableInfo FRESH = ORDERS.toBuilder().setTableId(16387).setTableName("fresh").build();

  private static EmbeddedPostgres pg;

  @TempDir
  Path dir;
  private Vertx brokerVertx;
  private ScriptedBroker broker;
  private SluiceClient client;
  private ChangefeedRuntime runtime;

  @BeforeAll
  static void startPostgres() throws Exception {
    pg = EmbeddedPostgres.builder().setOverrideWorkingDirectory(new File("target/embedded-pg"))
        .setDataDirectory(new File("target/pgdata-" + UUID.randomUUID())).setCleanDataDirectory(true).start();
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    pg.close();
  }

  @BeforeEach
  void start() throws Exception {
    brokerVertx = Vertx.vertx();
    broker = new ScriptedBroker(brokerVertx, "broker-a", 1, ORDERS).start();
    for (TableInfo t : List.of(ORDERS, ITEMS, TMP)) {
      broker.tables.put(t.getSchemaName() + "." + t.getTableName(),
          TableEntry.newBuilder().setTableInfo(t).setCreatedTs(1).build());
    }
    broker.listAtTs = 1000;
  }

  @AfterEach
  void stop() throws Exception {
    if (runtime != null) {
      runtime.close();
    }
    if (client != null) {
      client.close();
    }
    broker.close();
    brokerVertx.close().await(10, TimeUnit.SECONDS);
  }

  private ChangefeedRuntime run(dev.sluice.dispatcher.sink.Sink sink) {
    client = SluiceClient.connect(ClientConfig.of(broker.address()).withHeartbeat(Duration.ofMillis(100), 20)
        .withCreditInterval(Duration.ofMillis(50)).withReconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200)));
    runtime = ChangefeedRuntime.start(client, ChangefeedDefinition.of("cf1",
        TableFilter.of("public.*", "!public.tmp_*"), 100).withTablePollInterval(Duration.ofMillis(100)), sink);
    return runtime;
  }

  private Optional<DispatcherRequest> lastReset(long tableId) {
    return broker.requests(DispatcherAction.DISPATCHER_ACTION_RESET).stream()
        .filter(r -> r.getSpan().getTableId() == tableId).reduce((a, b) -> b);
  }

  private DispatcherId streamingDispatcher(long tableId) {
    await().until(() -> runtime.status().tables().stream()
        .anyMatch(t -> t.tableId() == tableId && t.dispatcherState() == SubscriptionState.STREAMING));
    return ScriptedBroker.id(lastReset(tableId).orElseThrow());
  }

  private List<Long> registeredTables() {
    return broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER).stream()
        .map(r -> r.getSpan().getTableId()).distinct().sorted().toList();
  }

  @Test
  void followsTheMatchingTablesAndWritesTheMinimumCheckpoint() throws Exception {
    Path data = dir.resolve("cf1.jsonl");
    run(JsonLinesSink.toFile(data, "cf1"));
    DispatcherId orders = streamingDispatcher(16384);
    DispatcherId items = streamingDispatcher(16385);
    assertThat(registeredTables()).containsExactly(16384L, 16385L);
    assertThat(lastReset(16384).orElseThrow().getStartTs()).isEqualTo(100);

    broker.sendAll(List.of(batch(orders, 1, txn(2, 101), txn(3, 103)), resolved(orders, 1, 110, 3),
        batch(items, 1, txn(2, 102)), resolved(items, 1, 105, 2)));

    Path cp = dir.resolve("cf1.jsonl.checkpoint");
    await().until(() -> Files.exists(cp) && new JsonObject(Files.readString(cp)).getLong("checkpoint_ts") == 105);
    assertThat(Files.readAllLines(data)).extracting(l -> new JsonObject(l).getLong("commit_ts"))
        .containsExactlyInAnyOrder(101L, 102L, 103L);
    assertThat(runtime.status().checkpointTs()).isEqualTo(105);
    await().until(() -> broker.messages(m -> m.hasHeartbeatBatch() && m.getHeartbeatBatch().getHeartbeatsList()
        .stream().anyMatch(h -> h.getDispatcherId().equals(orders.toProto()) && h.getCheckpointTs() == 110)).size() > 0);
  }

  /** The checkpoint once passed the CREATE of a table not listed yet, and a restart then skipped its rows. */
  @Test
  void theCheckpointNeverPassesTheLastTableListing() throws Exception {
    broker.listAtTs = 100;
    Path cp = dir.resolve("cf1.jsonl.checkpoint");
    run(JsonLinesSink.toFile(dir.resolve("cf1.jsonl"), "cf1"));
    DispatcherId orders = streamingDispatcher(16384);
    DispatcherId items = streamingDispatcher(16385);

    broker.sendAll(List.of(resolved(orders, 1, 120, 1), resolved(items, 1, 120, 1)));
    // both tables are at 120, but a table created in (100, 120] would not be known yet
    await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3))
        .until(() -> runtime.status().checkpointTs() == 100);

    broker.listAtTs = 130;
    await().until(() -> Files.exists(cp) && new JsonObject(Files.readString(cp)).getLong("checkpoint_ts") == 120);
  }

  @Test
  void picksUpANewTableFromItsCreationAndEndsADroppedOne() throws Exception {
    broker.listAtTs = 100;   // listings move forward from here, as one broker's do
    run(JsonLinesSink.toFile(dir.resolve("cf1.jsonl"), "cf1"));
    streamingDispatcher(16384);
    DispatcherId items = streamingDispatcher(16385);

    broker.tables.put("public.fresh", TableEntry.newBuilder().setTableInfo(FRESH).setCreatedTs(150).build());
    broker.tables.remove("public.items");
    broker.listAtTs = 160;

    await().until(() -> lastReset(16387).isPresent());
    assertThat(broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER).stream()
        .filter(r -> r.getSpan().getTableId() == 16387).findFirst().orElseThrow().getStartTs()).isEqualTo(149);
    assertThat(broker.requests(DispatcherAction.DISPATCHER_ACTION_REMOVE)).isEmpty();   // items not caught up yet

    broker.send(resolved(items, 1, 160, 1));
    await().until(() -> broker.requests(DispatcherAction.DISPATCHER_ACTION_REMOVE).stream()
        .anyMatch(r -> r.getDispatcherId().equals(items.toProto())));
  }

  @Test
  void aListingFromABrokerThatLagsDoesNotEndATableCreatedAfterIt() throws Exception {
    broker.listAtTs = 100;
    run(JsonLinesSink.toFile(dir.resolve("cf1.jsonl"), "cf1"));
    streamingDispatcher(16384);
    broker.tables.put("public.fresh", TableEntry.newBuilder().setTableInfo(FRESH).setCreatedTs(150).build());
    broker.listAtTs = 160;
    DispatcherId fresh = streamingDispatcher(16387);

    // after a failover, the member answering has captured only up to 140: fresh does not exist there yet
    broker.tables.remove("public.fresh");
    broker.listAtTs = 140;
    int calls = broker.listCalls.get();
    await().until(() -> broker.listCalls.get() >= calls + 3);

    assertThat(broker.requests(DispatcherAction.DISPATCHER_ACTION_REMOVE))
        .noneMatch(r -> r.getDispatcherId().equals(fresh.toProto()));
    assertThat(runtime.status().tables()).filteredOn(t -> t.tableId() == 16387).singleElement()
        .satisfies(t -> assertThat(t.dispatcherState()).isEqualTo(SubscriptionState.STREAMING));
  }

  @Test
  void aRestartResumesEveryTableFromTheSinkCheckpoint() throws Exception {
    Path data = dir.resolve("cf1.jsonl");
    run(JsonLinesSink.toFile(data, "cf1"));
    DispatcherId orders = streamingDispatcher(16384);
    DispatcherId items = streamingDispatcher(16385);
    broker.sendAll(List.of(batch(orders, 1, txn(2, 101)), resolved(orders, 1, 120, 2), resolved(items, 1, 105, 1)));
    Path cp = dir.resolve("cf1.jsonl.checkpoint");
    await().until(() -> Files.exists(cp) && new JsonObject(Files.readString(cp)).getLong("checkpoint_ts") == 105);
    runtime.close();
    client.close();
    int registersBefore = broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER).size();

    run(JsonLinesSink.toFile(data, "cf1"));

    await().until(() -> broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER).size() == registersBefore + 2);
    assertThat(broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER).subList(registersBefore, registersBefore + 2))
        .extracting(DispatcherRequest::getStartTs).containsOnly(105L);
  }

  @Test
  void anUnsupportedDdlStopsTheChangefeedWithAnErrorNamingIt() throws Exception {
    String url = "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres";
    try (JdbcUpsertSink sink = JdbcUpsertSink.open(JdbcSinkConfig.of(url, "postgres", "", "cf-ddl")
        .withTargetSchema("cf_ddl"))) {
      run(sink);
      DispatcherId orders = streamingDispatcher(16384);
      DispatcherId items = streamingDispatcher(16385);
      BrokerMessage index = batch(orders, 1, DataEvent.newBuilder().setSeq(3).setDdl(DdlEvent.newBuilder()
          .setCommitTs(130).setDdlType(DdlType.DDL_TYPE_OTHER).setQuery("CREATE POLICY p ON orders USING (true)")
          .setDialect("mysql").setTableId(16384).setTableInfoAfter(ORDERS)).build());
      // a schema change runs once every other table's stream passed its commit ts
      broker.sendAll(List.of(batch(orders, 1, txn(2, 101)), index, resolved(items, 1, 140, 1)));

      var failure = org.assertj.core.api.Assertions.catchThrowable(
          () -> runtime.completion().toCompletableFuture().get(20, TimeUnit.SECONDS));
      assertThat(failure).hasCauseInstanceOf(UnsupportedDdlException.class);
      assertThat(failure.getCause()).hasMessageContaining("public.orders").hasMessageContaining("130");
      assertThat(runtime.status().state()).isEqualTo(ChangefeedStatus.State.FAILED);
      assertThat(runtime.status().error()).contains("CREATE POLICY");
      try (Connection c = DriverManager.getConnection(url, "postgres", "");
           ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM cf_ddl.orders")) {
        rs.next();
        assertThat(rs.getLong(1)).isEqualTo(1);     // the transaction before the DDL was applied
      }
      await().until(() -> broker.requests(DispatcherAction.DISPATCHER_ACTION_REMOVE).size() >= 2);
    }
  }
}
