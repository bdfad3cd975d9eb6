package dev.sluice.broker.changefeed;

import static dev.sluice.broker.changefeed.HostedChangefeedEndToEndTest.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.capture.TestPostgres;
import dev.sluice.broker.cli.AdminClient.Response;
import dev.sluice.broker.testing.RunningBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #16's schemas users have, end to end: embedded PostgreSQL → Sluice (capture, stores, event
 * service, a changefeed hosted by the broker) → a second embedded PostgreSQL; each case ends with every
 * table equal upstream and downstream, row by row.
 */
class RealSchemasEndToEndTest {

  /** Issue #16 (4): infinity and BC values stopped the changefeed for good (22009), the extremes too. */
  @Test
  void infinityBcAndExtremeDatesAndTimestampsArriveExactly(@TempDir Path dir) throws Exception {
    try (TestPostgres downstream = TestPostgres.start();
         RunningBroker rb = RunningBroker.start(dir.resolve("broker"), fastProgress(),
             "CREATE SCHEMA moments", "CREATE TABLE moments.m (id int PRIMARY KEY, d date, t timestamp, tz timestamptz,"
                 + " ds date[], tzs timestamptz[])")) {
      TestPostgres up = rb.upstream();
      createFeed(rb, "moments", "moments.*", downstream);
      up.txn("INSERT INTO moments.m VALUES (1, 'infinity', 'infinity', '-infinity', '{-infinity,2024-02-29,infinity}',"
          + " '{infinity,NULL,-infinity}')",
          "INSERT INTO moments.m VALUES (2, '4713-01-01 BC', '0044-03-15 12:00:00 BC', '0001-12-31 23:59:59.999999+00 BC',"
              + " '{\"4714-11-24 BC\",0001-01-01}', '{\"4714-11-24 00:00:00+00 BC\"}')",
          "INSERT INTO moments.m VALUES (3, '5874897-12-31', '294276-12-31 23:59:59.999999',"
              + " '294276-12-31 23:59:59.999999+00', '{5874897-12-31}', '{\"294276-12-31 23:59:59.999999+00\"}')",
          "INSERT INTO moments.m VALUES (4, '4714-11-24 BC', '294247-01-10 04:00:54.775807', '4714-11-24 00:00:00+00 BC',"
              + " NULL, NULL)");
      long last = up.txn("UPDATE moments.m SET t = '-infinity' WHERE id = 4");

      awaitCheckpoint(rb, "moments", last);
      assertThat(rows(downstream, "moments.m")).isEqualTo(rows(up, "moments.m")).hasSize(4);
      assertThat(rows(downstream, "moments.m").get(3)).contains("t=-infinity");
    }
  }

  /** Issue #16 (5): a table using an enum failed with 'type "types.mood" does not exist'. */
  @Test
  void tablesUsingEnumsDomainsAndCompositesArriveWithTheirTypes(@TempDir Path dir) throws Exception {
    try (TestPostgres downstream = TestPostgres.start();
         RunningBroker rb = RunningBroker.start(dir.resolve("broker"), fastProgress(),
             "CREATE SCHEMA types", "CREATE SCHEMA app",
             "CREATE TYPE types.mood AS ENUM ('sad', 'ok')",
             "CREATE DOMAIN app.price AS numeric(10,2) CHECK (VALUE >= 0)",
             "CREATE TABLE app.early (id int PRIMARY KEY, m types.mood, p app.price)")) {
      TestPostgres up = rb.upstream();
      up.txn("INSERT INTO app.early VALUES (1, 'sad', 1.50)");
      createFeed(rb, "types", "app.*", downstream);
      up.txn("CREATE TYPE app.tagged AS (label text, mood types.mood)",
          "CREATE TABLE app.person (id int PRIMARY KEY, name text, m types.mood NOT NULL, ms types.mood[],"
              + " p app.price, t app.tagged)",
          "INSERT INTO app.person VALUES (1, 'ann', 'ok', '{sad,ok}', 2.00, '(a,sad)')");
      up.txn("ALTER TYPE types.mood ADD VALUE 'happy' BEFORE 'ok'");
      up.txn("INSERT INTO app.person VALUES (2, 'bob', 'happy', '{happy}', 0, '(b,happy)')",
          "UPDATE app.early SET m = 'happy' WHERE id = 1", "INSERT INTO app.early VALUES (2, 'ok', NULL)");
      long last = up.txn("UPDATE app.person SET ms = ms || 'happy'::types.mood WHERE id = 1");

      awaitCheckpoint(rb, "types", last);
      for (String table : java.util.List.of("app.early", "app.person")) {
        assertThat(rows(downstream, table)).as(table).isEqualTo(rows(up, table)).hasSize(2);
      }
      assertThat(downstream.queryLong("SELECT count(*) FROM pg_enum WHERE enumtypid = 'types.mood'::regtype")).isEqualTo(3);
      assertThat(downstream.queryLong("SELECT count(*) FROM pg_attribute WHERE attrelid = 'app.person'::regclass"
          + " AND attname = 't' AND atttypid = 'app.tagged'::regtype")).isEqualTo(1);
    }
  }

