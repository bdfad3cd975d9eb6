package dev.sluice.dispatcher.sink;

import static dev.sluice.dispatcher.sink.SinkFixtures.ins;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
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
}
