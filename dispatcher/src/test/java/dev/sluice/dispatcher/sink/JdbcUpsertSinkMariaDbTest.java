package dev.sluice.dispatcher.sink;

import dev.sluice.testing.servers.MariaDbServer;
import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

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
}
