package dev.sluice.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code sluice server} options map onto the typed configuration; bad input is refused before anything starts. */
class ServerCommandTest {

  private static ServerCommand parse(String... args) {
    ServerCommand cmd = new ServerCommand();
    new CommandLine(cmd).parseArgs(args);
    return cmd;
  }

  @Test
  void noUpstreamMeansTheEmbeddedOneUnderTheDataDir() {
    BrokerConfig c = parse("--data-dir", "/tmp/x", "--demo-workload").config();
    assertThat(c.upstream().isEmbedded()).isTrue();
    assertThat(c.upstream().embeddedDataDir()).isEqualTo(Path.of("/tmp/x/upstream"));
    assertThat(c.upstream().embeddedPort()).isEqualTo(8302);
    assertThat(c.nodeId()).isEqualTo("node-1");
    assertThat(c.capture().slotName()).isEqualTo("sluice_node_1");
    assertThat(c.capture().heartbeatInterval()).isEqualTo(Duration.ofMillis(200));
    assertThat(c.demoWorkload()).isTrue();
    assertThat(c.eventsDir()).isEqualTo(Path.of("/tmp/x/events"));
  }

  @Test
  void externalUpstreamTakesItsCredentialsSlotPublicationAndHeartbeat() {
    BrokerConfig c = parse("--upstream", "jdbc:postgresql://db:5432/app?sslmode=disable", "--upstream-user", "sluice",
        "--upstream-password", "pw", "--slot", "my_slot", "--publication", "my_pub", "--heartbeat-interval", "PT1S",
        "--node-id", "b2").config();
    assertThat(c.upstream().jdbcUrl()).isEqualTo("jdbc:postgresql://db:5432/app?sslmode=disable");
    assertThat(c.upstream().displayUrl()).isEqualTo("jdbc:postgresql://db:5432/app");
    assertThat(c.upstream().user()).isEqualTo("sluice");
    assertThat(c.upstream().toString()).doesNotContain("pw");
    assertThat(c.capture().slotName()).isEqualTo("my_slot");
    assertThat(c.capture().publicationName()).isEqualTo("my_pub");
    assertThat(c.capture().heartbeatInterval()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void advertisedAddressesMapOntoTheServeConfig() {
    ServeConfig s = parse("--bind", "0.0.0.0", "--grpc-port", "9300", "--advertise-address", "b1.example:19300",
        "--advertise-admin-address", "[fd00::1]:19301").config().serve();
    assertThat(s.bindHost()).isEqualTo("0.0.0.0");
    assertThat(s.announcedGrpcAddress(9300)).isEqualTo("b1.example:19300");
    assertThat(s.announcedAdminAddress(8301)).isEqualTo("[fd00::1]:19301");
    assertThat(parse().config().serve().announcedGrpcAddress(8300)).isEqualTo("127.0.0.1:8300");
  }

  @Test
  void invalidCombinationsExitWithUsageErrorNamingTheOption() {
    StringWriter err = new StringWriter();
    CommandLine cl = new CommandLine(new ServerCommand()).setErr(new PrintWriter(err));
    java.io.PrintStream old = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      assertThat(cl.execute("--upstream", "mysql://x", "--data-dir", "target/never")).isEqualTo(2);
      assertThat(cl.execute("--upstream", "jdbc:postgresql://h/db", "--demo-workload")).isEqualTo(2);
      assertThat(cl.execute("--slot", "Bad Slot")).isEqualTo(2);
      assertThat(cl.execute("--bind", "0.0.0.0")).isEqualTo(2);
      assertThat(cl.execute("--advertise-address", "b1.example")).isEqualTo(2);
    } finally {
      System.setErr(old);
    }
    assertThat(captured.toString(java.nio.charset.StandardCharsets.UTF_8))
        .contains("upstream must be a jdbc:postgresql:// URL, got 'mysql://x'")
        .contains("demoWorkload writes into the embedded upstream only")
        .contains("slotName must be")
        .contains("--bind 0.0.0.0 listens on every interface").contains("add --advertise-address <host>:<port>")
        .contains("broker address must be host:port, got \"b1.example\"");
  }
}
