package dev.sluice.testing.containers;

import java.util.Arrays;
import java.util.regex.Pattern;
import org.testcontainers.containers.Network;

/**
 * PostgreSQL 15 of the image {@code it/docker/postgres}: {@code wal_level = logical}, 10 replication slots and
 * WAL senders, user {@code postgres} trusted from the container's networks (no password), database
 * {@code postgres}. The test reaches it at {@link #jdbcUrl()}, the other containers of its network at
 * {@link #networkJdbcUrl()}.
 *
 * <pre>{@code
 * try (Network net = Network.newNetwork(); PostgresContainer pg = new PostgresContainer(net, "upstream")) {
 *   pg.start();
 *   String forTheBroker = pg.networkJdbcUrl();   // jdbc:postgresql://upstream:5432/postgres
 * }
 * }</pre>
 */
public final class PostgresContainer extends LocalContainer<PostgresContainer> {

  public static final int PORT = 5432;
  public static final String USER = "postgres";
  /** The server's major version (Debian bookworm's). */
  public static final int MAJOR = 15;

  private static final Pattern READY = Pattern.compile("database system is ready to accept connections");

  public PostgresContainer(Network network, String alias) {
    super(TestImage.of("postgres"), network, alias, READY);
    publish(PORT);
  }

  /** Through the published port on 127.0.0.1. */
  public String jdbcUrl() {
    return "jdbc:postgresql://" + hostAddress(PORT) + "/postgres";
  }

  /** Through the network, for the containers on it. */
  public String networkJdbcUrl() {
    return "jdbc:postgresql://" + networkAddress(PORT) + "/postgres";
  }

  /** Runs the server with {@code -c name=value} settings over those of the image (e.g. a bad one, in a test). */
  public PostgresContainer withSetting(String name, String value) {
    String[] current = getCommandParts();
    String[] base = current != null && current.length > 0 ? current
        : new String[] {"/usr/lib/postgresql/" + MAJOR + "/bin/postgres", "-D", "/var/lib/postgresql/data"};
    String[] command = Arrays.copyOf(base, base.length + 2);
    command[base.length] = "-c";
    command[base.length + 1] = name + "=" + value;
    return withCommand(command);
  }
}
