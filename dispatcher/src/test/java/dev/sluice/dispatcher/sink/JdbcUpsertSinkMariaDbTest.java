package dev.sluice.dispatcher.sink;

import static dev.sluice.dispatcher.sink.SinkFixtures.ORDERS;
import static dev.sluice.dispatcher.sink.SinkFixtures.col;
import static dev.sluice.dispatcher.sink.SinkFixtures.ddl;
import static dev.sluice.dispatcher.sink.SinkFixtures.ins;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.v1.DdlType;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.ValueKind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link JdbcUpsertSink} against a real MariaDB started by the test ({@link MariaDbServer}). */
class JdbcUpsertSinkMariaDbTest extends JdbcUpsertSinkContract {

  private static MariaDbServer mariadb;

  @BeforeAll
  static void startMariaDb() throws Exception {
    mariadb = MariaDbServer.start();
  }

  @AfterAll
  static void stopMariaDb() throws Exception {
    if (mariadb != null) {
      mariadb.close();
    }
  }

  @Override
  String jdbcUrl() {
    return mariadb.jdbcUrl();
  }

  @Override
  String user() {
    return MariaDbServer.USER;
  }

  @Override
  String password() {
    return MariaDbServer.PASSWORD;
  }

  @Override
  Connection connect() throws SQLException {
    return mariadb.connect();
  }

  @Override
  String targetSchemaPrefix() {
    return "t_";
  }

  @Override
  List<String> countingTriggerSql(String schema) {
    String s = '`' + schema + '`';
    return List.of("CREATE TABLE " + s + ".apply_count (n bigint)", "INSERT INTO " + s + ".apply_count VALUES (0)",
        "CREATE TRIGGER " + s + ".bump_i AFTER INSERT ON " + s + ".orders FOR EACH ROW UPDATE " + s
            + ".apply_count SET n = n + 1",
        "CREATE TRIGGER " + s + ".bump_u AFTER UPDATE ON " + s + ".orders FOR EACH ROW UPDATE " + s
            + ".apply_count SET n = n + 1");
  }

  @Override
  String sameDialectAddQty() {
    return "ALTER TABLE public.orders ADD COLUMN qty bigint";
  }

  @Override
  String otherDialect() {
    return "postgresql";
  }

  @Test
  void aKilledConnectionIsTransientAndTheRetryAppliesTheBatchOnce() throws Exception {
    sink.apply(List.of(ins(101, 1, "a")), 101);
    long sinkConnection;
    try (Connection c = connect(); var st = c.createStatement();
         var rs = st.executeQuery("SELECT ID FROM information_schema.PROCESSLIST WHERE USER = 'root' "
             + "AND COMMAND <> 'Daemon' AND ID <> CONNECTION_ID() ORDER BY ID DESC LIMIT 1")) {
      rs.next();
      sinkConnection = rs.getLong(1);
    }
    exec("KILL CONNECTION " + sinkConnection);
    List<dev.sluice.dispatcher.Transaction> batch = List.of(ins(102, 2, "b"), ins(103, 3, "c"));

    assertThatThrownBy(() -> sink.apply(batch, 103)).isInstanceOf(SinkUnavailableException.class);
    assertThat(rows()).containsExactly("1:a:null");

    sink.apply(batch, 103);
    assertThat(rows()).containsExactly("1:a:null", "2:b:null", "3:c:null");
    assertThat(storedCheckpoint()).isEqualTo(103);
  }

  /** The sink creates its tables binary and NO PAD; columns it adds or retypes later inherit that. */
  @Test
  void everyTextColumnOfTheTablesTheSinkCreatesComparesExactly() throws Exception {
    sink.apply(List.of(ins(101, 1, "a")), 101);
    TableInfo tagged = ORDERS.toBuilder().setVersion(500)
        .addColumns(col("tag", "text", ValueKind.VALUE_KIND_STRING, true)).build();
    TableInfo wider = tagged.toBuilder().setVersion(600)
        .setColumns(1, col("note", "character varying(200)", ValueKind.VALUE_KIND_STRING, true)).build();
    sink.applyDdl(ddl(500, DdlType.DDL_TYPE_ADD_COLUMN, "", otherDialect(), ORDERS, tagged), 500);
    sink.applyDdl(ddl(600, DdlType.DDL_TYPE_ALTER_COLUMN_TYPE, "", otherDialect(), tagged, wider), 600);

    List<String> collations = new ArrayList<>();
    try (Connection c = connect(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT CONCAT(TABLE_NAME, '.', COLUMN_NAME, ' ', COLLATION_NAME) "
             + "FROM information_schema.COLUMNS WHERE COLLATION_NAME IS NOT NULL AND (TABLE_SCHEMA = '" + schema
             + "' OR TABLE_NAME LIKE 'sluice%') ORDER BY 1")) {
      while (rs.next()) {
        collations.add(rs.getString(1));
      }
    }
    assertThat(collations).containsExactly("orders.big utf8mb4_nopad_bin", "orders.note utf8mb4_nopad_bin",
        "orders.tag utf8mb4_nopad_bin", "sluice_checkpoint.changefeed_id utf8mb4_nopad_bin",
        "sluice_table_checkpoint.changefeed_id utf8mb4_nopad_bin",
        "sluice_table_checkpoint.table_name utf8mb4_nopad_bin");
  }
}
