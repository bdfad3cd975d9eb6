package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.CommitTs;
import dev.sluice.it.ChangefeedSetup;
import dev.sluice.it.ConsistencyChecker;
import dev.sluice.it.LocalChangefeed;
import dev.sluice.it.PostgresServer;
import dev.sluice.it.container.SluiceNode;
import dev.sluice.testing.containers.PostgresContainer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.containers.Network;

/**
 * The broker as a separate host: a Sluice node container captures PostgreSQL 15 in another container over
 * the test's network (by name, as a broker reaches a remote upstream), and a changefeed on the host reads
 * the change stream through the node's published gRPC port, into a downstream PostgreSQL on the host.
 */
class ContainerCaptureIT {

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  @Test
  void aNodeContainerCapturesAnUpstreamOnItsNetworkAndServesAClientOnTheHost() throws Exception {
    try (Network net = Network.newNetwork(); PostgresContainer upstream = new PostgresContainer(net, "upstream");
         PostgresServer downstream = PostgresServer.downstream()) {
      upstream.start();
      exec(upstream, "CREATE TABLE public.items (id bigint PRIMARY KEY, label text, qty int)");
      try (SluiceNode node = new SluiceNode(net, "node-1", a -> List.of("server", "--node-id", "n1",
          "--upstream", upstream.networkJdbcUrl(), "--upstream-user", PostgresContainer.USER,
          "--data-dir", SluiceNode.HOME + "/data", "--bind", "0.0.0.0", "--insecure", "--grpc-port", "" + SluiceNode.GRPC_PORT,
          "--admin-port", "" + SluiceNode.ADMIN_PORT, "--advertise-address", a.grpcHostAddress(),
          "--heartbeat-interval", "PT0.05S")).withOutputFile(logs.dir().resolve("node-1.log"))) {
        node.start();
        ChangefeedSetup setup = ChangefeedSetup.of(node.grpcAddress(), downstream.jdbcUrl(), "cf-remote",
            "public.items");
        try (LocalChangefeed cf = LocalChangefeed.start(setup)) {
          exec(upstream, "INSERT INTO public.items SELECT g, 'item ' || g, g FROM generate_series(1, 60) g",
              "INSERT INTO public.items SELECT g, 'item ' || g, g FROM generate_series(61, 120) g",
              "UPDATE public.items SET qty = qty * 10 WHERE id % 7 = 0",
              "DELETE FROM public.items WHERE id % 11 = 0");
          long end = CommitTs.parseLsn(query(upstream, "SELECT pg_current_wal_insert_lsn()::text").get(0)).value();
          ConsistencyChecker.awaitCheckpoint(downstream, "cf-remote", end, Duration.ofSeconds(90));
          assertThat(cf.status().error()).as("changefeed error").isNull();
        }
        String rows = "SELECT id || ':' || label || ':' || qty FROM public.items ORDER BY id";
        List<String> expected = query(upstream, rows);
        assertThat(expected).hasSize(120 - 120 / 11);
        assertThat(downstreamRows(downstream, rows)).containsExactlyElementsOf(expected);
        assertThat(node.recentOutput()).noneMatch(l -> l.contains(" ERROR "));
      }
    }
  }

  private static void exec(PostgresContainer pg, String... sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), PostgresContainer.USER, null);
         Statement s = c.createStatement()) {
      for (String q : sql) {
        s.execute(q);
      }
    }
  }

  private static List<String> query(PostgresContainer pg, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), PostgresContainer.USER, null)) {
      return lines(c, sql);
    }
  }

  private static List<String> downstreamRows(PostgresServer downstream, String sql) throws SQLException {
    try (Connection c = downstream.connect()) {
      return lines(c, sql);
    }
  }

  private static List<String> lines(Connection c, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
