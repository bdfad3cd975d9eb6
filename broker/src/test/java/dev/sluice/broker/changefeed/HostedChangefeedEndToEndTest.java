package dev.sluice.broker.changefeed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.capture.TestPostgres;
import dev.sluice.broker.cli.AdminClient;
import dev.sluice.broker.cli.AdminClient.Response;
import dev.sluice.broker.testing.RunningBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #5's end-to-end case: embedded PostgreSQL → Sluice (capture, event service, a changefeed
 * hosted by the broker and created over HTTP) → a second embedded PostgreSQL, with a workload that
 * changes schemas (ADD COLUMN with a default, a table created later); once the changefeed's
 * checkpoint passes the last commit, every downstream table equals its upstream one row by row.
 */
class HostedChangefeedEndToEndTest {

  @Test
  void downstreamTablesEqualUpstreamOnesAfterAWorkloadWithDdl(@TempDir Path dir) throws Exception {
    try (TestPostgres downstream = TestPostgres.start();
         RunningBroker rb = RunningBroker.start(dir.resolve("broker"), ChangefeedConfig.defaults()
             .withProgressInterval(Duration.ofMillis(100)),
             "CREATE TABLE public.accounts (id int PRIMARY KEY, owner text NOT NULL, balance bigint NOT NULL)",
             "CREATE TABLE public.orders (id int PRIMARY KEY, account int NOT NULL, amount numeric(12,2), note text)",
             "CREATE TABLE public.scratch (id int PRIMARY KEY)")) {
      TestPostgres up = rb.upstream();
      up.txn("INSERT INTO public.accounts SELECT g, 'owner ' || g, 0 FROM generate_series(1, 20) g");   // before start
      rb.awaitResolved(up.currentLsn());
      AdminClient admin = rb.admin();
      Response created = admin.send("POST", "/api/v1/changefeeds", new JsonObject().put("id", "e2e")
          .put("include", new JsonArray().add("public.*")).put("exclude", new JsonArray().add("public.scratch"))
          .put("start_ts", 0)
          .put("sink_uri", "jdbc:postgresql://127.0.0.1:" + downstream.port() + "/postgres?user=postgres")
          .put("options", new JsonObject().put("table_poll_interval_ms", 1000)));   // rows land before discovery
      assertThat(created.status()).as(created.body()).isEqualTo(201);

      Random random = new Random(5);
      for (int i = 1; i <= 60; i++) {
        int account = 1 + random.nextInt(20);
        up.txn("INSERT INTO public.orders VALUES (" + i + ", " + account + ", " + (i * 1.25) + ", 'o" + i + "')",
            "UPDATE public.accounts SET balance = balance + " + i + " WHERE id = " + account,
            "INSERT INTO public.scratch VALUES (" + i + ")");
      }
      up.txn("ALTER TABLE public.orders ADD COLUMN status text NOT NULL DEFAULT 'new'");
      for (int i = 61; i <= 90; i++) {
        up.txn("INSERT INTO public.orders VALUES (" + i + ", 1, 9.99, NULL, 'open')",
            "UPDATE public.orders SET status = 'shipped', note = 'n' || id WHERE id = " + (i - 50));
      }
      up.txn("DELETE FROM public.orders WHERE id % 7 = 0", "DELETE FROM public.accounts WHERE id = 20");
      up.txn("CREATE TABLE public.refunds (id int PRIMARY KEY, order_id int NOT NULL, reason text)");
      for (int i = 1; i <= 15; i++) {
        up.txn("INSERT INTO public.refunds VALUES (" + i + ", " + i + ", 'r" + i + "')",
            "UPDATE public.accounts SET balance = balance - 1 WHERE id = " + (1 + i % 19));
      }
      long last = up.txn("UPDATE public.refunds SET reason = 'final' WHERE id = 15");

      await().atMost(Duration.ofSeconds(90)).until(() -> {
        JsonObject cf = admin.send("GET", "/api/v1/changefeeds/e2e", null).json();
        return cf.getLong("checkpoint_ts", 0L) >= last && cf.getJsonArray("tables").size() == 3;
      });
      JsonObject cf = admin.send("GET", "/api/v1/changefeeds/e2e", null).json();
      assertThat(cf.getString("state")).isEqualTo("NORMAL");
      assertThat(cf.getJsonArray("tables").stream().map(t -> ((JsonObject) t).getString("table")))
          .containsExactlyInAnyOrder("public.accounts", "public.orders", "public.refunds");
      for (String table : List.of("public.accounts", "public.orders", "public.refunds")) {
        assertThat(rows(downstream, table)).as(table).isEqualTo(rows(up, table)).isNotEmpty();
      }
      assertThat(tableExists(downstream, "public.scratch")).isFalse();
      assertThat(rows(downstream, "public.orders").get(0)).endsWith("|status=new");   // the default reached old rows too

      // deleting without keep_meta removes the sink's checkpoint rows, never the replicated data
      assertThat(admin.send("DELETE", "/api/v1/changefeeds/e2e", null).status()).isEqualTo(204);
      assertThat(count(downstream, "SELECT count(*) FROM sluice_checkpoint WHERE changefeed_id = 'e2e'")).isZero();
      assertThat(count(downstream, "SELECT count(*) FROM sluice_table_checkpoint WHERE changefeed_id = 'e2e'")).isZero();
      assertThat(rows(downstream, "public.refunds")).hasSize(15);
    }
  }

