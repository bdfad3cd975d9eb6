package dev.sluice.broker.changefeed;

import static dev.sluice.broker.changefeed.ChangefeedInitialLoadTest.definition;
import static dev.sluice.broker.changefeed.ChangefeedInitialLoadTest.get;
import static dev.sluice.broker.changefeed.ChangefeedInitialLoadTest.limitSnapshotRows;
import static dev.sluice.broker.changefeed.ChangefeedInitialLoadTest.start;
import static dev.sluice.broker.changefeed.ChangefeedInitialLoadTest.table;
import static dev.sluice.broker.changefeed.HostedChangefeedEndToEndTest.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.capture.TestPostgres;
import dev.sluice.broker.cli.AdminClient;
import dev.sluice.broker.cli.AdminClient.Response;
import dev.sluice.broker.testing.RunningBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables read again while their changes flow: on request ({@code POST .../snapshot}, with pause, resume and
 * cancel) and after a column was added with a volatile default. Real upstream and downstream PostgreSQL; the
 * downstream ends equal to the upstream. (A table held as NEEDS_KEY cannot be made with a real upstream, which
 * refuses updates of a keyless published table without a replica identity: ChangefeedApplyTest covers its
 * re-read.)
 */
class ChangefeedResnapshotTest {

  /** The table's snapshot state, or null while it has none (or is not listed yet). */
  static String snapshotState(JsonObject changefeed, String table) {
    for (Object t : changefeed.getJsonArray("tables")) {
      if (((JsonObject) t).getString("table").equals(table)) {
        JsonObject s = ((JsonObject) t).getJsonObject("snapshot");
        return s == null ? null : s.getString("state");
      }
    }
    return null;
  }

  static Response post(AdminClient admin, String path, JsonObject body) throws Exception {
    return admin.send("POST", path, body);
  }

