package dev.sluice.testing.containers;

import java.util.regex.Pattern;
import org.testcontainers.containers.Network;

/**
 * MariaDB 10.11 of the image {@code it/docker/mariadb}: binlog in ROW format with full row images and
 * metadata (a CDC reader's needs), {@code root} with {@link #PASSWORD} from the network.
 *
 * <pre>{@code
 * try (Network net = Network.newNetwork(); MariaDbContainer db = new MariaDbContainer(net, "sink")) {
 *   db.start();
 *   DriverManager.getConnection(db.jdbcUrl("app"), MariaDbContainer.USER, MariaDbContainer.PASSWORD);
 * }
 * }</pre>
 */
public final class MariaDbContainer extends LocalContainer<MariaDbContainer> {

  public static final int PORT = 3306;
  public static final String USER = "root";
  /** Test data only; set by the image's sluice-init.sql. */
  public static final String PASSWORD = "sluice-test";

  private static final Pattern READY = Pattern.compile("mariadbd: ready for connections");

  public MariaDbContainer(Network network, String alias) {
    super(TestImage.of("mariadb"), network, alias, READY);
    publish(PORT);
  }

  /** Through the published port on 127.0.0.1; {@code database} may be empty. */
  public String jdbcUrl(String database) {
    return "jdbc:mariadb://" + hostAddress(PORT) + "/" + database;
  }

  /** Through the network, for the containers on it. */
  public String networkJdbcUrl(String database) {
    return "jdbc:mariadb://" + networkAddress(PORT) + "/" + database;
  }
}
