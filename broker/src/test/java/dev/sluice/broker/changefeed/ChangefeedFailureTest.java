package dev.sluice.broker.changefeed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.capture.TestPostgres;
import dev.sluice.broker.cli.AdminClient;
import dev.sluice.broker.testing.RunningBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * FAILED and its retry policy against a real broker: a transient sink error is retried with backoff
 * until the sink comes up, the policy gives up after its attempts, a fatal error waits for RESUME,
 * and an update to another sink resumes from the checkpoint.
 */
class ChangefeedFailureTest {

  @TempDir
  static Path dir;
  private static RunningBroker rb;

  @BeforeAll
  static void startBroker() {
    rb = RunningBroker.start(dir.resolve("broker"), ChangefeedConfig.defaults(),
        "CREATE TABLE public.items (id int PRIMARY KEY, v text)");
  }

  @AfterAll
  static void stopBroker() {
    if (rb != null) {
      rb.close();
    }
  }

  private static ChangefeedConfig retrying(int maxAttempts) {
    return ChangefeedConfig.defaults().withRetryBackoff(Duration.ofMillis(100), Duration.ofMillis(400), maxAttempts)
        .withProgressInterval(Duration.ofMillis(100));
  }

  private static JsonObject body(String id, String sinkUri) {
    return new JsonObject().put("id", id).put("include", new JsonArray().add("public.items")).put("sink_uri", sinkUri)
        .put("options", new JsonObject().put("table_poll_interval_ms", 100));
  }

  private static JsonObject get(AdminClient admin, String id) {
    return admin.send("GET", "/api/v1/changefeeds/" + id, null).json();
  }