  @Test
  void aRequestedSnapshotReadsTablesAgainAndCanBePausedResumedAndCancelled(@TempDir Path dir) throws Exception {
    try (TestPostgres downstream = TestPostgres.start();
         RunningBroker rb = start(dir.resolve("broker"), "CREATE TABLE public.items (id int PRIMARY KEY, v text)",
             "INSERT INTO public.items SELECT g, 'v' || g FROM generate_series(1, 500) g",
             "CREATE TABLE public.big (id int PRIMARY KEY, v text)",
             "INSERT INTO public.big SELECT g, 'b' || g FROM generate_series(1, 1500) g",
             "CREATE TABLE public.bag (v text)")) {
      TestPostgres up = rb.upstream();
      AdminClient admin = rb.admin();
      rb.awaitResolved(up.currentLsn());
      Response created = admin.send("POST", "/api/v1/changefeeds", definition("again", downstream)
          .put("initial_load", "none"));   // only changes: the rows already there are missing downstream
      assertThat(created.status()).as(created.body()).isEqualTo(201);
      long first = up.txn("UPDATE public.items SET v = 'changed' WHERE id = 7");
      await().atMost(Duration.ofSeconds(60)).until(() -> get(admin, "again").getLong("checkpoint_ts", 0L) >= first);
      assertThat(rows(downstream, "public.items")).hasSize(1);

      assertThat(post(admin, "/api/v1/changefeeds/nope/snapshot", null).status()).isEqualTo(404);
      Response unknown = post(admin, "/api/v1/changefeeds/again/snapshot", new JsonObject().put("tables",
          new JsonArray().add("public.nope")));
      assertThat(unknown.status()).isEqualTo(400);
      assertThat(unknown.json().getString("field")).isEqualTo("tables");
      assertThat(unknown.json().getString("message")).contains("public.nope");
      Response keyless = post(admin, "/api/v1/changefeeds/again/snapshot", new JsonObject().put("tables",
          new JsonArray().add("public.bag")));
      assertThat(keyless.status()).isEqualTo(400);
      assertThat(keyless.json().getString("message")).contains("no key");

      Response started = post(admin, "/api/v1/changefeeds/again/snapshot", new JsonObject().put("tables",
          new JsonArray().add("public.items")));
      assertThat(started.status()).as(started.body()).isEqualTo(200);
      assertThat(started.json().getJsonArray("tables")).containsExactly("public.items");
      long during = up.txn("UPDATE public.items SET v = 'live' WHERE id IN (1, 499)", "DELETE FROM public.items WHERE id = 2");
      await().atMost(Duration.ofSeconds(60)).until(() -> {
        JsonObject cf = get(admin, "again");
        return cf.getLong("checkpoint_ts", 0L) >= during && "done".equals(snapshotState(cf, "public.items"));
      });
      assertThat(rows(downstream, "public.items")).isEqualTo(rows(up, "public.items")).hasSize(499);

      // pause, resume and cancel, on a slow snapshot
      limitSnapshotRows(admin, 150);
      assertThat(post(admin, "/api/v1/changefeeds/again/snapshot", new JsonObject().put("tables",
          new JsonArray().add("public.big"))).status()).isEqualTo(200);
      await().atMost(Duration.ofSeconds(30)).until(() -> ChangefeedInitialLoadTest.storedRows(downstream, "again",
          "public.big") >= 100);
      Response paused = post(admin, "/api/v1/changefeeds/again/snapshot/pause", null);
      assertThat(paused.status()).as(paused.body()).isEqualTo(200);
      assertThat(paused.json().getJsonArray("tables")).containsExactly("public.big");
      assertThat(snapshotState(get(admin, "again"), "public.big")).isEqualTo("paused");
      Response resumed = post(admin, "/api/v1/changefeeds/again/snapshot/resume", new JsonObject());
      assertThat(resumed.json().getJsonArray("tables")).containsExactly("public.big");
      assertThat(snapshotState(get(admin, "again"), "public.big")).isEqualTo("running");
      Response cancelled = post(admin, "/api/v1/changefeeds/again/snapshot/cancel", null);
      assertThat(cancelled.json().getJsonArray("tables")).containsExactly("public.big");
      await().atMost(Duration.ofSeconds(30)).until(() -> "cancelled".equals(snapshotState(get(admin, "again"),
          "public.big")));
      assertThat(downstream.queryLong("SELECT snapshot_state FROM sluice_table_checkpoint WHERE changefeed_id = "
          + "'again' AND table_name = 'public.big'")).isEqualTo(4);   // CANCELLED: a restart leaves it

      limitSnapshotRows(admin, 0);
      assertThat(post(admin, "/api/v1/changefeeds/again/snapshot", null).json().getJsonArray("tables"))
          .contains("public.items", "public.big").doesNotContain("public.bag");   // all followed tables with a key
      long last = up.txn("UPDATE public.big SET v = 'end' WHERE id = 1500");
      await().atMost(Duration.ofSeconds(60)).until(() -> {
        JsonObject cf = get(admin, "again");
        return cf.getLong("checkpoint_ts", 0L) >= last && "done".equals(cf.getJsonObject("snapshot").getString("state"));
      });
      assertThat(rows(downstream, "public.big")).isEqualTo(rows(up, "public.big")).hasSize(1500);
      assertThat(rows(downstream, "public.items")).isEqualTo(rows(up, "public.items"));
    }
  }

  @Test
  void aColumnAddedWithAVolatileDefaultIsReadAgainSoDownstreamHoldsTheUpstreamValues(@TempDir Path dir)
      throws Exception {
    try (TestPostgres downstream = TestPostgres.start();
         RunningBroker rb = start(dir.resolve("broker"), "CREATE TABLE public.events (id int PRIMARY KEY, v text)",
             "INSERT INTO public.events SELECT g, 'e' || g FROM generate_series(1, 300) g")) {
      TestPostgres up = rb.upstream();
      AdminClient admin = rb.admin();
      rb.awaitResolved(up.currentLsn());
      assertThat(admin.send("POST", "/api/v1/changefeeds", definition("vol", downstream)).status()).isEqualTo(201);
      await().atMost(Duration.ofSeconds(60)).until(() -> "done".equals(snapshotState(get(admin, "vol"),
          "public.events")));

      up.txn("ALTER TABLE public.events ADD COLUMN stamp timestamptz DEFAULT clock_timestamp()");
      up.txn("ALTER TABLE public.events ADD COLUMN tag uuid DEFAULT gen_random_uuid()");
      long last = up.txn("INSERT INTO public.events (id, v) VALUES (301, 'after')");
      await().atMost(Duration.ofSeconds(90)).until(() -> {
        JsonObject cf = get(admin, "vol");
        return cf.getLong("checkpoint_ts", 0L) >= last && "done".equals(snapshotState(cf, "public.events"))
            && cf.getJsonArray("divergences").isEmpty();
      });
      assertThat(rows(downstream, "public.events")).isEqualTo(rows(up, "public.events")).hasSize(301);
      assertThat(up.queryLong("SELECT count(DISTINCT tag) FROM public.events")).isEqualTo(301);
    }
  }
}
