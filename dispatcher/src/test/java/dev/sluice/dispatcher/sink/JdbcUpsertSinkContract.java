package dev.sluice.dispatcher.sink;

import static dev.sluice.dispatcher.sink.SinkFixtures.CODES;
import static dev.sluice.dispatcher.sink.SinkFixtures.ORDERS;
import static dev.sluice.dispatcher.sink.SinkFixtures.ORDERS_WITH_QTY;
import static dev.sluice.dispatcher.sink.SinkFixtures.col;
import static dev.sluice.dispatcher.sink.SinkFixtures.ddl;
import static dev.sluice.dispatcher.sink.SinkFixtures.delete;
import static dev.sluice.dispatcher.sink.SinkFixtures.i;
import static dev.sluice.dispatcher.sink.SinkFixtures.ins;
import static dev.sluice.dispatcher.sink.SinkFixtures.insert;
import static dev.sluice.dispatcher.sink.SinkFixtures.nul;
import static dev.sluice.dispatcher.sink.SinkFixtures.s;
import static dev.sluice.dispatcher.sink.SinkFixtures.txn;
import static dev.sluice.dispatcher.sink.SinkFixtures.unavailable;
import static dev.sluice.dispatcher.sink.SinkFixtures.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.v1.DdlType;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.ValueKind;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.testing.servers.MariaDbServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link JdbcUpsertSink} target must do, run against a real server by each subclass
 * (PostgreSQL through zonky, MariaDB through {@link MariaDbServer} and in a container: {@link MariaDbSinkContract}).
 */
abstract class JdbcUpsertSinkContract {

  protected String changefeed;
  protected JdbcUpsertSink sink;

  abstract String jdbcUrl();

  abstract String user();

  abstract String password();

  abstract Connection connect() throws SQLException;

  /** Where target tables go (a fresh schema/database per test). */
  abstract String targetSchemaPrefix();

  /** Quoted "schema"."orders" of this test's target. */
  String orders() {
    return config().dialect().qualified(schema, "orders");
  }

  /** A statement that makes every insert or update of orders bump apply_count.n. */
  abstract List<String> countingTriggerSql(String schema);

  /** An ADD COLUMN qty statement in this target's own dialect, naming the source schema "public". */
  abstract String sameDialectAddQty();

  abstract String otherDialect();

  protected String schema;

  JdbcSinkConfig config() {
    return JdbcSinkConfig.of(jdbcUrl(), user(), password(), changefeed).withTargetSchema(schema);
  }

  @BeforeEach
  void open() {
    changefeed = "cf-" + UUID.randomUUID().toString().substring(0, 8);
    schema = targetSchemaPrefix() + changefeed.substring(3);
    sink = JdbcUpsertSink.open(config());
  }

  @AfterEach
  void closeSink() {
    sink.close();
  }

