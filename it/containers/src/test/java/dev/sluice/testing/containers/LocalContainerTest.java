package dev.sluice.testing.containers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.dockerjava.api.model.Ports;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.Network;

/**
 * The rules every test container keeps, checked on the PostgreSQL image (the quickest to start): local
 * images only, the test's network only, published ports on 127.0.0.1 only, a start failure that carries
 * the server's own error, and a partition that {@code cutOff}/{@code heal} make and mend.
 */
class LocalContainerTest {

  /** The PostgreSQL image with its port at a fixed host port, as a cluster node publishes its ports. */
  static final class FixedPortPostgres extends LocalContainer<FixedPortPostgres> {
    FixedPortPostgres(Network network, String alias) {
      super(TestImage.of("postgres"), network, alias, Pattern.compile("ready to accept connections"));
      publishAtFixedPort(PostgresContainer.PORT);
    }
  }

  @Test
  void aContainerIsOnTheTestsNetworkOnlyAndPublishesOnLoopbackOnly() throws Exception {
    try (Network net = Network.newNetwork(); PostgresContainer pg = new PostgresContainer(net, "upstream")) {
      pg.start();
      var settings = pg.getContainerInfo().getNetworkSettings();
      String networkName = pg.getDockerClient().inspectNetworkCmd().withNetworkId(net.getId()).exec().getName();
      assertThat(settings.getNetworks()).containsOnlyKeys(networkName);
      assertThat(settings.getNetworks().get(networkName).getAliases()).contains("upstream");
      Map<com.github.dockerjava.api.model.ExposedPort, Ports.Binding[]> bindings = settings.getPorts().getBindings();
      assertThat(bindings).isNotEmpty();
      assertThat(bindings.values()).allSatisfy(b -> assertThat(b).extracting(Ports.Binding::getHostIp)
          .containsOnly(LocalContainer.LOOPBACK));
      try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), PostgresContainer.USER, null)) {
        assertThat(c.isValid(5)).isTrue();
      }
    }
  }

  @Test
  void aServerThatExitsFailsTheStartAtOnceWithItsOwnError() {
    try (Network net = Network.newNetwork();
         PostgresContainer pg = new PostgresContainer(net, "broken").withSetting("wal_level", "bogus")) {
      long started = System.nanoTime();
      assertThatThrownBy(pg::start).isInstanceOf(ContainerStartException.class)
          .hasMessageContaining("(broken) exited before it printed a line matching")
          .hasMessageContaining("invalid value for parameter \"wal_level\": \"bogus\"");
      // the wait ends with the server, not at the 2 minute start timeout
      assertThat((System.nanoTime() - started) / 1_000_000_000).isLessThan(60);
    }
  }

  /** A server that fails at once: it exits before Testcontainers' own startup checks end. */
  static final class InstantExit extends LocalContainer<InstantExit> {
    InstantExit(Network network) {
      super(TestImage.of("postgres"), network, "instant", Pattern.compile("ready to accept connections"));
      withCreateContainerCmdModifier(cmd -> cmd.withEntrypoint("sh", "-c", "echo 'FATAL: no config here' >&2; exit 3"));
      publish(PostgresContainer.PORT);
    }
  }

  @Test
  void aServerThatExitsAtOnceStillReportsItsOwnErrorAndExitCode() {
    try (Network net = Network.newNetwork(); InstantExit server = new InstantExit(net)) {
      assertThatThrownBy(server::start).isInstanceOf(ContainerStartException.class)
          .hasMessageContaining("(instant) exited before it printed a line matching")
          .hasMessageContaining("(exit code 3)")
          .hasMessageContaining("FATAL: no config here");
    }
  }

  @Test
  void aMissingImageFailsAtOnceWithTheCommandThatBuildsIt(@TempDir Path parent) throws Exception {
    Path dir = Files.createDirectory(parent.resolve("never-built"));
    Files.writeString(dir.resolve("Dockerfile"), "FROM " + TestImage.BASE_IMAGE + "\n# " + UUID.randomUUID() + "\n",
        StandardCharsets.UTF_8);
    TestImage image = TestImage.at(dir);
    assertThat(image.tag()).isEqualTo("sluice-test/never-built:" + ContentHash.of(dir));
    assertThatThrownBy(image::requireBuilt).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the test image " + image.tag() + " is not built (the tests never pull images)")
        .hasMessageContaining("scripts/install-test-deps.sh")
        .hasMessageContaining("docker build -t " + image.tag() + " " + dir.toAbsolutePath());
  }

  @Test
  void aCutOffContainerIsUnreachableUntilHealedAndKeepsItsAliasAndHostPort() throws Exception {
    try (Network net = Network.newNetwork(); FixedPortPostgres server = new FixedPortPostgres(net, "server");
         PostgresContainer peer = new PostgresContainer(net, "peer")) {
      server.start();
      peer.start();
      int hostPort = server.hostPort(PostgresContainer.PORT);
      assertThat(reachableFromPeer(peer)).isTrue();
      assertThat(reachableFromHost(hostPort)).isTrue();

      server.cutOff();
      assertThat(reachableFromPeer(peer)).isFalse();
      assertThat(reachableFromHost(hostPort)).isFalse();

      server.heal();
      assertThat(server.hostPort(PostgresContainer.PORT)).isEqualTo(hostPort);
      assertThat(reachableFromPeer(peer)).isTrue();
      assertThat(reachableFromHost(hostPort)).isTrue();
    }
  }

  private static boolean reachableFromPeer(PostgresContainer peer) throws Exception {
    ExecResult r = peer.execInContainer("psql", "-Atc", "SELECT 1", "host=server connect_timeout=3 user=postgres");
    return r.getExitCode() == 0 && r.getStdout().trim().equals("1");
  }

  private static boolean reachableFromHost(int port) {
    try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres?connectTimeout=3",
        PostgresContainer.USER, null)) {
      return c.isValid(3);
    } catch (SQLException e) {
      return false;
    }
  }
}
