package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.cli.AdminClient;
import dev.sluice.it.BrokerProcess;
import dev.sluice.it.PostgresServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import dev.sluice.it.workload.LedgerWorkload;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue #16's done criterion: a schema with foreign keys (a parent and children written in the same
 * transactions, children deleted by cascade), an enum, a keyless table (pgbench's history, and a
 * REPLICA IDENTITY FULL one that is updated) and infinity timestamps, replicated by a hosted changefeed
 * into PostgreSQL while a workload writes, through a kill -9 of the broker (quick tier: one, full tier:
 * three) and a pause during which one table is dropped and another dropped and created again with a
 * new shape. In the end every table equals its copy row by row, the dropped one is gone downstream, and
 * the changefeed never failed.
 */
class RealSchemaFaultsIT {

  /**
   * Enum columns and infinity timestamps need schema-capture's issue #16 items 4 and 5 (user types
   * replicated, infinity carried exactly); switched on once they are on main.
   */
  static final boolean USER_TYPES_AND_INFINITY = false;

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  @Test
  void aRealSchemaSurvivesABrokerKillAndAPauseWithDrops() throws Exception {
    int kills = Tier.pick(1, 3);
    try (PostgresServer up = PostgresServer.upstream(); PostgresServer down = PostgresServer.downstream();
         BrokerProcess broker = BrokerProcess.start("broker", BrokerProcess.options(logs.data("broker"), up),
             logs.dir())) {
      AdminClient admin = AdminClient.of(broker.adminUrl(), Duration.ofSeconds(30));
      AdminClient.Response created = admin.send("POST", "/api/v1/changefeeds", new JsonObject().put("id", "faults")
          .put("include", new JsonArray().add("app.*"))
          .put("sink_uri", "jdbc:postgresql://127.0.0.1:" + down.port() + "/postgres?user=postgres")
          .put("options", new JsonObject().put("table_poll_interval_ms", 200)));
      assertThat(created.status()).as(created.body()).isEqualTo(201);
      up.exec("CREATE SCHEMA app", "CREATE TABLE app.scratch (id int PRIMARY KEY, v text)",
          "CREATE TABLE app.reshaped (id int PRIMARY KEY, v text)");
      try (LedgerWorkload ledger = LedgerWorkload.create(up, "app", USER_TYPES_AND_INFINITY)) {
        up.exec("INSERT INTO app.scratch VALUES (1, 'before the pause')", "INSERT INTO app.reshaped VALUES (1, 'old')");
        ledger.paced(60).start(1);
        for (int kill = 1; kill <= kills; kill++) {
          long before = ledger.committed();
          await().atMost(Duration.ofSeconds(60)).until(() -> ledger.committed() > before + 100);
          awaitCheckpoint(admin, up.currentLsn());   // the changefeed applies while the workload writes
          broker.kill9();
          long whileDown = ledger.committed();
          await().atMost(Duration.ofSeconds(60)).until(() -> ledger.committed() > whileDown + 50);
          broker.restart();
        }

        assertThat(admin.send("POST", "/api/v1/changefeeds/faults/pause", null).status()).isEqualTo(200);
        up.exec("INSERT INTO app.scratch VALUES (2, 'its last row')", "DROP TABLE app.scratch",
            "INSERT INTO app.reshaped VALUES (2, 'last old row')", "DROP TABLE app.reshaped",
            "CREATE TABLE app.reshaped (id int PRIMARY KEY, w int NOT NULL, note text)",
            "INSERT INTO app.reshaped VALUES (10, 10, 'new shape')");
        long whilePaused = ledger.committed();
        await().atMost(Duration.ofSeconds(60)).until(() -> ledger.committed() > whilePaused + 50);
        assertThat(admin.send("POST", "/api/v1/changefeeds/faults/resume", null).status()).isEqualTo(200);
        long more = ledger.committed();
        await().atMost(Duration.ofSeconds(60)).until(() -> ledger.committed() > more + 50);
        ledger.stop();
        assertThat(ledger.committed()).isGreaterThan(Tier.pick(200L, 600L));
      }
      awaitCheckpoint(admin, up.currentLsn());
      List<TableCompare.Table> tables = TableCompare.tables(up, List.of("app"));
      assertThat(tables).extracting(TableCompare.Table::name)
          .containsExactlyInAnyOrder("accounts", "transfers", "history", "tags", "reshaped");
      for (TableCompare.Table t : tables) {
        assertThat(TableCompare.pgRows(down, t)).as("copy of %s", t).isEqualTo(TableCompare.pgRows(up, t))
            .isNotEmpty();
      }
      assertThat(TableCompare.tables(down, List.of("app"))).extracting(TableCompare.Table::name)
          .as("scratch was dropped downstream too").doesNotContain("scratch");
      assertThat(TableCompare.pgRows(down, new TableCompare.Table("app", "reshaped", 'r', false)))
          .containsExactly("(10,10,\"new shape\")");
    }
  }

  private static void awaitCheckpoint(AdminClient admin, long ts) {
    RealSchemasIT.awaitCheckpoint(admin, "faults", ts);
  }
}