  /**
   * Issue #16 (7): a migration in one transaction (ADD COLUMN, UPDATE, SET NOT NULL) stopped the changefeed
   * with 'column "first_name" ... contains null values'; sent as separate statements and as one
   * multi-statement string (whose captured text is the whole string, never to be run again downstream).
   */
  @Test
  void aMigrationInOneTransactionReachesTheTargetInItsStatementOrder(@TempDir Path dir) throws Exception {
    try (TestPostgres downstream = TestPostgres.start();
         RunningBroker rb = RunningBroker.start(dir.resolve("broker"), fastProgress(), "CREATE SCHEMA hr",
             "CREATE TABLE hr.person (id int PRIMARY KEY, name text NOT NULL)",
             "CREATE TABLE hr.person2 (id int PRIMARY KEY, name text NOT NULL)")) {
      TestPostgres up = rb.upstream();
      for (String table : java.util.List.of("hr.person", "hr.person2")) {
        up.txn("INSERT INTO " + table + " SELECT g, 'first' || g || ' last' || g FROM generate_series(1, 20) g");
      }
      createFeed(rb, "migration", "hr.*", downstream);
      awaitCheckpoint(rb, "migration", up.currentLsn());

      up.txn("ALTER TABLE hr.person ADD COLUMN first_name text",
          "UPDATE hr.person SET first_name = split_part(name, ' ', 1)",
          "ALTER TABLE hr.person ALTER first_name SET NOT NULL",
          "INSERT INTO hr.person VALUES (21, 'first21 last21', 'first21')");
      up.simpleQuery("ALTER TABLE hr.person2 ADD COLUMN first_name text; "
          + "UPDATE hr.person2 SET first_name = split_part(name, ' ', 1); "
          + "ALTER TABLE hr.person2 ALTER first_name SET NOT NULL");
      long last = up.txn("UPDATE hr.person2 SET first_name = 'renamed' WHERE id = 3");

      awaitCheckpoint(rb, "migration", last);
      for (String table : java.util.List.of("hr.person", "hr.person2")) {
        assertThat(rows(downstream, table)).as(table).isEqualTo(rows(up, table)).hasSizeGreaterThanOrEqualTo(20);
        assertThat(downstream.queryLong("SELECT count(*) FROM pg_attribute WHERE attrelid = '" + table
            + "'::regclass AND attname = 'first_name' AND attnotnull")).as(table + ".first_name NOT NULL").isEqualTo(1);
      }
    }
  }

