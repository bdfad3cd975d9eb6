package dev.sluice.dispatcher.sink;

import static dev.sluice.dispatcher.sink.SinkFixtures.ins;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.testing.servers.MariaDbServer;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The MySQL-family sink URL forms the docs show, against a real MariaDB ({@link MariaDbServer}) and a user
 * that may only use its own database: {@code jdbc:mysql://} used to fail with "No suitable driver", and a
 * table without {@code target_schema} used to go to a database named after the PostgreSQL schema.
 */
class JdbcTargetMariaDbTest {

  private static final String PASSWORD = "hunter22-app";
  private static MariaDbServer mariadb;
  private static int port;

  @BeforeAll
  static void startMariaDb() throws Exception {
    mariadb = MariaDbServer.start();
    port = Integer.parseInt(mariadb.jdbcUrl().replaceAll(".*:(\\d+)/.*", "$1"));
    try (Connection c = mariadb.connect(); Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE warehouse");
      st.execute("CREATE USER 'app'@'127.0.0.1' IDENTIFIED BY '" + PASSWORD + "'");
      st.execute("GRANT ALL ON warehouse.* TO 'app'@'127.0.0.1'");   // and nothing else: no CREATE DATABASE
    }
  }

  @AfterAll
  static void stopMariaDb() {
    if (mariadb != null) {
      mariadb.close();
    }
  }

  private static String url(String scheme, String database) {
    return "jdbc:" + scheme + "://127.0.0.1:" + port + "/" + database + "?user=app&password=" + PASSWORD;
  }

  @ParameterizedTest(name = "jdbc:{0}://host:port/db?user=u&password=p")
  @ValueSource(strings = {"mysql", "mariadb"})
  void aUrlOfEachDocumentedFormWritesIntoTheUrlsDatabase(String scheme) throws Exception {
    String changefeed = "cf-" + scheme + "-" + UUID.randomUUID().toString().substring(0, 6);
    assertThat(JdbcTarget.check(url(scheme, "warehouse"), null, null, Duration.ofSeconds(10))).isEqualTo("warehouse");
    try (JdbcUpsertSink sink = JdbcUpsertSink.open(JdbcSinkConfig.of(url(scheme, "warehouse"), null, null,
        changefeed))) {
      // public.orders, no target_schema: the rows go to warehouse.orders
      sink.apply(List.of(ins(101, 1, scheme), ins(102, 2, scheme + "-2")), 102);
    }
    assertThat(rows("SELECT id, note FROM warehouse.orders WHERE note LIKE '" + scheme + "%' ORDER BY id"))
        .containsExactly("1:" + scheme, "2:" + scheme + "-2");
    assertThat(rows("SELECT checkpoint_ts FROM warehouse.sluice_checkpoint WHERE changefeed_id = '" + changefeed
        + "'")).containsExactly("102");
    assertThat(rows("SELECT schema_name FROM information_schema.schemata WHERE schema_name = 'public'")).isEmpty();
    try (JdbcUpsertSink reopened = JdbcUpsertSink.open(JdbcSinkConfig.of(url(scheme, "warehouse"), null, null,
        changefeed))) {
      assertThat(reopened.checkpoint().checkpointTs()).isEqualTo(102);
    }
  }

  @Test
  void credentialsInTheAuthorityAreGivenToTheDriverAsProperties() throws Exception {
    String url = "jdbc:mysql://app:" + PASSWORD + "@127.0.0.1:" + port + "/warehouse";
    assertThat(JdbcTarget.driverUrl(url)).isEqualTo("jdbc:mariadb://127.0.0.1:" + port + "/warehouse");
    assertThat(JdbcTarget.check(url, null, null, Duration.ofSeconds(10))).isEqualTo("warehouse");
    try (JdbcUpsertSink sink = JdbcUpsertSink.open(JdbcSinkConfig.of(url, null, null, "cf-authority"))) {
      sink.apply(List.of(ins(301, 30, "authority")), 301);
    }
    assertThat(rows("SELECT note FROM warehouse.orders WHERE id = 30")).containsExactly("authority");
    String wrong = "jdbc:mysql://app:wrong-" + PASSWORD + "@127.0.0.1:" + port + "/warehouse";
    assertThatThrownBy(() -> JdbcTarget.check(wrong, null, null, Duration.ofSeconds(10)))
        .hasMessageContaining("Access denied").hasMessageNotContaining("wrong-" + PASSWORD);
  }

  @Test
  void aTargetSchemaStillNamesTheDatabase() throws Exception {
    try (Connection c = mariadb.connect(); Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE IF NOT EXISTS replica");
      st.execute("GRANT ALL ON replica.* TO 'app'@'127.0.0.1'");
    }
    try (JdbcUpsertSink sink = JdbcUpsertSink.open(JdbcSinkConfig.of(url("mysql", "warehouse"), null, null, "cf-ts")
        .withTargetSchema("replica"))) {
      sink.apply(List.of(ins(201, 7, "replica")), 201);
    }
    assertThat(rows("SELECT id FROM replica.orders")).containsExactly("7");
  }

  @Test
  void theCheckSaysWhatIsWrongWithoutThePassword() throws Exception {
    String badPassword = url("mysql", "warehouse").replace(PASSWORD, "wrong-hunter22");
    assertThatThrownBy(() -> JdbcTarget.check(badPassword, null, null, Duration.ofSeconds(10)))
        .isInstanceOf(SQLException.class).hasMessageContaining("Access denied for user 'app'")
        .hasMessageNotContaining("wrong-hunter22");
    assertThatThrownBy(() -> JdbcTarget.check(url("mariadb", "nosuchdb"), null, null, Duration.ofSeconds(10)))
        .isInstanceOf(SQLException.class).hasMessageContaining("nosuchdb").hasMessageNotContaining(PASSWORD);
    assertThatThrownBy(() -> JdbcTarget.check("jdbc:mariadb://127.0.0.1:" + port + "/?user=root", null, null,
        Duration.ofSeconds(10))).isInstanceOf(SQLException.class).hasMessageContaining("names no database");
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    String unreachable = "jdbc:mysql://127.0.0.1:" + closed + "/warehouse?user=app&password=" + PASSWORD;
    assertThatThrownBy(() -> JdbcTarget.check(unreachable, null, null, Duration.ofSeconds(5)))
        .isInstanceOf(SQLException.class).hasMessageNotContaining(PASSWORD);
  }

  private static List<String> rows(String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = mariadb.connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> cols = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          cols.add(rs.getString(i));
        }
        out.add(String.join(":", cols));
      }
    }
    return out;
  }
}
