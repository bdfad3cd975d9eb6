package dev.sluice.dispatcher.sink;

import dev.sluice.testing.containers.MariaDbContainer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
}
