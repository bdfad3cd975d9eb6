package dev.sluice.broker.changefeed;

import static dev.sluice.broker.changefeed.HostedChangefeedEndToEndTest.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.ServeConfig;
import dev.sluice.broker.capture.TestPostgres;
import dev.sluice.broker.cli.AdminClient;
import dev.sluice.broker.cli.AdminClient.Response;
import dev.sluice.broker.testing.RunningBroker;
import io.micrometer.core.instrument.Counter;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hosted changefeeds load the rows their tables already hold (issue #17): a real upstream PostgreSQL with
 * rows, a changefeed created over HTTP into an empty PostgreSQL, small snapshot chunks; the downstream ends
 * equal row by row, and a runtime stopped halfway continues from the cursor its sink stored.
 */
class ChangefeedInitialLoadTest {

  static final int CHUNK_ROWS = 100;

  /** A broker whose snapshots read {@value #CHUNK_ROWS} rows a chunk. */
  static RunningBroker start(Path dir, String... sql) {
    ServeConfig serve = ServeConfig.ephemeral();
    var es = serve.eventService();
    serve = serve.withEventService(es.withSnapshot(es.snapshot().withChunkRows(CHUNK_ROWS)
        .withRetryBackoff(Duration.ofMillis(50), Duration.ofMillis(500))));
    return RunningBroker.start(dir, ChangefeedConfig.defaults().withProgressInterval(Duration.ofMillis(100)), serve,
        sql);
  }

  static JsonObject definition(String id, TestPostgres downstream) {
    return new JsonObject().put("id", id).put("include", new JsonArray().add("public.*"))
        .put("sink_uri", "jdbc:postgresql://127.0.0.1:" + downstream.port() + "/postgres?user=postgres")
        .put("options", new JsonObject().put("table_poll_interval_ms", 200));
  }

  static JsonObject get(AdminClient admin, String id) throws Exception {
    return admin.send("GET", "/api/v1/changefeeds/" + id, null).json();
  }

  /** The READ rows the sink applied for {@code table} and its stored snapshot state (sluice_table_checkpoint). */
  static long storedRows(TestPostgres downstream, String id, String table) {
    return downstream.queryLong("SELECT coalesce(max(snapshot_rows), -1) FROM sluice_table_checkpoint WHERE "
        + "changefeed_id = '" + id + "' AND table_name = '" + table + "'");
  }

  static void limitSnapshotRows(AdminClient admin, long perSecond) throws Exception {
    Response r = admin.send("PATCH", "/api/v1/config", new JsonObject()
        .put("eventService.limits.snapshotRowsPerSecond", perSecond));
    assertThat(r.status()).as(r.body()).isEqualTo(200);
  }

  static double chunksDelivered(RunningBroker rb) {
    Counter c = rb.broker().meterRegistry().find("sluice.snapshot.chunks").tag("outcome", "delivered").counter();
    return c == null ? 0 : c.count();
  }

  @Test
  void existingRowsLoadAndARestartHalfwayContinuesFromTheStoredCursor(@TempDir Path dir) throws Exception {
    try (TestPostgres downstream = TestPostgres.start();
         RunningBroker rb = start(dir.resolve("broker"),
             "CREATE TABLE public.items (id int PRIMARY KEY, v text NOT NULL, n bigint)",
             "INSERT INTO public.items SELECT g, 'v' || g, g * 10 FROM generate_series(1, 3000) g",
             "CREATE TABLE public.pairs (a int, b int, note text, PRIMARY KEY (a, b))",
             "INSERT INTO public.pairs SELECT g % 7, g, 'p' || g FROM generate_series(1, 250) g",
             "ANALYZE public.items", "ANALYZE public.pairs")) {
      TestPostgres up = rb.upstream();
      AdminClient admin = rb.admin();
      rb.awaitResolved(up.currentLsn());
      limitSnapshotRows(admin, 400);   // slow enough to stop it halfway
      Response created = admin.send("POST", "/api/v1/changefeeds", definition("load", downstream));
      assertThat(created.status()).as(created.body()).isEqualTo(201);
      assertThat(created.json().getString("initial_load")).isEqualTo("snapshot");   // the default

      await().atMost(Duration.ofSeconds(60)).until(() -> storedRows(downstream, "load", "public.items") >= 600);
      up.txn("UPDATE public.items SET v = 'live' WHERE id IN (1, 2, 2999)", "DELETE FROM public.items WHERE id = 3",
          "INSERT INTO public.items VALUES (5001, 'new', NULL)");
      JsonObject running = get(admin, "load");
      assertThat(running.getJsonObject("snapshot").getString("state")).isEqualTo("running");
      JsonObject items = table(running, "public.items").getJsonObject("snapshot");
      assertThat(items.getString("state")).isEqualTo("running");
      assertThat(items.getLong("rows_estimated")).isBetween(2500L, 3500L);   // pg_class.reltuples

      // the runtime stops (a pause stops it as a broker restart or a move would) and starts again
      assertThat(admin.send("POST", "/api/v1/changefeeds/load/pause", null).status()).isEqualTo(200);
      long stored = storedRows(downstream, "load", "public.items");
      assertThat(stored).isBetween(600L, 2900L);
      // while PAUSED the view shows the last stored figures (once the stop is recorded): the running snapshot as
      // paused, with the rows its sink applied
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
        JsonObject pausedView = get(admin, "load");
        assertThat(pausedView.getString("state")).isEqualTo("PAUSED");
        JsonObject snapshot = pausedView.getJsonObject("snapshot");
        assertThat(snapshot.getString("as_of")).isEqualTo("stored");
        assertThat(snapshot.getString("state")).isEqualTo("paused");
        JsonObject pausedItems = snapshot.getJsonArray("tables").stream().map(JsonObject.class::cast)
            .filter(t -> "public.items".equals(t.getString("table"))).findFirst().orElseThrow();
        assertThat(pausedItems.getString("state")).isEqualTo("paused");
        assertThat(pausedItems.getLong("rows_done")).isPositive().isEqualTo(stored);
        assertThat(pausedItems.getValue("rows_estimated")).isNull();
        assertThat(table(pausedView, "public.items").getJsonObject("snapshot")).isEqualTo(pausedItems);
      });
      double chunksBefore = chunksDelivered(rb);
      up.txn("UPDATE public.items SET n = -1 WHERE id IN (4, 2998)", "DELETE FROM public.items WHERE id = 2997");
      limitSnapshotRows(admin, 0);
      assertThat(admin.send("POST", "/api/v1/changefeeds/load/resume", null).status()).isEqualTo(200);
      long last = up.txn("INSERT INTO public.items VALUES (5002, 'after', 1)");

      await().atMost(Duration.ofSeconds(90)).until(() -> {
        JsonObject cf = get(admin, "load");
        return cf.getLong("checkpoint_ts", 0L) >= last && "done".equals(cf.getJsonObject("snapshot").getString("state"));
      });
      assertThat(rows(downstream, "public.items")).isEqualTo(rows(up, "public.items")).hasSize(3000);
      assertThat(HostedChangefeedEndToEndTest.rows(downstream, "public.pairs", "a, b"))
          .isEqualTo(HostedChangefeedEndToEndTest.rows(up, "public.pairs", "a, b")).hasSize(250);
      // continued from the stored cursor: the rows applied add up to one table's worth (3000, 3002 with the two
      // inserted beyond the cursor, fewer by those the watermark merge left to the changes), not the stored ones again
      assertThat(storedRows(downstream, "load", "public.items")).isBetween(2900L, 3002L);
      double chunksAfter = chunksDelivered(rb) - chunksBefore;
      assertThat(chunksAfter).isLessThanOrEqualTo((3000 - stored) / CHUNK_ROWS + 3.0);
      JsonObject done = table(get(admin, "load"), "public.items").getJsonObject("snapshot");
      assertThat(done.getString("state")).isEqualTo("done");
      assertThat(done.getDouble("percent")).isEqualTo(100.0);
      assertThat(downstream.queryLong("SELECT snapshot_state FROM sluice_table_checkpoint WHERE changefeed_id = "
          + "'load' AND table_name = 'public.items'")).isEqualTo(3);   // DONE, so a restart never reads it again

      await().atMost(Duration.ofSeconds(10)).until(() -> {
        var g = rb.broker().meterRegistry().find("sluice.changefeed.snapshot.rows.done").tags("changefeed", "load",
            "table", "public.items").gauge();
        return g != null && g.value() >= 2900;
      });

      // once done, never again: a restart reads nothing
      double chunksDone = chunksDelivered(rb);
      assertThat(admin.send("POST", "/api/v1/changefeeds/load/pause", null).status()).isEqualTo(200);
      assertThat(admin.send("POST", "/api/v1/changefeeds/load/resume", null).status()).isEqualTo(200);
      long again = up.txn("UPDATE public.items SET v = 'again' WHERE id = 10");
      await().atMost(Duration.ofSeconds(60)).until(() -> get(admin, "load").getLong("checkpoint_ts", 0L) >= again);
      assertThat(chunksDelivered(rb)).isEqualTo(chunksDone);
      assertThat(rows(downstream, "public.items")).isEqualTo(rows(up, "public.items"));
    }
  }

  @Test
  void initialLoadNoneCopiesOnlyLaterChangesAndAnythingElseIsRefused(@TempDir Path dir) throws Exception {
    try (TestPostgres downstream = TestPostgres.start();
         RunningBroker rb = start(dir.resolve("broker"), "CREATE TABLE public.old (id int PRIMARY KEY, v text)",
             "INSERT INTO public.old SELECT g, 'v' || g FROM generate_series(1, 50) g")) {
      TestPostgres up = rb.upstream();
      AdminClient admin = rb.admin();
      rb.awaitResolved(up.currentLsn());
      Response bad = admin.send("POST", "/api/v1/changefeeds", definition("x", downstream).put("initial_load", "all"));
      assertThat(bad.status()).isEqualTo(400);
      assertThat(bad.json().getString("field")).isEqualTo("initial_load");

      Response created = admin.send("POST", "/api/v1/changefeeds", definition("changes", downstream)
          .put("initial_load", "none"));
      assertThat(created.status()).as(created.body()).isEqualTo(201);
      assertThat(created.json().getString("initial_load")).isEqualTo("none");
      long last = up.txn("INSERT INTO public.old VALUES (51, 'new')", "UPDATE public.old SET v = 'x' WHERE id = 2");
      await().atMost(Duration.ofSeconds(60)).until(() -> get(admin, "changes").getLong("checkpoint_ts", 0L) >= last);
      assertThat(rows(downstream, "public.old")).containsExactly("id=2|v=x", "id=51|v=new");
      assertThat(get(admin, "changes").getJsonObject("snapshot").getString("state")).isEqualTo("none");

      Response changed = admin.send("PATCH", "/api/v1/changefeeds/changes", new JsonObject().put("initial_load",
          "snapshot"));
      assertThat(changed.status()).isEqualTo(400);
      assertThat(changed.json().getString("field")).isEqualTo("initial_load");
    }
  }

  static JsonObject table(JsonObject changefeed, String name) {
    for (Object t : changefeed.getJsonArray("tables")) {
      if (((JsonObject) t).getString("table").equals(name)) {
        return (JsonObject) t;
      }
    }
    throw new AssertionError("no table " + name + " in " + changefeed.encodePrettily());
  }
}
