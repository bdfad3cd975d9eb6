package dev.sluice.dispatcher.sink;

import static dev.sluice.dispatcher.sink.SinkFixtures.col;
import static dev.sluice.dispatcher.sink.SinkFixtures.ddl;
import static dev.sluice.dispatcher.sink.SinkFixtures.i;
import static dev.sluice.dispatcher.sink.SinkFixtures.insert;
import static dev.sluice.dispatcher.sink.SinkFixtures.s;
import static dev.sluice.dispatcher.sink.SinkFixtures.txn;
import static dev.sluice.dispatcher.sink.SinkFixtures.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.v1.DdlType;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.ValueKind;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue #16, cases 2 and 8, on a real PostgreSQL 17 target: captured CREATEs with identity columns,
 * foreign keys and partitions run as captured, rows go in as the source had them (constraints off for
 * the apply session), and a captured statement whose parent the target lacks falls back to the table's
 * columns.
 */
class PostgresTargetSchemasTest {

  private static EmbeddedPostgres pg;
  private String schema;
  private JdbcUpsertSink sink;

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
  void open() {
    schema = "s_" + UUID.randomUUID().toString().substring(0, 8);
    sink = JdbcUpsertSink.open(config("postgres", "cf-" + schema));
  }

  @AfterEach
  void closeSink() {
    sink.close();
  }

  private JdbcSinkConfig config(String user, String changefeed) {
    return JdbcSinkConfig.of(url(), user, "", changefeed).withTargetSchema(schema);
  }

  private static String url() {
    return "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres";
  }

  private static Connection connect() throws SQLException {
    return DriverManager.getConnection(url(), "postgres", "");
  }

  private static void exec(String... sql) throws SQLException {
    try (Connection c = connect(); Statement st = c.createStatement()) {
      for (String q : sql) {
        st.execute(q);
      }
    }
  }