  @Test
  void aTableCreatedAndFilledInOneTransactionArrivesWithThoseRows(@TempDir Path dir) throws Exception {
    try (TestPostgres downstream = TestPostgres.start();
         RunningBroker rb = RunningBroker.start(dir.resolve("broker"), ChangefeedConfig.defaults()
             .withProgressInterval(Duration.ofMillis(100)), "CREATE TABLE public.seed (id int PRIMARY KEY)")) {
      TestPostgres up = rb.upstream();
      Response created = rb.admin().send("POST", "/api/v1/changefeeds", new JsonObject().put("id", "born")
          .put("include", new JsonArray().add("public.*"))
          .put("sink_uri", "jdbc:postgresql://127.0.0.1:" + downstream.port() + "/postgres?user=postgres")
          .put("options", new JsonObject().put("table_poll_interval_ms", 100)));
      assertThat(created.status()).as(created.body()).isEqualTo(201);

      // a migration's usual shape: the table and its first rows commit together, at one commit ts
      up.txn("CREATE TABLE public.born (id int PRIMARY KEY, v text)",
          "INSERT INTO public.born SELECT g, 'v' || g FROM generate_series(1, 5) g");
      long last = up.txn("INSERT INTO public.born VALUES (6, 'later')");

      await().atMost(Duration.ofSeconds(60)).until(() ->
          rb.admin().send("GET", "/api/v1/changefeeds/born", null).json().getLong("checkpoint_ts", 0L) >= last);
      assertThat(rows(downstream, "public.born")).isEqualTo(rows(up, "public.born")).hasSize(6);
    }
  }

  /** Every row of {@code table}, columns joined with |, ordered by id. */
  static List<String> rows(TestPostgres pg, String table) throws SQLException {
    return rows(pg, table, "id");
  }

  /** Every row of {@code table}, columns joined with |, ordered by {@code orderBy}. */
  static List<String> rows(TestPostgres pg, String table, String orderBy) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = pg.connect(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT * FROM " + table + " ORDER BY " + orderBy)) {
      ResultSetMetaData md = rs.getMetaData();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          row.append(i > 1 ? "|" : "").append(md.getColumnName(i)).append('=').append(rs.getString(i));
        }
        out.add(row.toString());
      }
    }
    return out;
  }

  static long count(TestPostgres pg, String sql) {
    return pg.queryLong(sql);
  }

  private static boolean tableExists(TestPostgres pg, String table) {
    return pg.queryLong("SELECT count(*) FROM pg_class WHERE oid = to_regclass('" + table + "')") > 0;
  }
}