  @Test
  void aTransientSinkErrorIsRetriedWithBackoffUntilTheSinkComesUp() throws Exception {
    int port = freePort();
    try (HostedStack stack = new HostedStack(rb.broker(), dir.resolve("store-flaky"), retrying(0),
        new StandardSinkConnector(System.out))) {
      AdminClient admin = stack.admin();
      assertThat(admin.send("POST", "/api/v1/changefeeds?validate=false", body("flaky", "jdbc:postgresql://127.0.0.1:" + port
          + "/postgres?user=postgres")).status()).isEqualTo(201);
      await().atMost(Duration.ofSeconds(30)).until(() -> stack.supervisor().record("flaky").retryCount() >= 2);
      ChangefeedRecord failing = stack.supervisor().record("flaky");
      assertThat(failing.lastError().code()).isEqualTo("SINK_UNAVAILABLE");
      assertThat(failing.lastError().retryable()).isTrue();

      try (TestPostgres down = TestPostgres.start(Map.of(), port)) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
          JsonObject cf = get(admin, "flaky");
          return "NORMAL".equals(cf.getString("state")) && cf.getJsonArray("tables").size() == 1
              && "STREAMING".equals(cf.getJsonArray("tables").getJsonObject(0).getString("dispatcher_state"));
        });
        rb.upstream().txn("INSERT INTO public.items VALUES (1, 'after the sink came up')");
        await().atMost(Duration.ofSeconds(30)).until(() -> down.queryLong("SELECT count(*) FROM pg_class"
            + " WHERE oid = to_regclass('public.items')") == 1 && down.queryLong("SELECT count(*) FROM public.items"
            + " WHERE v = 'after the sink came up'") == 1);   // beside the rows other tests left, which it loads first
        // a good start resets the count: the next failure starts the backoff over
        await().atMost(Duration.ofSeconds(10)).until(() -> stack.supervisor().record("flaky").retryCount() == 0);
        assertThat(admin.send("DELETE", "/api/v1/changefeeds/flaky", null).status()).isEqualTo(204);
      }
    }
  }

  @Test
  void theRetryPolicyGivesUpAfterItsAttemptsAndResumeTriesAgain() throws Exception {
    int port = freePort();
    try (HostedStack stack = new HostedStack(rb.broker(), dir.resolve("store-giveup"), retrying(2),
        new StandardSinkConnector(System.out))) {
      AdminClient admin = stack.admin();
      assertThat(admin.send("POST", "/api/v1/changefeeds?validate=false", body("giveup", "jdbc:postgresql://127.0.0.1:" + port
          + "/postgres?user=postgres")).status()).isEqualTo(201);
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        ChangefeedRecord r = stack.supervisor().record("giveup");
        return r.state() == ChangefeedState.FAILED && r.retryCount() == 3;
      });
      JsonObject cf = get(admin, "giveup");
      assertThat(cf.getJsonObject("error").getString("message")).contains("gave up after 2 automatic restarts");
      assertThat(cf.getJsonObject("error").getBoolean("retryable")).isFalse();
      assertThat(cf.getJsonObject("retry").getValue("next_retry_at_ms")).isNull();

      JsonObject resumed = admin.send("POST", "/api/v1/changefeeds/giveup/resume", null).json();
      assertThat(resumed.getJsonObject("retry").getInteger("count")).isZero();
      await().atMost(Duration.ofSeconds(30)).until(() -> stack.supervisor().record("giveup").retryCount() >= 1);
      assertThat(admin.send("POST", "/api/v1/changefeeds/giveup/pause", null).json().getString("state"))
          .isEqualTo("PAUSED");
      assertThat(stack.supervisor().record("giveup").nextRetryAtMs()).isZero();
      assertThat(admin.send("DELETE", "/api/v1/changefeeds/giveup?keep_meta=true", null).status()).isEqualTo(204);
    }
  }

  @Test
  void aFatalErrorWaitsForResume() throws Exception {
    Path out = dir.resolve("fatal.jsonl");
    Path side = dir.resolve("fatal.jsonl.checkpoint");
    Files.writeString(side, "{\"changefeed_id\":\"someone-else\",\"checkpoint_ts\":0,\"tables\":[]}");
    try (HostedStack stack = new HostedStack(rb.broker(), dir.resolve("store-fatal"), retrying(0),
        new StandardSinkConnector(System.out))) {
      AdminClient admin = stack.admin();
      assertThat(admin.send("POST", "/api/v1/changefeeds", body("fatal", "jsonl:file:" + out)).status()).isEqualTo(201);
      await().atMost(Duration.ofSeconds(30)).until(() -> "FAILED".equals(get(admin, "fatal").getString("state")));
      JsonObject cf = get(admin, "fatal");
      assertThat(cf.getJsonObject("error").getString("code")).isEqualTo("INTERNAL");
      assertThat(cf.getJsonObject("error").getString("message")).contains("someone-else");
      assertThat(cf.getJsonObject("retry").getValue("next_retry_at_ms")).isNull();
      assertThat(stack.supervisor().record("fatal").nextRetryAtMs()).isZero();

      Files.delete(side);   // the operator fixes it
      assertThat(admin.send("POST", "/api/v1/changefeeds/fatal/resume", null).status()).isEqualTo(200);
      rb.upstream().txn("INSERT INTO public.items VALUES (2, 'after resume')");
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(out)
          && Files.readString(out).contains("after resume"));
      assertThat(get(admin, "fatal").getValue("error")).isNull();
      assertThat(admin.send("DELETE", "/api/v1/changefeeds/fatal", null).status()).isEqualTo(204);
    }
  }

  @Test
  void anUpdateToAnotherSinkResumesFromTheCheckpoint() throws Exception {
    Path first = dir.resolve("first.jsonl");
    Path second = dir.resolve("second.jsonl");
    try (HostedStack stack = new HostedStack(rb.broker(), dir.resolve("store-move"), retrying(0),
        new StandardSinkConnector(System.out))) {
      AdminClient admin = stack.admin();
      assertThat(admin.send("POST", "/api/v1/changefeeds", body("move", "jsonl:file:" + first)).status())
          .isEqualTo(201);
      rb.upstream().txn("INSERT INTO public.items VALUES (3, 'to the first sink')");
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(first)
          && Files.readString(first).contains("to the first sink"));
      long lsn = rb.upstream().currentLsn();
      await().atMost(Duration.ofSeconds(30)).until(() -> get(admin, "move").getLong("checkpoint_ts") >= lsn - 1);

      JsonObject patched = admin.send("PATCH", "/api/v1/changefeeds/move", new JsonObject().put("sink_uri",
          "jsonl:file:" + second)).json();
      assertThat(patched.getString("state")).isEqualTo("NORMAL");
      rb.upstream().txn("INSERT INTO public.items VALUES (4, 'to the second sink')");
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(second)
          && Files.readString(second).contains("to the second sink"));
      assertThat(Files.readString(second)).doesNotContain("to the first sink");
      assertThat(Files.readString(first)).doesNotContain("to the second sink");
      assertThat(admin.send("DELETE", "/api/v1/changefeeds/move", null).status()).isEqualTo(204);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
