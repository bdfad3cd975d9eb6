package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.broker.cli.AdminClient;
import dev.sluice.it.BrokerProcess;
import dev.sluice.it.PostgresServer;
import dev.sluice.testing.servers.MariaDbServer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue #17 on issue #16's real schemas: the tables of {@link SchemaCorpus} already hold their rows (foreign keys,
 * an identity key, a generated column, partitions, quoted names, 300 columns, inheritance, keyless tables with
 * equal rows, TOAST, every usual type, a replica identity index other than the primary key) when the two hosted
 * changefeeds are created, with the default initial load:
 * a snapshot. Changes keep coming while they load. Once both checkpoints pass the last commit, every table equals
 * its copy in PostgreSQL (transaction mode) and MariaDB (table mode) row by row. The targets are derived from the
 * table info, so each table (parent, child, partition) holds its own rows; the PostgreSQL copy computes the generated
 * column as the source does and has the partition hierarchy again, MariaDB's has only the columns the log carries.
 */
class RealSchemasSnapshotIT {

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  /** Changes after the changefeeds start, on rows that the snapshot reads too. */
  private static final List<List<String>> LATE = List.of(
      List.of("UPDATE shop.orders SET status = 'shipped' WHERE id % 5 = 0",
          "INSERT INTO shop.customers (email, name) VALUES ('late@example.com', 'Late')"),
      List.of("DELETE FROM logs.lines WHERE msg = 'line 1'",
          "UPDATE bench.accounts SET abalance = abalance - 1 WHERE aid % 7 = 0"),
      List.of("UPDATE types.all_kinds SET b = true WHERE id = 1"),   // its toasted text unchanged
      List.of("INSERT INTO events.log VALUES (5000, TIMESTAMPTZ '2026-01-01 00:00:00+00', 'late', NULL)",
          "UPDATE wide.t SET c2 = 'late' WHERE id = 2"),
      // identified by its replica identity index, not its primary key: deletes and an identity change
      List.of("DELETE FROM shop.logins WHERE id = 5", "UPDATE shop.logins SET seen = seen + 10 WHERE id % 2 = 0"),
      List.of("UPDATE shop.logins SET email = 'moved@example.com' WHERE id = 1"));

  @Test
  void existingRowsOfRealSchemasLoadExactlyIntoPostgresAndMariaDb() throws Exception {
    try (PostgresServer up = PostgresServer.upstream(); PostgresServer down = PostgresServer.downstream();
         MariaDbServer maria = MariaDbServer.start()) {
      SchemaCorpus.run(up, SchemaCorpus.ddl());
      SchemaCorpus.run(up, SchemaCorpus.changes(Tier.pick(20, 200)));
      SchemaCorpus.run(up, SchemaCorpus.replicaIdentityIndexTable(Tier.pick(20, 200)));
      try (BrokerProcess broker = BrokerProcess.start("broker", BrokerProcess.options(logs.data("broker"), up),
          logs.dir())) {
        AdminClient admin = AdminClient.of(broker.adminUrl());
        for (var body : List.of(
            RealSchemasIT.changefeed("to-pg", "jdbc:postgresql://127.0.0.1:" + down.port() + "/postgres?user=postgres",
                "transaction"),
            RealSchemasIT.changefeed("to-maria", maria.jdbcUrl() + "?user=root", "table"))) {
          AdminClient.Response r = admin.send("POST", "/api/v1/changefeeds", body);
          assertThat(r.status()).as(r.body()).isEqualTo(201);
        }
        long last = SchemaCorpus.run(up, LATE);
        for (String id : List.of("to-pg", "to-maria")) {
          // a chunk's READ rows come at its high watermark, after the late changes: the checkpoint passing them
          // says nothing of the rows still to load, the snapshot's state does
          RealSchemasIT.awaitChangefeed(admin, id,
              cf -> "done".equals(cf.getJsonObject("snapshot").getString("state")));
          RealSchemasIT.awaitCheckpoint(admin, id, last);
        }

        List<TableCompare.Table> tables = TableCompare.tables(up, SchemaCorpus.SCHEMAS);
        assertThat(tables).hasSizeGreaterThanOrEqualTo(15);
        for (TableCompare.Table t : tables) {
          // the tables existed before the changefeed: the targets are derived from the table info (docs/CHANGEFEEDS.md),
          // each table (parent, child, partition) holding its own rows; on PostgreSQL with every column, the generated
          // one computed by the target at its place
          assertThat(TableCompare.pgRows(down, t)).as("PostgreSQL copy of %s", t).isEqualTo(TableCompare.pgRows(up, t));
          if (t.kind() == 'p') {
            // on PostgreSQL the partitions are partitions of it again: it shows their rows, as upstream
            assertThat(TableCompare.pgTreeRows(down, t)).as("PostgreSQL copy of the hierarchy under %s", t)
                .isNotEmpty().isEqualTo(TableCompare.pgTreeRows(up, t));
            continue;   // rows live in the partitions; MariaDB has them there
          }
          assertThat(TableCompare.mariaRows(up, maria, t)).as("MariaDB copy of %s", t)
              .isEqualTo(TableCompare.upstreamAsMaria(up, t));
        }
        assertThat(TableCompare.pgRows(down, new TableCompare.Table("shop", "customers", 'r', false)))
            .as("the late insert").anyMatch(r -> r.contains("late@example.com"));
      }
    }
  }
}
