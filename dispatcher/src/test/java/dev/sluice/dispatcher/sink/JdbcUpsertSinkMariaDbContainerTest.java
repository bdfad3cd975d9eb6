package dev.sluice.dispatcher.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.containers.MariaDbContainer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.Network;

/**
 * {@link MariaDbSinkContract} against MariaDB 10.11 in a container (image {@code it/docker/mariadb}, binlog
 * on, Debian's server defaults) on a network of the test's, reached as another host through the port it
 * publishes on 127.0.0.1, with a password.
 */
class JdbcUpsertSinkMariaDbContainerTest extends MariaDbSinkContract {

  private static Network network;
  private static MariaDbContainer mariadb;

  @BeforeAll
  static void startMariaDb() throws SQLException {
    network = Network.newNetwork();
    mariadb = new MariaDbContainer(network, "sink-target");
    mariadb.start();
    try (Connection c = DriverManager.getConnection(mariadb.jdbcUrl(""), MariaDbContainer.USER,
        MariaDbContainer.PASSWORD); Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE app");
    }
  }

  @AfterAll
  static void stopMariaDb() {
    try {
      if (mariadb != null) {
        mariadb.close();
      }
    } finally {
      if (network != null) {
        network.close();
      }
    }
  }

  @Override
  String jdbcUrl() {
    return mariadb.jdbcUrl("app");
  }

  @Override
  String user() {
    return MariaDbContainer.USER;
  }

  @Override
  String password() {
    return MariaDbContainer.PASSWORD;
  }

  @Override
  Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), user(), password());
  }

  /** The contract above runs against the image's MariaDB 10.11 with its row-based binlog on, as its Javadoc says. */
  @Test
  void theTargetIsTheContainersMariaDbWithARowBinlog() throws SQLException {
    try (Connection c = connect(); ResultSet rs = c.createStatement().executeQuery(
        "SELECT VERSION(), @@log_bin, @@binlog_format")) {
      rs.next();
      assertThat(rs.getString(1)).startsWith("10.11").containsIgnoringCase("mariadb");
      assertThat(rs.getInt(2)).isEqualTo(1);
      assertThat(rs.getString(3)).isEqualTo("ROW");
    }
  }
}
