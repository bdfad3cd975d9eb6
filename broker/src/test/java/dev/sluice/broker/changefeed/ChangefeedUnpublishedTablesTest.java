package dev.sluice.broker.changefeed;

import static dev.sluice.broker.changefeed.ChangefeedInitialLoadTest.definition;
import static dev.sluice.broker.changefeed.ChangefeedInitialLoadTest.get;
import static dev.sluice.broker.changefeed.ChangefeedInitialLoadTest.start;
import static dev.sluice.broker.changefeed.HostedChangefeedEndToEndTest.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.capture.TestPostgres;
import dev.sluice.broker.cli.AdminClient;
import dev.sluice.broker.cli.AdminClient.Response;
import dev.sluice.broker.testing.RunningBroker;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A changefeed whose rules match a table the user's publication leaves out: the table waits, visibly
 * ({@code NOT_PUBLISHED} with the fix in its note), the other tables go on and the changefeed does not fail; once
 * the table is added its rows are loaded and its changes follow. A table taken out of the publication while
 * followed gets a note, and is read again when it is back. Real upstream and downstream PostgreSQL.
 */
class ChangefeedUnpublishedTablesTest {

  @Test
  void aTableOutsideThePublicationWaitsVisiblyAndIsLoadedOnceAdded(@TempDir Path dir) throws Exception {
    try (TestPostgres downstream = TestPostgres.start();
         RunningBroker rb = start(dir.resolve("broker"), "CREATE TABLE public.items (id int PRIMARY KEY, v text)",
             "INSERT INTO public.items SELECT g, 'i' || g FROM generate_series(1, 200) g",
             "CREATE TABLE public.audit (id int PRIMARY KEY, v text)",
             "INSERT INTO public.audit SELECT g, 'a' || g FROM generate_series(1, 300) g",
             "CREATE PUBLICATION sluice_pub FOR TABLE public.items")) {
      TestPostgres up = rb.upstream();
      AdminClient admin = rb.admin();
      rb.awaitResolved(up.currentLsn());
      Response created = admin.send("POST", "/api/v1/changefeeds", definition("pub", downstream));
      assertThat(created.status()).as(created.body()).isEqualTo(201);

      long first = up.txn("UPDATE public.items SET v = 'changed' WHERE id = 7", "UPDATE public.audit SET v = 'lost'"
          + " WHERE id = 7");
      await().atMost(Duration.ofSeconds(60)).until(() -> get(admin, "pub").getLong("checkpoint_ts", 0L) >= first);
      JsonObject cf = get(admin, "pub");
      assertThat(cf.getString("state")).isEqualTo("NORMAL");
      JsonObject audit = table(cf, "public.audit");
      assertThat(audit.getString("phase")).isEqualTo("NOT_PUBLISHED");
      assertThat(audit.getString("note")).contains("publication leaves public.audit out")
          .contains("ALTER PUBLICATION ... ADD TABLE public.audit");
      assertThat(rows(downstream, "public.items")).isEqualTo(rows(up, "public.items")).hasSize(200);
      Response reread = admin.send("POST", "/api/v1/changefeeds/pub/snapshot", new JsonObject().put("tables",
          new io.vertx.core.json.JsonArray().add("public.audit")));
      assertThat(reread.status()).isEqualTo(400);
      assertThat(reread.json().getString("message")).contains("NOT_PUBLISHED").contains("ALTER PUBLICATION");

      // added: its rows are read (a snapshot, as the changefeed loads existing rows) and its changes follow
      up.exec("ALTER PUBLICATION sluice_pub ADD TABLE public.audit");
      await().atMost(Duration.ofSeconds(30)).until(() -> "FOLLOWING".equals(table(get(admin, "pub"), "public.audit")
          .getString("phase")));
      long after = up.txn("UPDATE public.audit SET v = 'followed' WHERE id = 8", "DELETE FROM public.audit WHERE id = 9");
      await().atMost(Duration.ofSeconds(60)).until(() -> {
        JsonObject now = get(admin, "pub");
        return now.getLong("checkpoint_ts", 0L) >= after
            && "done".equals(ChangefeedResnapshotTest.snapshotState(now, "public.audit"));
      });
      assertThat(rows(downstream, "public.audit")).isEqualTo(rows(up, "public.audit")).hasSize(299);

      // taken out while followed: said in its note; back in: read again, equal
      up.exec("ALTER PUBLICATION sluice_pub DROP TABLE public.audit");
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        String note = table(get(admin, "pub"), "public.audit").getString("note");
        return note != null && note.contains("left out of the upstream publication");
      });
      up.txn("UPDATE public.audit SET v = 'unseen' WHERE id < 50");
      up.exec("ALTER PUBLICATION sluice_pub ADD TABLE public.audit");
      long last = up.txn("INSERT INTO public.items VALUES (1000, 'end')");
      await().atMost(Duration.ofSeconds(60)).until(() -> {
        JsonObject now = get(admin, "pub");
        JsonObject t = table(now, "public.audit");
        return now.getLong("checkpoint_ts", 0L) >= last && t.getString("note") == null
            && "done".equals(ChangefeedResnapshotTest.snapshotState(now, "public.audit"));
      });
      assertThat(rows(downstream, "public.audit")).isEqualTo(rows(up, "public.audit"));
      assertThat(rows(downstream, "public.items")).isEqualTo(rows(up, "public.items"));
    }
  }

  private static JsonObject table(JsonObject changefeed, String name) {
    return changefeed.getJsonArray("tables").stream().map(JsonObject.class::cast)
        .filter(t -> t.getString("table").equals(name)).findFirst().orElseThrow(() -> new AssertionError(
            name + " not in " + changefeed.encodePrettily()));
  }
}
