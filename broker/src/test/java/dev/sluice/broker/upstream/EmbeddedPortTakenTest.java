package dev.sluice.broker.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.broker.Broker;
import dev.sluice.broker.BrokerConfig;
import dev.sluice.broker.capture.TestPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded PostgreSQL's port held by another PostgreSQL (or any other process) is reported as
 * such, naming the port and {@code --embedded-port}, instead of "started" followed by a failure to
 * create the demo schema in a database that is not its own.
 */
class EmbeddedPortTakenTest {

  @TempDir
  Path dir;

  @Test
  void aPortAnsweredByAnotherPostgresIsNamedBeforeTheEmbeddedOneStarts() {
    try (TestPostgres other = TestPostgres.start(Map.of())) {
      int port = other.port();
      assertThatThrownBy(() -> EmbeddedUpstream.start(dir.resolve("upstream"), port))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("port " + port + " on 127.0.0.1 (upstream.embeddedPort) is already answered by another"
              + " PostgreSQL server, not the embedded one of this broker")
          .hasMessageContaining("--embedded-port");
      BrokerConfig c = BrokerConfig.embedded("node-e", dir.resolve("data"));
      c = new BrokerConfig(c.nodeId(), c.dataDir(), UpstreamConfig.embedded(c.dataDir().resolve("upstream"), port),
          c.capture(), true, c.demo());
      try (Broker b = new Broker(c)) {
        assertThatThrownBy(b::start).hasMessageContaining("already answered by another PostgreSQL server")
            .hasMessageNotContaining("demo schema");
      }
      assertThat(Files.exists(dir.resolve("data/upstream/PG_VERSION"))).as("nothing initialised").isFalse();
    }
  }

  @Test
  void aPortHeldByAnotherProgramIsNamedAsInUse() throws IOException {
    try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = busy.getLocalPort();
      assertThatThrownBy(() -> EmbeddedUpstream.start(dir.resolve("upstream"), port))
          .hasMessageContaining("port " + port + " on 127.0.0.1 (upstream.embeddedPort) is already in use by another"
              + " process").hasMessageContaining("--embedded-port");
    }
  }

  @Test
  void aServerAnsweringThePortThatRunsOnAnotherDirectoryIsNotTakenForOurs() throws IOException {
    try (TestPostgres other = TestPostgres.start(Map.of())) {
      Path ours = Files.createDirectories(dir.resolve("upstream"));
      assertThatThrownBy(() -> EmbeddedPortCheck.requireOwnServer(ours, other.port()))
          .hasMessageContaining("port " + other.port() + " on 127.0.0.1 is answered by another PostgreSQL (data"
              + " directory ").hasMessageContaining("not the embedded one on " + ours)
          .hasMessageContaining("did not stay up").hasMessageContaining("--embedded-port");
    }
  }
}
