package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.cli.AdminClient;
import dev.sluice.it.BrokerProcess;
import dev.sluice.testing.servers.MariaDbServer;
import dev.sluice.it.PostgresServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue #16's "real schemas" test: the schemas of {@link SchemaCorpus} (foreign keys, identity and serial
 * keys, a generated column, savepoints, {@code pgbench -i}'s keyless load, partitions with rows moving
 * between them, quoted mixed-case names and reserved words, 300 columns, inheritance, a keyless
 * REPLICA IDENTITY FULL table with equal rows, the usual types, TOAST), created and changed while two
 * hosted changefeeds run on a broker process: one into PostgreSQL in transaction mode, one into MariaDB
 * in table mode. Once both checkpoints pass the last commit, every table equals its copy row by row
 * ({@link TableCompare}); neither changefeed failed on the way.
 */
class RealSchemasIT {

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  static JsonObject changefeed(String id, String sinkUri, String mode) {
    JsonArray include = new JsonArray();
    SchemaCorpus.SCHEMAS.forEach(s -> include.add(s + ".*"));
    return new JsonObject().put("id", id).put("include", include).put("sink_uri", sinkUri)
        .put("options", new JsonObject().put("table_poll_interval_ms", 200).put("apply_mode", mode));
  }

  /** Waits until {@code id}'s checkpoint passes {@code ts}; a FAILED changefeed fails the test with its error. */
  static void awaitCheckpoint(AdminClient admin, String id, long ts) {
    awaitChangefeed(admin, id, cf -> cf.getLong("checkpoint_ts", 0L) >= ts);
  }

  /** Waits until {@code id}'s status satisfies {@code reached}; a FAILED changefeed fails the test with its error. */
  static void awaitChangefeed(AdminClient admin, String id, Predicate<JsonObject> reached) {
    await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200)).until(() -> {
      JsonObject cf = admin.send("GET", "/api/v1/changefeeds/" + id, null).json();
      if ("FAILED".equals(cf.getString("state"))) {
        throw new AssertionError("changefeed " + id + " FAILED: " + cf.getJsonObject("error").encode());
      }
      return reached.test(cf);
    });
  }

  @Test
  void realSchemasReplicateExactlyIntoPostgresAndMariaDb() throws Exception {
    try (PostgresServer up = PostgresServer.upstream(); PostgresServer down = PostgresServer.downstream();
         MariaDbServer maria = MariaDbServer.start();
         BrokerProcess broker = BrokerProcess.start("broker", BrokerProcess.options(logs.data("broker"), up),
             logs.dir())) {
      AdminClient admin = AdminClient.of(broker.adminUrl());
      for (JsonObject body : List.of(
          changefeed("to-pg", "jdbc:postgresql://127.0.0.1:" + down.port() + "/postgres?user=postgres", "transaction"),
          changefeed("to-maria", maria.jdbcUrl() + "?user=root", "table"))) {
        AdminClient.Response r = admin.send("POST", "/api/v1/changefeeds", body);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
      }

      SchemaCorpus.run(up, SchemaCorpus.ddl());
      long last = SchemaCorpus.run(up, SchemaCorpus.changes(Tier.pick(20, 200)));
      awaitCheckpoint(admin, "to-pg", last);
      awaitCheckpoint(admin, "to-maria", last);

      List<TableCompare.Table> tables = TableCompare.tables(up, SchemaCorpus.SCHEMAS);
      assertThat(tables).hasSizeGreaterThanOrEqualTo(15);
      for (TableCompare.Table t : tables) {
        assertThat(TableCompare.pgRows(down, t)).as("PostgreSQL copy of %s", t).isEqualTo(TableCompare.pgRows(up, t));
        if (t.kind() == 'p') {
          continue;   // rows live in the partitions; MariaDB has them there
        }
        assertThat(TableCompare.mariaRows(up, maria, t)).as("MariaDB copy of %s", t)
            .isEqualTo(TableCompare.upstreamAsMaria(up, t));
      }
      assertThat(TableCompare.pgRows(up, new TableCompare.Table("shop", "products", 'r', false)))
          .as("the rolled-back savepoint left nothing").noneMatch(r -> r.contains("never"));
    }
  }
}
