package dev.sluice.dispatcher.changefeed;

import static dev.sluice.dispatcher.collector.TestEvents.ORDERS;
import static dev.sluice.dispatcher.collector.TestEvents.batch;
import static dev.sluice.dispatcher.collector.TestEvents.dml;
import static dev.sluice.dispatcher.collector.TestEvents.fragment;
import static dev.sluice.dispatcher.collector.TestEvents.insert;
import static dev.sluice.dispatcher.collector.TestEvents.resolved;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.v1.DataEvent;
import dev.sluice.api.v1.DdlEvent;
import dev.sluice.api.v1.DdlType;
import dev.sluice.api.v1.DispatcherAction;
import dev.sluice.api.v1.DispatcherRequest;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.TableEntry;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.SubscriptionState;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.collector.ScriptedBroker;
import dev.sluice.dispatcher.sink.JdbcSinkConfig;
import dev.sluice.dispatcher.sink.JdbcUpsertSink;
import io.vertx.core.Vertx;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The two apply modes and the table rules of issue #16 on a {@link ChangefeedRuntime} against a
 * {@link ScriptedBroker} (which lets each table's stream arrive when the test says), writing to a real
 * PostgreSQL through {@link JdbcUpsertSink}: what a reader of the target sees between the parts of an
 * upstream transaction, the order of schema changes across tables, and a table held for want of a key.
 */
class ChangefeedApplyTest {

  static final TableInfo ACCOUNTS = ORDERS.toBuilder().setTableName("accounts").build();
  static final TableInfo TRANSFERS = ORDERS.toBuilder().setTableId(16385).setTableName("transfers").build();
  static final TableInfo LOGS = ORDERS.toBuilder().setTableId(16386).setTableName("logs").clearPrimaryKey().build();

  private static EmbeddedPostgres pg;
  private Vertx brokerVertx;
  private ScriptedBroker broker;
  private SluiceClient client;
  private ChangefeedRuntime runtime;
  private JdbcUpsertSink sink;
  private String schema;

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
    broker.listAtTs = 1000;
    schema = "t_" + UUID.randomUUID().toString().substring(0, 8);
  }

  @AfterEach
  void stop() throws Exception {
    if (runtime != null) {
      runtime.close();
    }
    if (client != null) {
      client.close();
    }
    if (sink != null) {
      sink.close();
    }
    broker.close();
    brokerVertx.close().await(10, TimeUnit.SECONDS);
  }

  private void list(TableInfo t, long createdTs) {
    broker.tables.put(t.getSchemaName() + "." + t.getTableName(),
        TableEntry.newBuilder().setTableInfo(t).setCreatedTs(createdTs).build());
  }

  private String url() {
    return "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres";
  }

  private void run(ApplyMode mode) {
    sink = JdbcUpsertSink.open(JdbcSinkConfig.of(url(), "postgres", "", "cf-" + schema).withTargetSchema(schema));
    client = SluiceClient.connect(ClientConfig.of(broker.address()).withHeartbeat(Duration.ofMillis(100), 20)
        .withCreditInterval(Duration.ofMillis(50)).withReconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200)));
    runtime = ChangefeedRuntime.start(client, ChangefeedDefinition.of("cf1", TableFilter.of("public.*"), 100)
        .withTablePollInterval(Duration.ofMillis(100)).withApplyMode(mode), sink);
  }

  private DispatcherId streaming(long tableId) {
    await().until(() -> runtime.status().tables().stream()
        .anyMatch(t -> t.tableId() == tableId && t.dispatcherState() == SubscriptionState.STREAMING));
    DispatcherRequest reset = broker.requests(DispatcherAction.DISPATCHER_ACTION_RESET).stream()
        .filter(r -> r.getSpan().getTableId() == tableId).reduce((a, b) -> b).orElseThrow();
    return ScriptedBroker.id(reset);
  }

  private List<String> rows(String table) throws SQLException {
    List<String> out = new java.util.ArrayList<>();
    try (Connection c = DriverManager.getConnection(url(), "postgres", "");
         ResultSet rs = c.createStatement().executeQuery("SELECT * FROM " + schema + "." + table + " ORDER BY 1")) {
      while (rs.next()) {
        out.add(rs.getString(1) + "|" + rs.getString(2));
      }
    }
    return out;
  }

  private long count(String table) throws SQLException {
    try (Connection c = DriverManager.getConnection(url(), "postgres", "");
         ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM pg_class WHERE oid = to_regclass('"
             + schema + "." + table + "')")) {
      rs.next();
      if (rs.getLong(1) == 0) {
        return -1;   // no such table
      }
    }
    try (Connection c = DriverManager.getConnection(url(), "postgres", "");
         ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM " + schema + "." + table)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      if ("42P01".equals(e.getSQLState())) {
        return -1;   // dropped by the sink between the two queries
      }
      throw e;
    }
  }

  /** A transfer: one row in each table, in one upstream transaction at 101; accounts' part arrives first. */
  private void transferWithTheTransferLogLate(DispatcherId accounts) {
    broker.sendAll(List.of(batch(accounts, 1, dml(2, 101, insert(0, 1, "debit"))), resolved(accounts, 1, 110, 2)));
  }

  @Test
  void theTransactionModeShowsAnUpstreamTransactionWholeOrNotAtAll() throws Exception {
    list(ACCOUNTS, 1);
    list(TRANSFERS, 1);
    run(ApplyMode.TRANSACTION);
    DispatcherId accounts = streaming(ACCOUNTS.getTableId());
    DispatcherId transfers = streaming(TRANSFERS.getTableId());

    transferWithTheTransferLogLate(accounts);
    // the transfer log's part has not arrived: nothing of the transaction may show
    await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5)).until(() -> count("accounts") <= 0);
    broker.sendAll(List.of(batch(transfers, 1, dml(2, 101, insert(1, 1, "credit"))), resolved(transfers, 1, 110, 2)));

    await().until(() -> count("accounts") == 1 && count("transfers") == 1);
    await().until(() -> runtime.status().checkpointTs() == 110);
  }

  /** The table mode's trade-off, which the transaction mode removes: a reader sees half a transaction. */
  @Test
  void theTableModeAppliesEachTablesPartAsItArrives() throws Exception {
    list(ACCOUNTS, 1);
    list(TRANSFERS, 1);
    run(ApplyMode.TABLE);
    DispatcherId accounts = streaming(ACCOUNTS.getTableId());
    streaming(TRANSFERS.getTableId());

    transferWithTheTransferLogLate(accounts);
    await().until(() -> count("accounts") == 1);
    assertThat(count("transfers")).isLessThanOrEqualTo(0);
    assertThat(runtime.status().checkpointTs()).isEqualTo(100);   // the checkpoint promises no more than both
  }

  /** A large transaction in parts goes into one open target transaction, committed with its last part. */
  @Test
  void aTransactionInPartsIsCommittedWhole() throws Exception {
    list(ACCOUNTS, 1);
    list(TRANSFERS, 1);
    run(ApplyMode.TRANSACTION);
    DispatcherId accounts = streaming(ACCOUNTS.getTableId());
    DispatcherId transfers = streaming(TRANSFERS.getTableId());
    broker.send(resolved(transfers, 1, 200, 1));

    broker.send(batch(accounts, 1, fragment(2, 101, 0, false, insert(0, 1, "a"), insert(1, 2, "b"))));
    await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5)).until(() -> count("accounts") <= 0);
    broker.sendAll(List.of(batch(accounts, 1, fragment(3, 101, 1, true, insert(2, 3, "c"))),
        resolved(accounts, 1, 150, 3)));

    await().until(() -> count("accounts") == 3);
    await().until(() -> runtime.status().checkpointTs() == 150);
  }

  /**
   * Issue #16, cases 2 and 8 (it failed before with {@code relation "...parent" does not exist}): the
   * child's CREATE arrives first, but runs after its parent's, whatever order the streams come in.
   */
  @Test
  void aChildsCreateWaitsForItsParentsInTheTableMode() throws Exception {
    TableInfo parent = ORDERS.toBuilder().setTableId(16390).setTableName("parent").setVersion(200).build();
    TableInfo child = ORDERS.toBuilder().setTableId(16391).setTableName("child").setVersion(201).build();
    list(parent, 200);
    list(child, 201);
    run(ApplyMode.TABLE);
    DispatcherId p = streaming(parent.getTableId());
    DispatcherId c = streaming(child.getTableId());

    broker.sendAll(List.of(batch(c, 1, ddl(2, 201, child, "CREATE TABLE public.child (id bigint PRIMARY KEY,"
        + " note text, parent_id bigint REFERENCES public.parent (id))")), resolved(c, 1, 300, 2)));
    await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5)).until(() -> count("child") == -1);
    broker.sendAll(List.of(batch(p, 1, ddl(2, 200, parent, "CREATE TABLE public.parent (id bigint PRIMARY KEY,"
        + " note text)")), resolved(p, 1, 300, 2)));

    await().until(() -> count("parent") == 0 && count("child") == 0);
    assertThat(runtime.status().state()).isEqualTo(ChangefeedStatus.State.RUNNING);
  }

  /**
   * Found by the real-schemas test: a parent and its child created in one transaction, the child's stream
   * first; the child's captured CREATE (with its REFERENCES) must run after the parent's, not fall back to
   * a table without its foreign key.
   */
  @Test
  void oneTransactionsCreatesRunParentsFirstInTheTransactionMode() throws Exception {
    TableInfo parent = ORDERS.toBuilder().setTableId(16390).setTableName("parent").setVersion(200).build();
    TableInfo child = ORDERS.toBuilder().setTableId(16391).setTableName("child").setVersion(200).build();
    list(parent, 200);
    list(child, 200);
    run(ApplyMode.TRANSACTION);
    DispatcherId p = streaming(parent.getTableId());
    DispatcherId c = streaming(child.getTableId());

    broker.send(batch(c, 1, ddl(2, 200, child, "CREATE TABLE public.child (id bigint PRIMARY KEY,"
        + " note text, parent_id bigint REFERENCES public.parent (id))")));
    await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5)).until(() -> count("child") == -1);
    broker.sendAll(List.of(batch(p, 1, ddl(2, 200, parent, "CREATE TABLE public.parent (id bigint PRIMARY KEY,"
        + " note text)")), resolved(p, 1, 300, 2), resolved(c, 1, 300, 2)));

    await().until(() -> count("parent") == 0 && count("child") == 0);
    try (Connection conn = DriverManager.getConnection(url(), "postgres", "");
         ResultSet rs = conn.createStatement().executeQuery("SELECT count(*) FROM pg_constraint WHERE conrelid = '"
             + schema + ".child'::regclass AND contype = 'f'")) {
      rs.next();
      assertThat(rs.getLong(1)).as("the child's REFERENCES ran as captured").isEqualTo(1);
    }
  }

  /** Issue #16, case 3: a keyless change the sink cannot match holds that table only, until it changes upstream. */
  @Test
  void aTableTheSinkCannotMatchIsHeldWhileTheOthersGoOn() throws Exception {
    list(ACCOUNTS, 1);
    list(LOGS, 1);
    run(ApplyMode.TABLE);
    DispatcherId accounts = streaming(ACCOUNTS.getTableId());
    DispatcherId logs = streaming(LOGS.getTableId());
    RowChange updateWithoutOldRow = RowChange.newBuilder().setOp(RowOp.ROW_OP_UPDATE).setRowSeq(0)
        .addAfter(Value.newBuilder().setInt64Value(1)).addAfter(Value.newBuilder().setStringValue("x")).build();

    broker.sendAll(List.of(batch(logs, 1, dml(2, 101, insert(0, 1, "first")), dml(3, 102, updateWithoutOldRow)),
        batch(accounts, 1, dml(2, 103, insert(0, 7, "goes on"))), resolved(accounts, 1, 110, 2)));

    await().until(() -> runtime.status().tables().stream().anyMatch(t -> t.tableId() == LOGS.getTableId()
        && t.phase() == ChangefeedStatus.TablePhase.NEEDS_KEY));
    ChangefeedStatus.TableStatus held = runtime.status().tables().stream()
        .filter(t -> t.tableId() == LOGS.getTableId()).findFirst().orElseThrow();
    assertThat(held.note()).contains("public.logs has no primary key").contains("REPLICA IDENTITY FULL");
    await().until(() -> count("accounts") == 1);
    assertThat(count("logs")).isEqualTo(1);   // the insert before the update went in
    assertThat(runtime.status().state()).isEqualTo(ChangefeedStatus.State.RUNNING);
    await().until(() -> runtime.status().checkpointTs() == 110);   // the held table does not hold the checkpoint

    int registers = broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER).size();
    list(LOGS.toBuilder().setVersion(500).build(), 1);   // fixed upstream: REPLICA IDENTITY FULL, a new version
    await().until(() -> broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER).size() > registers);
    DispatcherRequest again = broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_REGISTER);
    assertThat(again.getSpan().getTableId()).isEqualTo(LOGS.getTableId());
    assertThat(again.getStartTs()).isEqualTo(499);
    await().until(() -> runtime.status().tables().stream().anyMatch(t -> t.tableId() == LOGS.getTableId()
        && t.phase() == ChangefeedStatus.TablePhase.FOLLOWING && t.note() != null && t.note().contains("missing")));
  }

  /**
   * Issue #17: a held table that gains a key upstream is followed again with a snapshot from the start, so the
   * rows changed while it had none are read again; once it completes the note about them clears and the sink
   * records it done.
   */
  @Test
  void aHeldTableThatGainsAKeyIsReadAgainByASnapshot() throws Exception {
    list(LOGS, 1);
    run(ApplyMode.TABLE);
    DispatcherId logs = streaming(LOGS.getTableId());
    RowChange updateWithoutOldRow = RowChange.newBuilder().setOp(RowOp.ROW_OP_UPDATE).setRowSeq(0)
        .addAfter(Value.newBuilder().setInt64Value(1)).addAfter(Value.newBuilder().setStringValue("x")).build();
    broker.sendAll(List.of(batch(logs, 1, dml(2, 101, insert(0, 1, "first")), dml(3, 102, updateWithoutOldRow))));
    await().until(() -> runtime.status().tables().stream().anyMatch(t -> t.tableId() == LOGS.getTableId()
        && t.phase() == ChangefeedStatus.TablePhase.NEEDS_KEY));

    TableInfo keyed = LOGS.toBuilder().setVersion(500).addPrimaryKey("id").build();
    int registers = broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER).size();
    list(keyed, 1);   // ALTER TABLE logs ADD PRIMARY KEY (id) upstream
    await().until(() -> broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER).size() > registers);
    DispatcherRequest again = broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_REGISTER);
    assertThat(again.getStartTs()).isEqualTo(499);
    assertThat(again.hasSnapshot()).as("the rows changed while it had no key are read again").isTrue();
    assertThat(again.getSnapshot().getAfterKeyCount()).isZero();
    await().until(() -> broker.requests(DispatcherAction.DISPATCHER_ACTION_RESET).stream()
        .anyMatch(r -> r.getSpan().getTableId() == LOGS.getTableId() && !ScriptedBroker.id(r).equals(logs)));
    DispatcherId l2 = streaming(LOGS.getTableId());

    RowChange read1 = RowChange.newBuilder().setOp(RowOp.ROW_OP_READ).setRowSeq(0)
        .addAfter(Value.newBuilder().setInt64Value(1)).addAfter(Value.newBuilder().setStringValue("x")).build();
    RowChange read2 = RowChange.newBuilder().setOp(RowOp.ROW_OP_READ).setRowSeq(1)
        .addAfter(Value.newBuilder().setInt64Value(2)).addAfter(Value.newBuilder().setStringValue("missed")).build();
    DataEvent addKey = DataEvent.newBuilder().setSeq(2).setDdl(DdlEvent.newBuilder().setCommitTs(500)
        .setDdlType(DdlType.DDL_TYPE_ALTER_TABLE).setQuery("ALTER TABLE logs ADD PRIMARY KEY (id)")
        .setDialect("postgresql").setTableId(LOGS.getTableId()).setTableInfoAfter(keyed)).build();
    DataEvent chunk = DataEvent.newBuilder().setSeq(3).setDml(dev.sluice.api.v1.DmlBatch.newBuilder().setCommitTs(600)
        .setLastFragment(true).setTableInfoVersion(500).addRows(read1).addRows(read2)
        .setSnapshot(dev.sluice.api.v1.SnapshotProgress.newBuilder().addLastKey(Value.newBuilder().setInt64Value(2))
            .setRowsRead(2).setRowsEstimate(2).setChunks(1))).build();
    DataEvent done = DataEvent.newBuilder().setSeq(4).setSnapshotDone(dev.sluice.api.v1.SnapshotDone.newBuilder()
        .setStatus(dev.sluice.api.v1.SnapshotStatus.SNAPSHOT_STATUS_COMPLETE).setRowsRead(2).setChunks(1)).build();
    broker.sendAll(List.of(batch(l2, 1, addKey, chunk, done), resolved(l2, 1, 700, 4)));

    await().until(() -> runtime.status().tables().stream().anyMatch(t -> t.tableId() == LOGS.getTableId()
        && t.phase() == ChangefeedStatus.TablePhase.FOLLOWING && t.note() == null && t.snapshot() != null
        && t.snapshot().state() == dev.sluice.dispatcher.sink.TableSnapshot.State.DONE));
    assertThat(rows("logs")).containsExactly("1|x", "2|missed");
    await().until(() -> sink.checkpoint().tables().get(LOGS.getTableId()).snapshot().state()
        == dev.sluice.dispatcher.sink.TableSnapshot.State.DONE);
    assertThat(sink.checkpoint().tables().get(LOGS.getTableId()).snapshot().rows()).isEqualTo(2);
    // the status carries the sink's cursor (sampled once a second): what the server keeps for a sink that keeps none
    dev.sluice.dispatcher.SnapshotCursor stored = sink.checkpoint().tables().get(LOGS.getTableId()).snapshot().cursor();
    assertThat(stored).isNotEqualTo(dev.sluice.dispatcher.SnapshotCursor.start());
    await().atMost(java.time.Duration.ofSeconds(10)).until(() -> runtime.status().tables().stream()
        .anyMatch(t -> t.tableId() == LOGS.getTableId() && t.snapshot() != null && t.snapshot().cursor().equals(stored)));
  }

  /** Issue #16, case 1: a table the sink's progress holds but the broker no longer lists is still followed. */
  @Test
  void aTableDroppedWhileStoppedIsResumedFromItsProgressUntilItsDrop() throws Exception {
    TableInfo gone = ORDERS.toBuilder().setTableId(16395).setTableName("gone").build();
    list(gone, 1);
    list(ACCOUNTS, 1);
    run(ApplyMode.TRANSACTION);
    DispatcherId g = streaming(gone.getTableId());
    DispatcherId a = streaming(ACCOUNTS.getTableId());
    broker.sendAll(List.of(batch(g, 1, dml(2, 105, insert(0, 1, "a"))), resolved(g, 1, 120, 2), resolved(a, 1, 120, 1)));
    await().until(() -> count("gone") == 1 && sink.checkpoint().checkpointTs() == 120);
    runtime.close();
    client.close();
    sink.close();

    broker.tables.remove("public.gone");   // dropped while nothing ran
    broker.tableInfo = gone;                // the handshake still has its table info at the resume ts
    int registers = broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER).size();
    run(ApplyMode.TRANSACTION);
    await().until(() -> broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER).stream().skip(registers)
        .anyMatch(r -> r.getSpan().getTableId() == gone.getTableId() && r.getStartTs() == 120));
    DispatcherId g2 = streaming(gone.getTableId());
    DispatcherId a2 = streaming(ACCOUNTS.getTableId());
    broker.sendAll(List.of(batch(g2, 1, dml(2, 130, insert(0, 2, "last row")),
            DataEvent.newBuilder().setSeq(3).setDdl(DdlEvent.newBuilder().setCommitTs(140)
                .setDdlType(DdlType.DDL_TYPE_DROP_TABLE).setTableId(gone.getTableId()).setTableInfoAfter(gone)).build()),
        resolved(a2, 1, 150, 1)));

    await().until(() -> count("gone") == -1);
    assertThat(sink.checkpoint().tables().get(gone.getTableId()).droppedTs()).isEqualTo(140);
    await().until(() -> runtime.status().tables().stream().anyMatch(t -> t.tableId() == gone.getTableId()
        && t.phase() == ChangefeedStatus.TablePhase.ENDED));
    runtime.close();
    client.close();
    sink.close();

    int before = broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER).size();
    run(ApplyMode.TRANSACTION);   // the ended table is not followed again
    streaming(ACCOUNTS.getTableId());
    assertThat(broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER).stream().skip(before)
        .map(r -> r.getSpan().getTableId())).containsExactly(ACCOUNTS.getTableId());
  }

  private static DataEvent ddl(long seq, long ts, TableInfo after, String query) {
    return DataEvent.newBuilder().setSeq(seq).setDdl(DdlEvent.newBuilder().setCommitTs(ts)
        .setDdlType(DdlType.DDL_TYPE_CREATE_TABLE).setQuery(query).setDialect("postgresql")
        .setTableId(after.getTableId()).setTableInfoAfter(after)).build();
  }
}