  List<String> rows() throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = connect(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT id, note, big FROM " + orders() + " ORDER BY id")) {
      while (rs.next()) {
        out.add(rs.getLong(1) + ":" + rs.getString(2) + ":" + rs.getString(3));
      }
    }
    return out;
  }

  long scalar(String sql) throws SQLException {
    try (Connection c = connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      return rs.next() ? rs.getLong(1) : -1;
    }
  }

  void exec(String... sql) throws SQLException {
    try (Connection c = connect(); Statement st = c.createStatement()) {
      for (String s : sql) {
        st.execute(s);
      }
    }
  }

  long storedCheckpoint() throws SQLException {
    return scalar("SELECT checkpoint_ts FROM " + JdbcSinkConfig.CHECKPOINT_TABLE + " WHERE changefeed_id = '"
        + changefeed + "'");
  }

  /** "[code]=n" of the codes table, brackets showing trailing spaces. */
  List<String> codes() throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = connect(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT CONCAT('[', code, ']'), n FROM "
             + config().dialect().qualified(schema, "codes") + " ORDER BY n")) {
      while (rs.next()) {
        out.add(rs.getString(1) + "=" + rs.getLong(2));
      }
    }
    return out;
  }

  @Test
  void aTableRenameReplayedAfterACrashBeforeItsCheckpointIsHarmless() throws Exception {
    sink.apply(List.of(txn(101, ORDERS, insert(ORDERS, 0, i(1), s("one"), nul()))), 101);
    TableInfo moved = ORDERS.toBuilder().setTableName("orders_v2").setVersion(200).build();
    // the crash: the RENAME reached the target (MySQL commits DDL at once), its checkpoint did not
    exec(config().dialect().renameTable(orders(), schema, "orders_v2"));

    sink.applyDdl(ddl(200, DdlType.DDL_TYPE_RENAME_TABLE, "", "", ORDERS, moved), 200);
    sink.apply(List.of(txn(201, moved, insert(moved, 0, i(2), s("two"), nul()))), 201);

    assertThat(scalar("SELECT count(*) FROM " + config().dialect().qualified(schema, "orders_v2"))).isEqualTo(2);
    assertThat(storedCheckpoint()).isEqualTo(201);
  }

  @Test
  void aNewOwnersFencingTokenRefusesTheOldOwnersTransactionsWholeAndNothingIsAppliedTwice() throws Exception {
    sink.close();
    JdbcUpsertSink old = JdbcUpsertSink.open(config().withFenceToken(5));
    old.apply(List.of(ins(101, 1, "a")), 101);
    exec(countingTriggerSql(schema).toArray(String[]::new));

    sink = JdbcUpsertSink.open(config().withFenceToken(6));   // the changefeed moved: its new owner claims 6
    FencedOutException refused = org.assertj.core.api.Assertions.catchThrowableOfType(
        () -> old.apply(List.of(ins(102, 2, "from the old owner")), 102), FencedOutException.class);
    assertThatThrownBy(() -> old.advance(150)).isInstanceOf(FencedOutException.class);
    sink.apply(List.of(ins(102, 2, "b"), ins(103, 3, "c")), 103);
    assertThatThrownBy(() -> old.apply(List.of(ins(104, 4, "late")), 104)).isInstanceOf(FencedOutException.class);
    old.close();

    assertThat(refused.code()).isEqualTo(dev.sluice.api.error.ErrorCode.FENCED_OUT);
    assertThat(refused.token()).isEqualTo(5);
    assertThat(refused.heldToken()).isEqualTo(6);
    assertThat(refused).hasMessageContaining(changefeed).hasMessageContaining("6").hasMessageContaining("5");
    assertThat(rows()).containsExactly("1:a:null", "2:b:null", "3:c:null");
    assertThat(scalar("SELECT n FROM " + config().dialect().qualified(schema, "apply_count"))).isEqualTo(2);
    assertThat(storedCheckpoint()).isEqualTo(103);
    assertThatThrownBy(() -> JdbcUpsertSink.open(config().withFenceToken(5))).isInstanceOf(FencedOutException.class);
    assertThatThrownBy(() -> JdbcUpsertSink.open(config())).as("an unfenced writer where a token was claimed")
        .isInstanceOf(FencedOutException.class).hasMessageContaining("unfenced");
    sink.close();
    sink = JdbcUpsertSink.open(config().withFenceToken(6));   // the same owner restarting keeps its token
    assertThat(sink.checkpoint().checkpointTs()).isEqualTo(103);
    assertThat(scalar("SELECT fence_token FROM " + JdbcSinkConfig.FENCE_TABLE + " WHERE changefeed_id = '" + changefeed
        + "'")).isEqualTo(6);
  }

  @Test
  void upsertsAndDeletesByPrimaryKeyInCommitOrder() throws Exception {
    sink.apply(List.of(
        txn(101, ORDERS, insert(ORDERS, 0, i(1), s("one"), nul()), insert(ORDERS, 1, i(2), s("two"), nul())),
        txn(102, ORDERS, update(ORDERS, 0, List.of(i(1), nul(), nul()), i(1), s("uno"), s("x")),
            delete(ORDERS, 1, i(2), nul(), nul())),
        ins(103, 2, "again")), 103);

    assertThat(rows()).containsExactly("1:uno:x", "2:again:null");
    assertThat(storedCheckpoint()).isEqualTo(103);
    assertThat(sink.checkpoint().forTable(ORDERS.getTableId())).isEqualTo(Checkpoint.at(103));
  }

  /** Keys distinct upstream stay distinct rows: no case folding, no trailing-space padding in the comparison. */
  @Test
  void textKeysDifferingInCaseOrTrailingSpacesStayDistinctRows() throws Exception {
    sink.apply(List.of(txn(101, CODES, insert(CODES, 0, s("abc"), i(1)), insert(CODES, 1, s("ABC"), i(2)),
        insert(CODES, 2, s("a"), i(3)), insert(CODES, 3, s("a "), i(4)))), 101);
    assertThat(codes()).containsExactly("[abc]=1", "[ABC]=2", "[a]=3", "[a ]=4");

    sink.apply(List.of(txn(102, CODES, delete(CODES, 0, s("ABC"), nul()), delete(CODES, 1, s("a "), nul()))), 102);
    assertThat(codes()).containsExactly("[abc]=1", "[a]=3");
  }

  @Test
  void changefeedIdsDifferingInCaseOrTrailingSpacesKeepTheirOwnCheckpoints() throws Exception {
    sink.apply(List.of(ins(101, 1, "a")), 101);
    for (String other : List.of(changefeed.toUpperCase(Locale.ROOT), changefeed + " ")) {
      try (JdbcUpsertSink look = JdbcUpsertSink.open(JdbcSinkConfig.of(jdbcUrl(), user(), password(), other)
          .withTargetSchema(schema))) {
        assertThat(look.checkpoint().checkpointTs()).as(other).isZero();
        assertThat(look.checkpoint().tables()).as(other).isEmpty();
        look.advance(200);
      }
    }
    assertThat(storedCheckpoint()).isEqualTo(101);
  }

  @Test
  void unavailableColumnsKeepTheirCurrentValue() throws Exception {
    sink.apply(List.of(txn(101, ORDERS, insert(ORDERS, 0, i(1), s("a"), s("toasted")))), 101);
    sink.apply(List.of(txn(102, ORDERS, update(ORDERS, 0, List.of(), i(1), s("b"), unavailable()))), 102);

    assertThat(rows()).containsExactly("1:b:toasted");
  }

  @Test
  void anUpdateThatChangesTheKeyMovesTheRow() throws Exception {
    sink.apply(List.of(ins(101, 1, "a"), ins(102, 2, "b")), 102);
    sink.apply(List.of(txn(103, ORDERS, update(ORDERS, 0, List.of(i(1), nul(), nul()), i(5), s("a5"), nul()))), 103);

    assertThat(rows()).containsExactly("2:b:null", "5:a5:null");
  }

  @Test
  void aReplayOfAppliedTransactionsIsSkippedEvenAfterAReopen() throws Exception {
    sink.apply(List.of(ins(101, 1, "a"), ins(102, 2, "b")), 102);
    exec(countingTriggerSql(schema).toArray(String[]::new));

    sink.apply(List.of(ins(101, 1, "a"), ins(102, 2, "b"), ins(103, 3, "c")), 103);
    assertThat(sink.skippedTransactions()).isEqualTo(2);
    sink.close();
    sink = JdbcUpsertSink.open(config());
    assertThat(sink.checkpoint().checkpointTs()).isEqualTo(103);
    sink.apply(List.of(ins(102, 2, "b"), ins(103, 3, "c"), ins(104, 4, "d")), 104);

    assertThat(scalar("SELECT n FROM " + config().dialect().qualified(schema, "apply_count"))).isEqualTo(2);
    assertThat(rows()).containsExactly("1:a:null", "2:b:null", "3:c:null", "4:d:null");
    assertThat(storedCheckpoint()).isEqualTo(104);
  }

  @Test
  void aFailingTransactionRollsBackTheWholeBatchWithItsCheckpoint() throws Exception {
    sink.apply(List.of(ins(101, 1, "a")), 101);
    exec("ALTER TABLE " + orders() + " ADD CONSTRAINT no_bad CHECK (note <> 'bad')");

    assertThatThrownBy(() -> sink.apply(List.of(ins(102, 2, "b"), ins(103, 3, "bad")), 103))
        .isInstanceOf(SinkFailedException.class).hasMessageContaining("public.orders").hasMessageContaining("103");

    assertThat(rows()).containsExactly("1:a:null");
    assertThat(storedCheckpoint()).isEqualTo(101);
    sink.close();
    sink = JdbcUpsertSink.open(config());
    assertThat(sink.checkpoint().forTable(ORDERS.getTableId())).isEqualTo(Checkpoint.at(101));
  }

  @Test
  void aTransactionInPartsResumesAtItsCursor() throws Exception {
    Transaction part1 = new Transaction(101, 0, ORDERS, List.of(insert(ORDERS, 0, i(1), s("a"), nul()),
        insert(ORDERS, 1, i(2), s("b"), nul())), false, false);
    sink.apply(List.of(part1), 100);
    assertThat(sink.checkpoint().forTable(ORDERS.getTableId())).isEqualTo(Checkpoint.inside(101, 2));
    exec(countingTriggerSql(schema).toArray(String[]::new));
    sink.close();
    sink = JdbcUpsertSink.open(config());

    Transaction resent = new Transaction(101, 0, ORDERS, List.of(insert(ORDERS, 0, i(1), s("a"), nul()),
        insert(ORDERS, 1, i(2), s("b"), nul()), insert(ORDERS, 2, i(3), s("c"), nul())), true, true);
    sink.apply(List.of(resent), 101);

    assertThat(scalar("SELECT n FROM " + config().dialect().qualified(schema, "apply_count"))).isEqualTo(1);
    assertThat(rows()).hasSize(3);
    assertThat(sink.checkpoint().forTable(ORDERS.getTableId())).isEqualTo(Checkpoint.at(101));
  }

  static final TableInfo LOGS = TableInfo.newBuilder().setTableId(777).setSchemaName("public").setTableName("logs")
      .setVersion(1).addColumns(col("line", "text", ValueKind.VALUE_KIND_STRING, true))
      .addColumns(col("n", "bigint", ValueKind.VALUE_KIND_INT64, true)).build();

  /** "line:n" of the keyless logs table, sorted. */
  List<String> logs() throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = connect(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT line, n FROM " + config().dialect().qualified(schema, "logs"))) {
      while (rs.next()) {
        out.add(rs.getString(1) + ":" + (rs.getObject(2) == null ? "null" : rs.getLong(2)));
      }
    }
    out.sort(null);
    return out;
  }

  /**
   * Issue #16, case 3 (it failed before with "has no primary key"): a keyless table takes inserts, and
   * updates and deletes matching its whole old row (REPLICA IDENTITY FULL), one row each, NULL matching NULL.
   */
  @Test
  void aTableWithoutAKeyIsAppliedByItsWholeOldRow() throws Exception {
    sink.apply(List.of(txn(101, LOGS, insert(LOGS, 0, s("a"), i(1)), insert(LOGS, 1, s("a"), i(1)),
        insert(LOGS, 2, s("b"), nul()), insert(LOGS, 3, nul(), i(3)))), 101);
    sink.apply(List.of(txn(102, LOGS, update(LOGS, 0, List.of(s("a"), i(1)), s("a"), i(2)),
        update(LOGS, 1, List.of(s("b"), nul()), s("b"), i(9)), delete(LOGS, 2, nul(), i(3)))), 102);

    assertThat(logs()).containsExactly("a:1", "a:2", "b:9");
    assertThat(sink.unmatchedRows()).isZero();
    sink.apply(List.of(txn(103, LOGS, delete(LOGS, 0, s("zzz"), i(0)))), 103);   // a row the target lacks
    assertThat(sink.unmatchedRows()).isEqualTo(1);
    assertThat(storedCheckpoint()).isEqualTo(103);

    sink.apply(List.of(txn(102, LOGS, update(LOGS, 0, List.of(s("a"), i(1)), s("a"), i(2)))), 103);   // replayed
    assertThat(logs()).containsExactly("a:1", "a:2", "b:9");
  }

  @Test
  void aKeylessChangeWithoutTheOldRowNamesTheTableAndTheFix() throws Exception {
    sink.apply(List.of(txn(101, LOGS, insert(LOGS, 0, s("a"), i(1)))), 101);
    assertThatThrownBy(() -> sink.apply(List.of(txn(102, LOGS, update(LOGS, 0, List.of(), s("a"), i(2)))), 102))
        .isInstanceOfSatisfying(RowIdentityMissingException.class, e -> assertThat(e.tableId()).isEqualTo(777))
        .hasMessageContaining("public.logs has no primary key").hasMessageContaining("102")
        .hasMessageContaining("REPLICA IDENTITY FULL");
    assertThat(storedCheckpoint()).isEqualTo(101);
  }

  /** Found by the runtime's hold: rows batched before the refused change ran with the next call. */
  @Test
  void aCallRefusedMidBatchLeavesNoRowsForTheNextOne() throws Exception {
    assertThatThrownBy(() -> sink.apply(List.of(txn(101, LOGS, insert(LOGS, 0, s("first"), i(1)),
        update(LOGS, 1, List.of(), s("first"), i(2)))), 101)).isInstanceOf(RowIdentityMissingException.class);
    sink.apply(List.of(ins(102, 5, "other table")), 102);
    assertThat(rows()).containsExactly("5:other table:null");
    if (scalar("SELECT count(*) FROM information_schema.tables WHERE table_schema = '" + schema
        + "' AND table_name = 'logs'") > 0) {
      assertThat(logs()).isEmpty();   // MySQL commits a CREATE at once; its rows went with the rollback
    }
  }

  /** Issue #16, case 1: a DROP ends the table's progress, so a replay or a restart leaves it alone. */
  @Test
  void aDroppedTableIsRecordedAndNeverWrittenAgain() throws Exception {
    sink.apply(List.of(ins(101, 1, "a")), 101);
    sink.applyDdl(ddl(200, DdlType.DDL_TYPE_DROP_TABLE, "DROP TABLE public.orders, public.other",
        config().dialect().wireName(), ORDERS, ORDERS), 200);
    assertThat(scalar("SELECT count(*) FROM information_schema.tables WHERE table_schema = '" + schema
        + "' AND table_name = 'orders'")).isZero();
    assertThat(sink.checkpoint().tables().get(ORDERS.getTableId()).droppedTs()).isEqualTo(200);

    sink.apply(List.of(ins(101, 1, "a"), ins(150, 2, "late")), 200);   // replayed rows of the dropped table
    assertThat(scalar("SELECT count(*) FROM information_schema.tables WHERE table_schema = '" + schema
        + "' AND table_name = 'orders'")).isZero();
    sink.markDropped(CODES.getTableId(), "public.codes", 300);
    sink.close();
    sink = JdbcUpsertSink.open(config());
    assertThat(sink.checkpoint().tables().get(ORDERS.getTableId()).dropped()).isTrue();
    assertThat(sink.checkpoint().tables().get(CODES.getTableId()).droppedTs()).isEqualTo(300);
  }

  /** The transaction mode's target transaction spans calls: a reader sees none of it before the commit. */
  @Test
  void changesAppliedInOrderCommitTogetherAcrossCalls() throws Exception {
    sink.apply(List.of(ins(101, 1, "a")), 101);
    sink.applyInOrder(List.of(new SinkChange.Rows(ins(102, 2, "b")),
        new SinkChange.Rows(txn(102, LOGS, insert(LOGS, 0, s("x"), i(1))))), false, 0);
    sink.applyInOrder(List.of(new SinkChange.Rows(new Transaction(103, 0, ORDERS,
        List.of(insert(ORDERS, 0, i(3), s("c"), nul())), false, false))), false, 0);
    assertThat(rows()).containsExactly("1:a:null");
    assertThat(storedCheckpoint()).isEqualTo(101);

    sink.applyInOrder(List.of(new SinkChange.Rows(new Transaction(103, 0, ORDERS,
        List.of(insert(ORDERS, 1, i(4), s("d"), nul())), false, true))), true, 103);
    assertThat(rows()).containsExactly("1:a:null", "2:b:null", "3:c:null", "4:d:null");
    assertThat(logs()).containsExactly("x:1");
    assertThat(storedCheckpoint()).isEqualTo(103);
    assertThat(sink.checkpoint().forTable(ORDERS.getTableId())).isEqualTo(Checkpoint.at(103));
  }

  /** Rows batched before a schema change of their table in one call are written before it runs. */
  @Test
  void rowsBeforeASchemaChangeInOneCallRunBeforeIt() throws Exception {
    sink.apply(List.of(ins(101, 1, "a")), 101);
    sink.applyInOrder(List.of(new SinkChange.Rows(ins(102, 2, "b")),
        new SinkChange.Schema(ddl(200, DdlType.DDL_TYPE_ADD_COLUMN, "", otherDialect(), ORDERS, ORDERS_WITH_QTY)),
        new SinkChange.Rows(txn(200, ORDERS_WITH_QTY, insert(ORDERS_WITH_QTY, 0, i(3), s("c"), nul(), i(7))))), true, 200);
    assertThat(rows()).containsExactly("1:a:null", "2:b:null", "3:c:null");
    assertThat(scalar("SELECT qty FROM " + orders() + " WHERE id = 3")).isEqualTo(7);

    sink.applyInOrder(List.of(new SinkChange.Rows(txn(201, ORDERS_WITH_QTY,
            insert(ORDERS_WITH_QTY, 0, i(4), s("d"), nul(), i(8)))),
        new SinkChange.Schema(ddl(300, DdlType.DDL_TYPE_DROP_TABLE, "", "", ORDERS_WITH_QTY, ORDERS_WITH_QTY))), true, 300);
    assertThat(sink.checkpoint().tables().get(ORDERS.getTableId()).droppedTs()).isEqualTo(300);
  }

  /** Rows of several tables are written table by table (shared batches), each table's in their order. */
  @Test
  void interleavedTablesKeepEachTablesOrder() throws Exception {
    sink.applyInOrder(List.of(new SinkChange.Rows(ins(102, 1, "a")),
        new SinkChange.Rows(txn(102, LOGS, insert(LOGS, 1, s("x"), i(1)))),
        new SinkChange.Rows(txn(103, ORDERS, update(ORDERS, 0, List.of(i(1), nul(), nul()), i(1), s("b"), nul()))),
        new SinkChange.Rows(txn(103, LOGS, update(LOGS, 1, List.of(s("x"), i(1)), s("x"), i(2)))),
        new SinkChange.Rows(txn(104, ORDERS, delete(ORDERS, 0, i(1), nul(), nul()), insert(ORDERS, 1, i(1), s("c"), nul())))),
        true, 104);
    assertThat(rows()).containsExactly("1:c:null");
    assertThat(logs()).containsExactly("x:2");
    assertThat(sink.checkpoint().tables().get(ORDERS.getTableId()).applied()).isEqualTo(Checkpoint.at(104));
    assertThat(sink.checkpoint().tables().get(LOGS.getTableId()).applied()).isEqualTo(Checkpoint.at(103));
  }

  @Test
  void aFailureInsideAnOpenTargetTransactionRollsBackEveryCallOfIt() throws Exception {
    sink.apply(List.of(ins(101, 1, "a")), 101);
    exec("ALTER TABLE " + orders() + " ADD CONSTRAINT no_bad CHECK (note <> 'bad')");
    sink.applyInOrder(List.of(new SinkChange.Rows(ins(102, 2, "b"))), false, 0);

    assertThatThrownBy(() -> sink.applyInOrder(List.of(new SinkChange.Rows(ins(103, 3, "bad"))), true, 103))
        .isInstanceOf(SinkFailedException.class);
    assertThat(rows()).containsExactly("1:a:null");
    sink.applyInOrder(List.of(new SinkChange.Rows(ins(102, 2, "b"))), true, 102);
    assertThat(rows()).containsExactly("1:a:null", "2:b:null");
    assertThat(storedCheckpoint()).isEqualTo(102);
  }

  @Test
  void ddlOfTheTargetDialectRunsAsCapturedInTheTargetSchema() throws Exception {
    sink.apply(List.of(ins(101, 1, "a")), 101);
    sink.applyDdl(ddl(500, DdlType.DDL_TYPE_ADD_COLUMN, sameDialectAddQty(), config().dialect().wireName(),
        ORDERS, ORDERS_WITH_QTY), 500);
    sink.apply(List.of(txn(501, ORDERS_WITH_QTY, insert(ORDERS_WITH_QTY, 0, i(2), s("b"), nul(), i(7)))), 501);

    assertThat(scalar("SELECT qty FROM " + orders() + " WHERE id = 2")).isEqualTo(7);
    assertThat(sink.checkpoint().tables().get(ORDERS.getTableId()).ddlTs()).isEqualTo(500);
    sink.applyDdl(ddl(500, DdlType.DDL_TYPE_ADD_COLUMN, sameDialectAddQty(), config().dialect().wireName(),
        ORDERS, ORDERS_WITH_QTY), 501);   // replayed: skipped, not an error
  }

  /** A table started after its CREATE and altered before its first row: the ALTER found no table. */
  @Test
  void aDdlBeforeTheFirstRowOfATableCreatesItAsItWasFirst() throws Exception {
    sink.applyDdl(ddl(500, DdlType.DDL_TYPE_ADD_COLUMN, sameDialectAddQty(), config().dialect().wireName(),
        ORDERS, ORDERS_WITH_QTY), 500);
    sink.apply(List.of(txn(501, ORDERS_WITH_QTY, insert(ORDERS_WITH_QTY, 0, i(2), s("b"), nul(), i(7)))), 501);

    assertThat(scalar("SELECT qty FROM " + orders() + " WHERE id = 2")).isEqualTo(7);
  }

  /** As {@code pgbench -i} does: CREATE without a key, ALTER ... ADD PRIMARY KEY, then rows. */
  @Test
  void aTableCreatedWithoutAKeyTakesRowsOnceAnAlterAddsIt() throws Exception {
    TableInfo keyless = TableInfo.newBuilder().setTableId(901).setSchemaName("public").setTableName("accounts")
        .setVersion(900).addColumns(col("aid", "bigint", ValueKind.VALUE_KIND_INT64, false))
        .addColumns(col("abalance", "bigint", ValueKind.VALUE_KIND_INT64, true)).build();
    TableInfo keyed = keyless.toBuilder().setVersion(910).addPrimaryKey("aid").build();
    String accounts = config().dialect().qualified(schema, "accounts");
    sink.applyDdl(ddl(900, DdlType.DDL_TYPE_CREATE_TABLE, "", "", TableInfo.getDefaultInstance(), keyless), 900);
    sink.applyDdl(ddl(910, DdlType.DDL_TYPE_ALTER_TABLE, "ALTER TABLE x ADD PRIMARY KEY (aid)", otherDialect(),
        keyless, keyed), 910);
    sink.apply(List.of(txn(911, keyed, insert(keyed, 0, i(1), i(10)), insert(keyed, 1, i(2), i(20)))), 911);
    sink.apply(List.of(txn(912, keyed, insert(keyed, 0, i(1), i(11)))), 912);   // an upsert by the added key

    assertThat(scalar("SELECT count(*) FROM " + accounts)).isEqualTo(2);
    assertThat(scalar("SELECT abalance FROM " + accounts + " WHERE aid = 1")).isEqualTo(11);
  }

  /**
   * A key that changes upstream (a migration moves the primary key, a replica identity index is set or dropped):
   * a derived copy follows it, a text column becoming the key included, and upserts and deletes by the new key;
   * dropped, the table takes rows as a keyless one. Each derived ALTER replayed after a crash is harmless.
   */
  @Test
  void aDerivedCopyFollowsAKeyChangeAndAppliesRowsByTheNewKey() throws Exception {
    TableInfo byId = TableInfo.newBuilder().setTableId(903).setSchemaName("public").setTableName("members")
        .setVersion(1000).addColumns(col("id", "bigint", ValueKind.VALUE_KIND_INT64, false))
        .addColumns(col("email", "text", ValueKind.VALUE_KIND_STRING, false))
        .addColumns(col("name", "text", ValueKind.VALUE_KIND_STRING, true)).addPrimaryKey("id").build();
    TableInfo byEmail = byId.toBuilder().setVersion(1010).clearPrimaryKey().addPrimaryKey("email").build();
    TableInfo keyless = byId.toBuilder().setVersion(1020).clearPrimaryKey().build();
    String members = config().dialect().qualified(schema, "members");
    sink.applyDdl(ddl(1000, DdlType.DDL_TYPE_CREATE_TABLE, "", "", TableInfo.getDefaultInstance(), byId), 1000);
    sink.apply(List.of(txn(1001, byId, insert(byId, 0, i(1), s("a@x"), s("A")), insert(byId, 1, i(2), s("b@x"),
        s("B")))), 1001);

    var rekey = ddl(1010, DdlType.DDL_TYPE_ALTER_TABLE, "ALTER TABLE members DROP CONSTRAINT members_pkey, ADD"
        + " PRIMARY KEY (email)", otherDialect(), byId, byEmail);
    sink.applyDdl(rekey, 1010);
    sink.apply(List.of(txn(1011, byEmail, insert(byEmail, 0, i(3), s("a@x"), s("A2")),   // an upsert by email
        delete(byEmail, 1, nul(), s("b@x"), nul()))), 1011);
    assertThat(scalar("SELECT count(*) FROM " + members)).isEqualTo(1);
    assertThat(scalar("SELECT id FROM " + members + " WHERE email = 'a@x'")).isEqualTo(3);
    for (String replayed : new DdlTranslator(config().dialect()).derive(rekey, members, schema, "")) {
      exec(replayed);   // the crash: the ALTER reached the target, its checkpoint did not
    }

    sink.applyDdl(ddl(1020, DdlType.DDL_TYPE_ALTER_TABLE, "ALTER TABLE members DROP CONSTRAINT members_pkey",
        otherDialect(), byEmail, keyless), 1020);
    sink.apply(List.of(txn(1021, keyless, insert(keyless, 0, i(4), s("a@x"), s("again")))), 1021);
    assertThat(scalar("SELECT count(*) FROM " + members + " WHERE email = 'a@x'")).isEqualTo(2);   // no key: appended
    assertThat(storedCheckpoint()).isEqualTo(1021);
  }

  /** A keyless table keyed later by a text column: the column takes the key-sized type where the target needs one. */
  @Test
  void aTextColumnThatBecomesTheKeyOfAKeylessTableTakesRowsByIt() throws Exception {
    TableInfo keyless = TableInfo.newBuilder().setTableId(904).setSchemaName("public").setTableName("skus")
        .setVersion(900).addColumns(col("code", "text", ValueKind.VALUE_KIND_STRING, false))
        .addColumns(col("qty", "bigint", ValueKind.VALUE_KIND_INT64, true)).build();
    TableInfo keyed = keyless.toBuilder().setVersion(910).addPrimaryKey("code").build();
    sink.applyDdl(ddl(900, DdlType.DDL_TYPE_CREATE_TABLE, "", "", TableInfo.getDefaultInstance(), keyless), 900);
    sink.applyDdl(ddl(910, DdlType.DDL_TYPE_ALTER_TABLE, "ALTER TABLE skus ADD PRIMARY KEY (code)", otherDialect(),
        keyless, keyed), 910);
    sink.apply(List.of(txn(911, keyed, insert(keyed, 0, s("A-1"), i(1)))), 911);
    sink.apply(List.of(txn(912, keyed, insert(keyed, 0, s("A-1"), i(2)))), 912);   // an upsert by the text key

    String skus = config().dialect().qualified(schema, "skus");
    assertThat(scalar("SELECT count(*) FROM " + skus)).isEqualTo(1);
    assertThat(scalar("SELECT qty FROM " + skus + " WHERE code = 'A-1'")).isEqualTo(2);
  }

  /** Started after its CREATE: the keyless table is created as it was before the ALTER that keys it. */
  @Test
  void aKeylessTableAlteredBeforeItsFirstRowIsCreatedThenKeyed() throws Exception {
    TableInfo keyless = TableInfo.newBuilder().setTableId(902).setSchemaName("public").setTableName("tellers")
        .setVersion(900).addColumns(col("tid", "bigint", ValueKind.VALUE_KIND_INT64, false)).build();
    TableInfo keyed = keyless.toBuilder().setVersion(920).addPrimaryKey("tid").build();
    sink.applyDdl(ddl(920, DdlType.DDL_TYPE_ALTER_TABLE, "ALTER TABLE public.tellers ADD PRIMARY KEY (tid)",
        config().dialect().wireName(), keyless, keyed), 920);
    sink.apply(List.of(txn(921, keyed, insert(keyed, 0, i(5)))), 921);

    assertThat(scalar("SELECT count(*) FROM " + config().dialect().qualified(schema, "tellers"))).isEqualTo(1);
  }

  @Test
  void ddlOfTheOtherDialectIsDerivedFromTheTableInfo() throws Exception {
    sink.apply(List.of(ins(101, 1, "a")), 101);
    sink.applyDdl(ddl(500, DdlType.DDL_TYPE_ADD_COLUMN, "ALTER TABLE x ADD qty bigint", otherDialect(),
        ORDERS, ORDERS_WITH_QTY), 500);
    TableInfo renamed = ORDERS_WITH_QTY.toBuilder().setVersion(600).setColumns(3,
        col("quantity", "bigint", ValueKind.VALUE_KIND_INT64, true)).build();
    sink.applyDdl(ddl(600, DdlType.DDL_TYPE_RENAME_COLUMN, "", "", ORDERS_WITH_QTY, renamed), 600);
    sink.apply(List.of(txn(601, renamed, insert(renamed, 0, i(2), s("b"), nul(), i(9)))), 601);
    assertThat(scalar("SELECT quantity FROM " + orders() + " WHERE id = 2")).isEqualTo(9);

    TableInfo dropped = renamed.toBuilder().setVersion(700).removeColumns(2).build();
    sink.applyDdl(ddl(700, DdlType.DDL_TYPE_DROP_COLUMN, "", "", renamed, dropped), 700);
    sink.applyDdl(ddl(800, DdlType.DDL_TYPE_TRUNCATE_TABLE, "", otherDialect(), dropped, dropped), 800);
    assertThat(scalar("SELECT count(*) FROM " + orders())).isZero();
    TableInfo created = TableInfo.newBuilder().setTableId(900).setSchemaName("public").setTableName("items")
        .addColumns(col("sku", "varchar(20)", ValueKind.VALUE_KIND_STRING, false)).addPrimaryKey("sku").build();
    sink.applyDdl(ddl(900, DdlType.DDL_TYPE_CREATE_TABLE, "", "", TableInfo.getDefaultInstance(), created), 900);
    sink.apply(List.of(txn(901, created, insert(created, 0, s("A-1")))), 901);
    assertThat(scalar("SELECT count(*) FROM " + config().dialect().qualified(schema, "items"))).isEqualTo(1);
  }

  /** Found by the real-schemas test: MySQL gave the rows a table had a NOT NULL column's 0, not its default. */
  @Test
  void aDerivedAddColumnGivesTheRowsTheTableHasItsConstantDefault() throws Exception {
    sink.apply(List.of(ins(101, 1, "a")), 101);
    TableInfo withStock = ORDERS.toBuilder().setVersion(500).addColumns(col("stock", "integer",
        ValueKind.VALUE_KIND_INT64, false).toBuilder().setHasDefault(true).setDefaultExpr("10")).build();
    sink.applyDdl(ddl(500, DdlType.DDL_TYPE_ADD_COLUMN, "ALTER TABLE x ADD stock int NOT NULL DEFAULT 10",
        otherDialect(), ORDERS, withStock), 500);
    assertThat(scalar("SELECT stock FROM " + orders() + " WHERE id = 1")).isEqualTo(10);
  }

  /**
   * Issue #16 (7): ADD COLUMN, UPDATE, SET NOT NULL in one upstream transaction, sent as one
   * multi-statement string: applied in that order (not every DDL first, which failed with "column
   * first_name contains null values"), the text never run again (its UPDATE would write 'REPLAYED'),
   * each step's place kept exactly, and a replay of the whole transaction (a restart from an older
   * checkpoint, or a DDL that reached MySQL/MariaDB before its checkpoint) is harmless.
   */
  @Test
  void aMigrationInOneTransactionIsAppliedInItsStatementOrder() throws Exception {
    TableInfo v1 = TableInfo.newBuilder().setTableId(30000).setSchemaName("public").setTableName("person")
        .setVersion(100).addColumns(col("id", "bigint", ValueKind.VALUE_KIND_INT64, false))
        .addColumns(col("name", "text", ValueKind.VALUE_KIND_STRING, true)).addPrimaryKey("id").build();
    TableInfo v2 = v1.toBuilder().setVersion(200).setVersionRowSeq(0)
        .addColumns(col("first_name", "text", ValueKind.VALUE_KIND_STRING, true)).build();
    TableInfo v3 = v2.toBuilder().setVersionRowSeq(3).setColumns(2, v2.getColumns(2).toBuilder().setNullable(false))
        .build();
    String text = "ALTER TABLE public.person ADD COLUMN first_name text; UPDATE public.person SET first_name = "
        + "'REPLAYED'; ALTER TABLE public.person ALTER first_name SET NOT NULL";
    dev.sluice.dispatcher.DdlChange add = new dev.sluice.dispatcher.DdlChange(200, DdlType.DDL_TYPE_ADD_COLUMN, text,
        "postgresql", v1, v2, 0, List.of());
    dev.sluice.dispatcher.DdlChange notNull = new dev.sluice.dispatcher.DdlChange(200, DdlType.DDL_TYPE_ALTER_TABLE,
        text, "postgresql", v2, v3, 3, List.of());
    Transaction before = txn(101, v1, insert(v1, 0, i(1), s("ann lee")), insert(v1, 1, i(2), s("bo yu")));
    Transaction backfill = new Transaction(200, 0, v2, List.of(update(v2, 1, List.of(), i(1), s("ann lee"), s("ann")),
        update(v2, 2, List.of(), i(2), s("bo yu"), s("bo"))), false, false);
    Transaction end = new Transaction(200, 0, v3, List.of(), false, true);

    sink.apply(List.of(before), 101);
    sink.applyDdl(add, 101);
    sink.apply(List.of(backfill), 101);
    assertThat(sink.checkpoint().forTable(30000)).isEqualTo(Checkpoint.inside(200, 3));
    sink.applyDdl(notNull, 101);
    assertThat(sink.checkpoint().forTable(30000)).isEqualTo(Checkpoint.inside(200, 4));
    sink.apply(List.of(end), 200);

    String person = config().dialect().qualified(schema, "person");
    assertThat(firstNames(person)).containsExactly("1:ann", "2:bo");
    assertThatThrownBy(() -> exec("INSERT INTO " + person + " (id, name) VALUES (3, 'no first name')"))
        .as("first_name is NOT NULL in the target too").isInstanceOf(SQLException.class);
    assertThat(sink.checkpoint().forTable(30000)).isEqualTo(Checkpoint.at(200));

    sink.close();
    sink = JdbcUpsertSink.open(config());
    sink.apply(List.of(before), 101);
    sink.applyDdl(add, 200);
    sink.apply(List.of(backfill), 200);
    sink.applyDdl(notNull, 200);
    sink.apply(List.of(end), 200);
    assertThat(firstNames(person)).containsExactly("1:ann", "2:bo");
    assertThat(storedCheckpoint()).isEqualTo(200);
  }

  /** A DDL that reached the target before its checkpoint (MySQL/MariaDB commit DDL at once) runs again harmlessly. */
  @Test
  void aDerivedDdlThatReachedTheTargetBeforeItsCheckpointIsHarmlessAgain() throws Exception {
    TableInfo v1 = TableInfo.newBuilder().setTableId(30001).setSchemaName("public").setTableName("people")
        .setVersion(100).addColumns(col("id", "bigint", ValueKind.VALUE_KIND_INT64, false)).addPrimaryKey("id").build();
    TableInfo v2 = v1.toBuilder().setVersion(200).addColumns(col("nick", "text", ValueKind.VALUE_KIND_STRING, true))
        .build();
    TableInfo v3 = v2.toBuilder().setVersionRowSeq(2).setColumns(1, v2.getColumns(1).toBuilder().setNullable(false))
        .build();
    sink.apply(List.of(txn(101, v1, insert(v1, 0, i(1)))), 101);
    dev.sluice.dispatcher.DdlChange add = new dev.sluice.dispatcher.DdlChange(200, DdlType.DDL_TYPE_ADD_COLUMN, "",
        "", v1, v2, 0, List.of());
    dev.sluice.dispatcher.DdlChange notNull = new dev.sluice.dispatcher.DdlChange(200, DdlType.DDL_TYPE_ALTER_TABLE,
        "", "", v2, v3, 2, List.of());
    sink.applyDdl(add, 101);
    sink.apply(List.of(new Transaction(200, 0, v2, List.of(update(v2, 1, List.of(), i(1), s("x"))), false, false)), 101);
    String people = config().dialect().qualified(schema, "people");
    // the crash: SET NOT NULL ran on the target, its checkpoint did not
    exec(config().dialect().setNullable(people, v3.getColumns(1), config().dialect().columnType(v3.getColumns(1), false)));

    sink.applyDdl(notNull, 101);
    sink.apply(List.of(new Transaction(200, 0, v3, List.of(), false, true)), 200);
    assertThat(scalar("SELECT count(*) FROM " + people + " WHERE nick = 'x'")).isEqualTo(1);
    assertThat(sink.checkpoint().forTable(30001)).isEqualTo(Checkpoint.at(200));
  }

  private List<String> firstNames(String table) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = connect(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT id, first_name FROM " + table + " ORDER BY id")) {
      while (rs.next()) {
        out.add(rs.getLong(1) + ":" + rs.getString(2));
      }
    }
    return out;
  }


  @Test
  void anUnsupportedDdlStopsWithAnErrorNamingItUnlessConfiguredAsSkipped() throws Exception {
    sink.apply(List.of(ins(101, 1, "a")), 101);
    var policy = ddl(500, DdlType.DDL_TYPE_OTHER, "CREATE POLICY p ON orders USING (true)", otherDialect(),
        ORDERS, ORDERS.toBuilder().setVersion(500).build());

    assertThatThrownBy(() -> sink.applyDdl(policy, 500)).isInstanceOf(UnsupportedDdlException.class)
        .hasMessageContaining("public.orders").hasMessageContaining("500").hasMessageContaining("CREATE POLICY");
    assertThat(storedCheckpoint()).isEqualTo(101);

    sink.close();
    sink = JdbcUpsertSink.open(config().withSkippedDdlTypes(Set.of(DdlType.DDL_TYPE_OTHER)));
    sink.applyDdl(policy, 500);
    assertThat(sink.checkpoint().tables().get(ORDERS.getTableId()).ddlTs()).isEqualTo(500);
  }

  @Test
  void anIndexOfAnotherDialectIsNothingToADerivedCopyUnlessItMovesTheKeyWhichTheCopyFollows() throws Exception {
    sink.apply(List.of(ins(101, 1, "a")), 101);
    var index = ddl(500, DdlType.DDL_TYPE_CREATE_INDEX, "CREATE UNIQUE INDEX i ON orders (note)", otherDialect(),
        ORDERS, ORDERS.toBuilder().setVersion(500).build());
    sink.applyDdl(index, 500);
    sink.apply(List.of(ins(501, 2, "b")), 501);
    assertThat(sink.checkpoint().tables().get(ORDERS.getTableId()).ddlTs()).isEqualTo(500);
    assertThat(storedCheckpoint()).isEqualTo(501);

    // the index that keyed the table upstream (its replica identity) is dropped: the key moves, and so does the copy's
    TableInfo byNote = ORDERS.toBuilder().setVersion(600).clearPrimaryKey().addPrimaryKey("note").build();
    sink.applyDdl(ddl(600, DdlType.DDL_TYPE_DROP_INDEX, "DROP INDEX i", otherDialect(),
        ORDERS.toBuilder().setVersion(500).build(), byNote), 600);
    sink.apply(List.of(txn(601, byNote, insert(byNote, 0, i(3), s("b"), nul()))), 601);   // an upsert by note
    assertThat(rows()).containsExactly("1:a:null", "3:b:null");
  }
}