  private static List<String> rows(String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          b.append(i > 1 ? "|" : "").append(rs.getString(i));
        }
        out.add(b.toString());
      }
    }
    return out;
  }

  private static TableInfo table(long id, String name, String... keyThenColumns) {
    TableInfo.Builder b = TableInfo.newBuilder().setTableId(id).setSchemaName("public").setTableName(name).setVersion(10);
    for (String c : keyThenColumns) {
      b.addColumns(col(c, "bigint", ValueKind.VALUE_KIND_INT64, !c.equals(keyThenColumns[0])));
    }
    return b.addPrimaryKey(keyThenColumns[0]).build();
  }

  private void create(TableInfo t, long ts, String sql) {
    sink.applyDdl(ddl(ts, DdlType.DDL_TYPE_CREATE_TABLE, sql, "postgresql", TableInfo.getDefaultInstance(), t), ts);
  }

  /** Failed before with {@code cannot insert a non-DEFAULT value into column "id"}. */
  @Test
  void identityColumnsTakeTheCapturedValues() throws Exception {
    TableInfo orders = table(1, "orders", "id", "n");
    create(orders, 10, "CREATE TABLE public.orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, n bigint)");
    TableInfo tickets = table(2, "tickets", "code", "seq");
    create(tickets, 11, "CREATE TABLE public.tickets (code bigint PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY)");

    sink.apply(List.of(txn(20, orders, insert(orders, 0, i(7), i(1)), insert(orders, 1, i(9), i(2))),
        txn(20, tickets, insert(tickets, 2, i(1), i(100)))), 20);
    sink.apply(List.of(txn(21, orders, update(orders, 0, List.of(i(7)), i(7), i(5))),
        txn(21, tickets, update(tickets, 1, List.of(i(1)), i(1), i(100)))), 21);

    assertThat(rows("SELECT id, n FROM " + schema + ".orders ORDER BY id")).containsExactly("7|5", "9|2");
    assertThat(rows("SELECT code, seq FROM " + schema + ".tickets")).containsExactly("1|100");
  }

  /** Failed before with {@code relation "...parent" does not exist} and 23503 for child rows first. */
  @Test
  void foreignKeysDoNotJudgeRowsTheSourceAccepted() throws Exception {
    TableInfo parent = table(3, "parent", "id");
    TableInfo child = table(4, "child", "id", "parent_id");
    create(parent, 10, "CREATE TABLE public.parent (id bigint PRIMARY KEY)");
    create(child, 11, "CREATE TABLE public.child (id bigint PRIMARY KEY, parent_id bigint REFERENCES public.parent (id))");
    assertThat(sink.constraintsRelaxed()).isTrue();

    sink.apply(List.of(txn(20, child, insert(child, 0, i(1), i(50)))), 20);   // its parent's stream is behind
    sink.apply(List.of(txn(21, parent, insert(parent, 0, i(50)))), 21);

    assertThat(rows("SELECT id, parent_id FROM " + schema + ".child")).containsExactly("1|50");
    assertThat(rows("SELECT count(*) FROM pg_constraint WHERE conrelid = '" + schema + ".child'::regclass AND contype = 'f'"))
        .containsExactly("1");   // the captured REFERENCES is kept
  }

  @Test
  void withoutTheRoleSettingTheSinkSaysSoAndAnFkFailureNamesIt() throws Exception {
    String user = "app_" + schema;
    exec("CREATE ROLE " + user + " LOGIN", "CREATE SCHEMA " + schema + " AUTHORIZATION " + user,
        "GRANT CREATE ON DATABASE postgres TO " + user, "GRANT CREATE, USAGE ON SCHEMA public TO " + user,
        "GRANT ALL ON sluice_checkpoint, sluice_table_checkpoint, sluice_fence TO " + user);
    TableInfo parent = table(3, "parent", "id");
    TableInfo child = table(4, "child", "id", "parent_id");
    try (JdbcUpsertSink limited = JdbcUpsertSink.open(config(user, "cf-limited-" + schema))) {
      assertThat(limited.constraintsRelaxed()).isFalse();
      limited.applyDdl(ddl(10, DdlType.DDL_TYPE_CREATE_TABLE, "CREATE TABLE public.parent (id bigint PRIMARY KEY)",
          "postgresql", TableInfo.getDefaultInstance(), parent), 10);
      limited.applyDdl(ddl(11, DdlType.DDL_TYPE_CREATE_TABLE, "CREATE TABLE public.child (id bigint PRIMARY KEY, "
          + "parent_id bigint REFERENCES public.parent (id))", "postgresql", TableInfo.getDefaultInstance(), child), 11);
      assertThatThrownBy(() -> limited.apply(List.of(txn(20, child, insert(child, 0, i(1), i(50)))), 20))
          .isInstanceOf(SinkFailedException.class).hasMessageContaining("23503")
          .hasMessageContaining("could not turn foreign key checks off");
    }
  }

  /** A partition's parent that existed before the changefeed started is not partitioned here. */
  @Test
  void partitionsRunAsCapturedAndFallBackToTheirColumnsWithoutTheirParent() throws Exception {
    TableInfo events = table(5, "events", "id", "at").toBuilder().addPrimaryKey("at").build();
    TableInfo y2024 = table(6, "events_2024", "id", "at").toBuilder().addPrimaryKey("at").build();
    create(events, 10, "CREATE TABLE public.events (id bigint, at bigint, PRIMARY KEY (id, at)) PARTITION BY RANGE (at)");
    create(y2024, 11, "CREATE TABLE public.events_2024 PARTITION OF public.events FOR VALUES FROM (0) TO (100)");
    sink.apply(List.of(txn(20, y2024, insert(y2024, 0, i(1), i(5)))), 20);
    assertThat(rows("SELECT id, at FROM " + schema + ".events")).containsExactly("1|5");

    TableInfo orphan = table(7, "logs_2024", "id", "at");
    create(orphan, 12, "CREATE TABLE public.logs_2024 PARTITION OF public.logs FOR VALUES FROM (0) TO (100)");
    sink.apply(List.of(txn(21, orphan, insert(orphan, 0, i(2), i(6)))), 21);
    assertThat(rows("SELECT id, at FROM " + schema + ".logs_2024")).containsExactly("2|6");
  }

  @Test
  void aCheckpointTableOfAnEarlierVersionGetsItsDropColumn() throws Exception {
    sink.close();
    String changefeed = "cf-old-" + schema;
    exec("ALTER TABLE sluice_table_checkpoint DROP COLUMN dropped_ts",
        "INSERT INTO sluice_table_checkpoint VALUES ('" + changefeed + "', 9, 'public.t', 50, 0, 0, 0, now())");
    sink = JdbcUpsertSink.open(config("postgres", changefeed));
    assertThat(sink.checkpoint().tables().get(9L).applied().ts()).isEqualTo(50);
    assertThat(sink.checkpoint().tables().get(9L).dropped()).isFalse();
    sink.markDropped(9, "public.t", 60);
    assertThat(rows("SELECT dropped_ts FROM sluice_table_checkpoint WHERE changefeed_id = '" + changefeed + "'"))
        .containsExactly("60");
  }
}
