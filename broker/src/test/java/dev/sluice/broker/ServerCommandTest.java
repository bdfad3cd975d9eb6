package dev.sluice.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
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
  void withoutClusterJoinTheNodeIsStandaloneAndWithItJoinsTheListedMembers() {
    assertThat(parse("--data-dir", "/tmp/x").config().cluster().clustered()).isFalse();
    var c = parse("--bind", "10.0.0.2", "--cluster-join", "10.0.0.1:5701,10.0.0.2,10.0.0.3:5711", "--cluster-name",
        "prod", "--cluster-port", "5702", "--cluster-member-timeout", "8s").config().cluster();
    assertThat(c.clustered()).isTrue();
    assertThat(c.join()).extracting(Object::toString).containsExactly("10.0.0.1:5701", "10.0.0.2:5701", "10.0.0.3:5711");
    assertThat(c.name()).isEqualTo("prod");
    assertThat(c.bindHost()).isEqualTo("10.0.0.2");
    assertThat(c.announced()).hasToString("10.0.0.2:5702");
    assertThat(c.memberTimeout()).isEqualTo(Duration.ofSeconds(8));
  }

  @Test
  void aWildcardBindInAClusterWithoutAClusterAddressIsRefusedNamingTheFlag() {
    ServerCommand cmd = parse("--bind", "0.0.0.0", "--advertise-address", "b1.example:8300", "--cluster-join",
        "10.0.0.1:5701");
    org.assertj.core.api.Assertions.assertThatThrownBy(cmd::config).hasMessageContaining("--cluster-advertise-address");
    assertThat(parse("--bind", "0.0.0.0", "--advertise-address", "b1.example:8300", "--cluster-join", "10.0.0.1:5701",
        "--cluster-advertise-address", "b1.example:15701").config().cluster().announced()).hasToString("b1.example:15701");
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

  /** {@code sluice server} run in this JVM with {@code env} as its environment; stdout and stderr captured. */
  private record Run(int exit, String out, String err) {
    JsonObject setting(String key) {
      return new JsonObject(out).getJsonObject("settings").getJsonObject(key);
    }
  }

  private static Run run(Map<String, String> env, String... args) {
    ServerCommand cmd = new ServerCommand();
    cmd.environment = env;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    cmd.out = new PrintStream(out, true, StandardCharsets.UTF_8);
    cmd.err = new PrintStream(err, true, StandardCharsets.UTF_8);
    int exit = new CommandLine(cmd).execute(args);
    return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void theFileTheEnvironmentAndTheFlagsLayerInThatOrder(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(file, """
        dataDir: %s
        serve:
          grpcPort: 9300
          adminPort: 9301
        eventService:
          gcRetention: 2h
          dataPlaneInstances: 3
        """.formatted(dir.resolve("data")));
    Run r = run(Map.of("SLUICE_SERVE_ADMIN_PORT", "9401", "SLUICE_EVENT_SERVICE_GC_RETENTION", "3h"),
        "--config", file.toString(), "--set", "eventService.gcRetention=4h", "--print-config");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.setting("serve.grpcPort").getInteger("value")).isEqualTo(9300);
    assertThat(r.setting("serve.grpcPort").getString("origin")).isEqualTo(file + " line 3");
    assertThat(r.setting("serve.adminPort").getString("source")).isEqualTo("env");
    assertThat(r.setting("eventService.gcRetention").getString("value")).isEqualTo("4h");
    assertThat(r.setting("eventService.gcRetention").getString("origin")).isEqualTo("--set eventService.gcRetention");
    assertThat(r.setting("eventService.dataPlaneInstances").getInteger("value")).isEqualTo(3);

    // SLUICE_CONFIG names the file when --config is absent; a flag still wins
    Run viaEnv = run(Map.of("SLUICE_CONFIG", file.toString()), "--grpc-port", "9500", "--print-config");
    assertThat(viaEnv.setting("serve.grpcPort").getString("origin")).isEqualTo("--grpc-port");
    assertThat(viaEnv.setting("serve.adminPort").getInteger("value")).isEqualTo(9301);
  }

  @Test
  void aBadConfigurationExitsTwoNamingEveryKeyAndItsSource(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(file, "serve:\n  grpcPort: 9300\n  adminport: 1\ncapture:\n  fragmentRows: many\n");
    Run r = run(Map.of("SLUICE_EVENT_SERVICE_TICK_INTERVAL", "10"), "--config", file.toString(), "--grpc-port", "x");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("invalid configuration (4 problems)")
        .contains("serve.adminport (" + file + " line 3): unknown key; did you mean serve.adminPort?")
        .contains("capture.fragmentRows = 'many' (" + file + " line 5): must be an integer")
        .contains("eventService.tickInterval = '10' (environment variable SLUICE_EVENT_SERVICE_TICK_INTERVAL): must be"
            + " a duration")
        .contains("serve.grpcPort = 'x' (flag --grpc-port): must be an integer");
    assertThat(run(Map.of(), "--config", dir.resolve("nope.yaml").toString()).err())
        .contains("configuration file " + dir.resolve("nope.yaml") + ": does not exist");
    assertThat(run(Map.of(), "--set", "noequals").err()).contains("--set noequals: must be <key>=<value>");
  }

  @Test
  void theUpstreamPasswordIsTakenFromTheEnvironmentOrAFileAndTheFlagWarnsThatPsShowsIt(@TempDir Path dir)
      throws IOException {
    String url = "jdbc:postgresql://db:5432/app";
    Run env = run(Map.of("SLUICE_UPSTREAM_PASSWORD", "env-secret"), "--upstream", url, "--print-config");
    assertThat(env.exit()).as(env.err()).isZero();
    assertThat(env.setting("upstream.password").getString("value")).isEqualTo("***");
    assertThat(env.setting("upstream.password").getString("origin")).isEqualTo("SLUICE_UPSTREAM_PASSWORD");
    assertThat(env.out() + env.err()).doesNotContain("env-secret");
    assertThat(env.err()).doesNotContain("visible");

    Path pw = dir.resolve("pw");
    Files.writeString(pw, "file-secret\n");
    Files.setPosixFilePermissions(pw, PosixFilePermissions.fromString("rw-------"));
    ServerCommand cmd = new ServerCommand();
    cmd.environment = Map.of();
    new CommandLine(cmd).parseArgs("--upstream", url, "--upstream-password-file", pw.toString());
    assertThat(cmd.config().upstream().password()).isEqualTo("file-secret");

    Run flag = run(Map.of(), "--upstream", url, "--upstream-password", "flag-secret", "--print-config");
    assertThat(flag.exit()).isZero();
    assertThat(flag.err()).contains("warning: --upstream-password is visible to every local user")
        .contains("prefer SLUICE_UPSTREAM_PASSWORD or --upstream-password-file");
    assertThat(flag.out() + flag.err()).doesNotContain("flag-secret");
  }

  @Test
  void securityFlagsMapOntoTheSecurityConfig() throws Exception {
    Path dir = java.nio.file.Files.createTempDirectory(Path.of("/tmp"), "sec-c");
    Path file = dir.resolve("security.json");
    String hash = dev.sluice.broker.security.TokenHash.of("ops-token-0123456789".toCharArray(), 1000).toString();
    java.nio.file.Files.writeString(file, "{\"principals\": [{\"name\": \"ops\", \"roles\": [\"admin\"],"
        + " \"token_hash\": \"" + hash + "\"}]}");
    var s = parse("--security-config", file.toString(), "--tls-cert", "/etc/b.pem", "--tls-key", "/etc/b.key",
        "--tls-client-ca", "/etc/ca.pem", "--tls-reload-interval", "PT30S").config().security();
    assertThat(s.authenticationEnabled()).isTrue();
    assertThat(s.tls().certFile()).isEqualTo(Path.of("/etc/b.pem"));
    assertThat(s.tls().mutual()).isTrue();
    assertThat(s.tls().reloadInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.insecure()).isFalse();
    assertThat(parse("--insecure").config().security().insecure()).isTrue();
    assertThat(parse().config().security().authenticationEnabled()).isFalse();
  }

  @Test
  void aNodeOpenBeyondLoopbackRefusesToStartSayingWhatToAdd() throws Exception {
    Path dir = java.nio.file.Files.createTempDirectory(Path.of("/tmp"), "sec-c");
    java.io.PrintStream old = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      assertThat(new CommandLine(new ServerCommand()).execute("--bind", "0.0.0.0", "--advertise-address",
          "b1.example:8300", "--data-dir", dir.toString())).isEqualTo(1);
      assertThat(new CommandLine(new ServerCommand()).execute("--tls-cert", "/etc/b.pem")).isEqualTo(2);
    } finally {
      System.setErr(old);
    }
    assertThat(captured.toString(java.nio.charset.StandardCharsets.UTF_8))
        .contains("refusing to listen on 0.0.0.0 without TLS (--tls-cert and --tls-key) and authentication")
        .contains("--insecure").contains("docs/SECURITY.md")
        .contains("security.tls.cert (--tls-cert) and security.tls.key (--tls-key) go together");
    // nothing was opened: the refusal comes before the stores
    assertThat(java.nio.file.Files.exists(dir.resolve("events"))).isFalse();
  }

  @Test
  void theYamlSecuritySectionAndItsVariablesSetTheSecurityConfig(@TempDir Path dir) throws IOException {
    Path principals = dir.resolve("security.json");
    String hash = dev.sluice.broker.security.TokenHash.of("app-token-0123456789".toCharArray(), 1000).toString();
    Files.writeString(principals, "{\"principals\": [{\"name\": \"app\", \"roles\": [\"reader\"],"
        + " \"tables\": [\"app.*\"], \"token_hash\": \"" + hash + "\"}],"
        + " \"changefeeds\": {\"token_file\": \"/etc/sluice/cf.token\"}}");
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(file, """
        security:
          configFile: %s
          tls:
            cert: /etc/sluice/tls/broker.pem
            key: /etc/sluice/tls/broker.key
          changefeeds:
            ca: /etc/sluice/tls/ca.pem
        """.formatted(principals));
    ServerCommand cmd = new ServerCommand();
    cmd.environment = Map.of("SLUICE_SECURITY_TLS_RELOAD_INTERVAL", "30s", "SLUICE_SECURITY_INSECURE", "true");
    new CommandLine(cmd).parseArgs("--config", file.toString());
    var s = cmd.config().security();
    assertThat(s.principals()).extracting(p -> p.name()).containsExactly("app");
    assertThat(s.principals().get(0).principal().mayRead("billing.invoices")).isFalse();
    assertThat(s.tls().certFile()).isEqualTo(Path.of("/etc/sluice/tls/broker.pem"));
    assertThat(s.tls().reloadInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.tls().mutual()).isFalse();
    assertThat(s.changefeedTokenFile()).isEqualTo(Path.of("/etc/sluice/cf.token"));
    assertThat(s.changefeedCaFile()).isEqualTo(Path.of("/etc/sluice/tls/ca.pem"));
    assertThat(s.insecure()).isTrue();

    // a key without its pair is refused naming both keys and where they came from
    Files.writeString(file, "security:\n  tls:\n    cert: /etc/b.pem\n");
    Run r = run(Map.of(), "--config", file.toString(), "--print-config");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("security.tls.cert").contains("go together");
  }
}
