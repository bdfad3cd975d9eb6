package dev.sluice.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.broker.capture.CaptureConfig;
import dev.sluice.broker.capture.TestPostgres;
import dev.sluice.broker.startup.StartupCheckException;
import dev.sluice.broker.upstream.DemoWorkloadConfig;
import dev.sluice.broker.upstream.UpstreamConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A taken port or an unusable data directory is refused by name before the broker creates anything:
 * no replication slot is left in the (real) upstream to pin its WAL.
 */
class BrokerStartupChecksTest {

  private static TestPostgres pg;

  @TempDir
  Path dir;

  @BeforeAll
  static void startUpstream() {
    pg = TestPostgres.start();
  }

  @AfterAll
  static void stopUpstream() {
    if (pg != null) {
      pg.close();
    }
  }

  private BrokerConfig config(Path data, ServeConfig serve) {
    return new BrokerConfig("node-p", data, UpstreamConfig.external(pg.jdbcUrl(), "postgres", null),
        CaptureConfig.defaults("node-p"), false, DemoWorkloadConfig.defaults(), serve);
  }

  private static ServerSocket taken() throws IOException {
    return new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
  }

  private static long slots() throws SQLException {
    try (Connection c = pg.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sluice_node_p'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void aTakenGrpcPortIsNamedWithItsSettingAndNoSlotIsCreated() throws Exception {
    try (ServerSocket busy = taken(); Broker broker = new Broker(config(dir.resolve("d"),
        ServeConfig.ephemeral().withPorts("127.0.0.1", busy.getLocalPort(), 0)))) {
      int port = busy.getLocalPort();
      assertThatThrownBy(broker::start).isInstanceOf(StartupCheckException.class)
          .hasMessageContaining("gRPC port " + port + " on 127.0.0.1 is already in use by another process")
          .hasMessageContaining("serve.grpcPort = " + port + ", from the BrokerConfig given in code")
          .hasMessageContaining("--grpc-port").hasMessageContaining("SLUICE_SERVE_GRPC_PORT")
          .hasMessageContaining("nothing was started");
    }
    assertThat(slots()).as("replication slots after the refused start").isZero();
  }

  @Test
  void aTakenAdminPortRefusesTheServerCommandWithExitOneAndNoSlot() throws Exception {
    try (ServerSocket busy = taken()) {
      int port = busy.getLocalPort();
      ServerCommand cmd = new ServerCommand();
      cmd.environment = Map.of();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      cmd.err = new PrintStream(err, true, StandardCharsets.UTF_8);
      int exit = new CommandLine(cmd).execute("--upstream", pg.jdbcUrl(), "--upstream-user", "postgres",
          "--node-id", "node-p", "--data-dir", dir.resolve("d").toString(), "--grpc-port", "0",
          "--admin-port", Integer.toString(port));
      assertThat(exit).isEqualTo(1);
      assertThat(err.toString(StandardCharsets.UTF_8))
          .contains("cannot start: admin HTTP port " + port + " on 127.0.0.1 is already in use")
          .contains("serve.adminPort = " + port + ", from flag --admin-port")
          .contains("choose another port with --admin-port, SLUICE_SERVE_ADMIN_PORT or serve.adminPort");
    }
    assertThat(slots()).isZero();
  }

  @Test
  void aDataDirectoryThatIsAFileIsNamedAsSuch() throws IOException {
    Path file = Files.writeString(dir.resolve("data"), "x");
    assertThatThrownBy(() -> startAndClose(config(file, ServeConfig.ephemeral())))
        .isInstanceOf(StartupCheckException.class)
        .hasMessageContaining("the data directory " + file + " is a file, not a directory")
        .hasMessageContaining("--data-dir").hasMessageNotContaining("disk space");
    Path under = file.resolve("sub");
    assertThatThrownBy(() -> startAndClose(config(under, ServeConfig.ephemeral())))
        .hasMessageContaining("cannot create the data directory " + under + ": " + file + " is a file");
    Path data = Files.createDirectories(dir.resolve("ok"));
    Files.writeString(data.resolve("events"), "x");
    assertThatThrownBy(() -> startAndClose(config(data, ServeConfig.ephemeral())))
        .hasMessageContaining(data.resolve("events") + " is a file, but the broker keeps its events/ directory there");
  }

  @Test
  void aDataDirectoryThatCannotBeCreatedNamesThePathAndTheReason() {
    // /proc refuses new directories even to root, who can write anywhere else
    Path proc = Path.of("/proc/sluice-data-check");
    assertThatThrownBy(() -> startAndClose(config(proc, ServeConfig.ephemeral())))
        .isInstanceOf(StartupCheckException.class)
        .hasMessageContaining("cannot create the data directory " + proc)
        .hasMessageContaining("dataDir").hasMessageNotContaining("retried");
  }

  private static void startAndClose(BrokerConfig c) {
    try (Broker b = new Broker(c)) {
      b.start();
    }
  }
}
