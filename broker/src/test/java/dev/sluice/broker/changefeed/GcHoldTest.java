package dev.sluice.broker.changefeed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.ServeConfig;
import dev.sluice.broker.cli.AdminClient;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.testing.RunningBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #16, case 6, against a real broker whose GC runs every 50 ms with a 1 ms retention: a paused
 * changefeed's checkpoint holds the GC (it failed before: the GC followed only live dispatchers and the
 * retention), is warned about in the last fifth of its gc_ttl_s and expires after it, on the supervisor's
 * injected clock; a kept checkpoint can be purged.
 */
class GcHoldTest {

  private static final long HOUR_MS = Duration.ofHours(1).toMillis();

  private static RunningBroker broker(Path dir) {
    return RunningBroker.start(dir.resolve("broker"), ChangefeedConfig.defaults(), ServeConfig.ephemeral()
            .withEventService(EventServiceConfig.defaults().withGc(Duration.ofMillis(50), Duration.ofMillis(1))),
        "CREATE TABLE public.items (id int PRIMARY KEY, v text)");
  }

  private static JsonObject create(AdminClient admin, String id, Path sink) {
    AdminClient.Response r = admin.send("POST", "/api/v1/changefeeds", new JsonObject().put("id", id)
        .put("include", new JsonArray().add("public.items")).put("sink_uri", "jsonl:file:" + sink)
        .put("options", new JsonObject().put("table_poll_interval_ms", 100).put("gc_ttl_s", 24 * 3600)));
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    return r.json();
  }

  private static JsonObject get(AdminClient admin, String id) {
    return admin.send("GET", "/api/v1/changefeeds/" + id, null).json();
  }

  @Test
  void aPausedCheckpointHoldsTheGcUntilItsTtlThenExpiresLoudly(@TempDir Path dir) throws Exception {
    AtomicLong now = new AtomicLong(System.currentTimeMillis());
    try (RunningBroker rb = broker(dir);
         HostedStack stack = new HostedStack(rb.broker(), dir.resolve("store"), ChangefeedConfig.defaults()
             .withProgressInterval(Duration.ofMillis(100)), new StandardSinkConnector(System.out), now::get)) {
      AdminClient admin = stack.admin();
      create(admin, "held", dir.resolve("held.jsonl"));
      long first = rb.upstream().txn("INSERT INTO public.items VALUES (1, 'a')");
      await().atMost(Duration.ofSeconds(60)).until(() -> get(admin, "held").getLong("checkpoint_ts") >= first);
      assertThat(admin.send("POST", "/api/v1/changefeeds/held/pause", null).status()).isEqualTo(200);
      for (int i = 2; i < 20; i++) {
        rb.upstream().txn("INSERT INTO public.items VALUES (" + i + ", 'after the pause')");
      }
      rb.awaitResolved(rb.upstream().currentLsn());
      // nothing else holds it: the GC goes exactly as far as the paused checkpoint, and no further
      // the pause stops the runtime in the background, whose last checkpoint may still move the record's
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        long kept = stack.supervisor().record("held").checkpoint().ts();
        assertThat(rb.broker().eventStore().gcTs()).as("GC point with a paused checkpoint at %d", kept).isEqualTo(kept);
      });
      long held = stack.supervisor().record("held").checkpoint().ts();
      await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
          .until(() -> rb.broker().eventStore().gcTs() == held);
      assertThat(get(admin, "held").getJsonObject("gc_hold").getString("phase")).isEqualTo("HOLDING");

      now.addAndGet(20 * HOUR_MS);   // in the last fifth of its 24 h
      stack.checkGcHolds();
      JsonObject hold = get(admin, "held").getJsonObject("gc_hold");
      assertThat(hold.getString("phase")).isEqualTo("EXPIRING");
      assertThat(hold.getLong("held_ts")).isEqualTo(held);
      assertThat(stack.registry().get("sluice.changefeed.gc.hold.remaining.ms").tag("changefeed", "held").gauge()
          .value()).isBetween(3.9 * HOUR_MS, 4.0 * HOUR_MS);
      assertThat(rb.broker().eventStore().gcTs()).isEqualTo(held);

      now.addAndGet(5 * HOUR_MS);
      stack.checkGcHolds();
      assertThat(get(admin, "held").getJsonObject("gc_hold").getString("phase")).isEqualTo("EXPIRED");
      assertThat(stack.registry().get("sluice.changefeed.gc.hold.expired").tag("changefeed", "held").gauge().value())
          .isEqualTo(1.0);
      assertThat(stack.supervisor().record("held").gc().expiredAtMs()).isEqualTo(now.get());
      await().atMost(Duration.ofSeconds(30)).until(() -> rb.broker().eventStore().gcTs() > held);

      // resuming it now cannot work, and says why
      assertThat(admin.send("POST", "/api/v1/changefeeds/held/resume", null).status()).isEqualTo(200);
      await().atMost(Duration.ofSeconds(60)).until(() -> "FAILED".equals(get(admin, "held").getString("state")));
      JsonObject error = get(admin, "held").getJsonObject("error");
      assertThat(error.getString("code")).isEqualTo("START_TS_BELOW_GC");
      assertThat(error.getString("message")).contains("GC hold expired").contains("gc_ttl_s");
    }
  }

  @Test
  void aKeptCheckpointHoldsTheGcUntilPurged(@TempDir Path dir) throws Exception {
    Path sink = dir.resolve("kept.jsonl");
    try (RunningBroker rb = broker(dir);
         HostedStack stack = new HostedStack(rb.broker(), dir.resolve("store"), ChangefeedConfig.defaults()
             .withProgressInterval(Duration.ofMillis(100)), new StandardSinkConnector(System.out))) {
      AdminClient admin = stack.admin();
      create(admin, "kept", sink);
      long first = rb.upstream().txn("INSERT INTO public.items VALUES (1, 'a')");
      await().atMost(Duration.ofSeconds(60)).until(() -> get(admin, "kept").getLong("checkpoint_ts") >= first);
      assertThat(admin.send("DELETE", "/api/v1/changefeeds/kept?keep_meta=true", null).status()).isEqualTo(204);
      long held = stack.supervisor().record("kept").checkpoint().ts();
      Path side = dir.resolve("kept.jsonl.checkpoint");
      assertThat(side).exists();

      rb.upstream().txn("INSERT INTO public.items VALUES (2, 'b')");
      rb.awaitResolved(rb.upstream().currentLsn());
      await().atMost(Duration.ofSeconds(30)).until(() -> rb.broker().eventStore().gcTs() == held);

      assertThat(admin.send("DELETE", "/api/v1/changefeeds/kept?purge=true&keep_meta=true", null).status())
          .isEqualTo(400);
      assertThat(admin.send("DELETE", "/api/v1/changefeeds/kept?purge=true", null).status()).isEqualTo(204);
      assertThat(Files.exists(side)).isFalse();
      assertThat(stack.supervisor().record("kept").keptMeta()).isFalse();
      await().atMost(Duration.ofSeconds(30)).until(() -> rb.broker().eventStore().gcTs() > held);
      assertThat(admin.send("DELETE", "/api/v1/changefeeds/kept?purge=true", null).status()).isEqualTo(404);

      // created again it starts afresh: a start_ts may be given, as for an id never used
      AdminClient.Response again = admin.send("POST", "/api/v1/changefeeds", new JsonObject().put("id", "kept")
          .put("include", new JsonArray().add("public.items")).put("sink_uri", "jsonl:file:" + sink)
          .put("start_ts", rb.broker().eventStore().resolvedTs()));
      assertThat(again.status()).as(again.body()).isEqualTo(201);
    }
  }
}
