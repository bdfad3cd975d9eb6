package dev.sluice.dispatcher.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.servers.MariaDbServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link MariaDbSinkContract} against a MariaDB server process started by the test ({@link MariaDbServer}). */
class JdbcUpsertSinkMariaDbTest extends MariaDbSinkContract {

  private static MariaDbServer mariadb;

  @BeforeAll
  static void startMariaDb() throws Exception {
    mariadb = MariaDbServer.start();
  }

  @AfterAll
  static void stopMariaDb() {
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

  /** The contract above runs against the MariaDB the test started, with its binlog off (mariadbd --skip-log-bin). */
  @Test
  void theTargetIsTheLocalMariaDbServer() throws SQLException {
    try (Connection c = connect(); ResultSet rs = c.createStatement().executeQuery("SELECT VERSION(), @@log_bin")) {
      rs.next();
      assertThat(rs.getString(1)).containsIgnoringCase("mariadb");
      assertThat(rs.getInt(2)).isZero();
    }
  }
}