  /**
   * Issue #16 (9): a column added with DEFAULT now() gets the target's own values in the rows the table had
   * (the upstream's are not in the WAL). The DDL reaching the changefeed names the column, the other
   * columns and later rows are equal, and once the upstream rewrites those rows the copy is exact.
   */
  @Test
  void aColumnAddedWithAVolatileDefaultIsReadAgainUntilDownstreamHoldsTheUpstreamValues(@TempDir Path dir)
      throws Exception {
    try (TestPostgres downstream = TestPostgres.start();
         RunningBroker rb = RunningBroker.start(dir.resolve("broker"), fastProgress(), "CREATE SCHEMA audit",
             "CREATE TABLE audit.stamps (id int PRIMARY KEY, v text)")) {
      TestPostgres up = rb.upstream();
      createFeed(rb, "stamps", "audit.*", downstream);
      Path jsonl = dir.resolve("stamps.jsonl");
      Response created = rb.admin().send("POST", "/api/v1/changefeeds", new JsonObject().put("id", "stamps-json")
          .put("include", new JsonArray().add("audit.*")).put("sink_uri", "jsonl:file:" + jsonl)
          .put("options", new JsonObject().put("table_poll_interval_ms", 100)));
      assertThat(created.status()).as(created.body()).isEqualTo(201);
      awaitCheckpoint(rb, "stamps", up.currentLsn());
      awaitCheckpoint(rb, "stamps", up.txn("INSERT INTO audit.stamps SELECT g, 'v' || g FROM generate_series(1, 10) g"));

      up.txn("ALTER TABLE audit.stamps ADD COLUMN created_at timestamptz NOT NULL DEFAULT now()");
      long added = up.txn("INSERT INTO audit.stamps (id, v, created_at) VALUES (11, 'v11', '2020-01-01 00:00:00+00')");
      awaitCheckpoint(rb, "stamps", added);
      awaitCheckpoint(rb, "stamps-json", added);

      String ddlLine = java.nio.file.Files.readAllLines(jsonl).stream().filter(l -> l.contains("\"op\":\"ddl\""))
          .reduce((a, b) -> b).orElseThrow();
      assertThat(new JsonObject(ddlLine).getJsonArray("volatile_default_columns")).containsExactly("created_at");
      assertThat(count(downstream, "SELECT count(*) FROM audit.stamps WHERE id <= 10")).isEqualTo(10);
      // the target computed now() again for the rows the table had; the changefeed reads them again (a
      // re-snapshot of the table), after which they hold the upstream's values and the divergence clears
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() ->
          rows(downstream, "audit.stamps").equals(rows(up, "audit.stamps"))
              && rb.admin().send("GET", "/api/v1/changefeeds/stamps", null).json().getJsonArray("divergences").isEmpty());
      assertThat(rows(downstream, "audit.stamps")).hasSize(11);
      String read = java.nio.file.Files.readAllLines(jsonl).stream().filter(l -> l.contains("\"op\":\"read\"")
          && l.contains("\"id\":1,")).reduce((a, b) -> b).orElseThrow();
      assertThat(new JsonObject(read).getJsonObject("after").getString("created_at"))
          .startsWith(rows(up, "audit.stamps").get(0).split("created_at=")[1].substring(0, 10));
    }
  }

  private static long count(TestPostgres pg, String sql) {
    return pg.queryLong(sql);
  }

  static ChangefeedConfig fastProgress() {
    return ChangefeedConfig.defaults().withProgressInterval(Duration.ofMillis(100));
  }

  static void createFeed(RunningBroker rb, String id, String include, TestPostgres downstream) {
    Response created = rb.admin().send("POST", "/api/v1/changefeeds", new JsonObject().put("id", id)
        .put("include", new JsonArray().add(include))
        .put("sink_uri", "jdbc:postgresql://127.0.0.1:" + downstream.port() + "/postgres?user=postgres")
        .put("options", new JsonObject().put("table_poll_interval_ms", 100)));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
  }

  /** Waits for the changefeed's checkpoint to reach {@code ts}; a FAILED changefeed fails at once with its error. */
  static void awaitCheckpoint(RunningBroker rb, String id, long ts) {
    await().atMost(Duration.ofSeconds(90)).until(() -> {
      JsonObject cf = rb.admin().send("GET", "/api/v1/changefeeds/" + id, null).json();
      assertThat(cf.getString("state")).as("changefeed %s: %s", id, cf.getValue("error")).isNotEqualTo("FAILED");
      return cf.getLong("checkpoint_ts", 0L) >= ts;
    });
  }
}
