package dev.sluice.broker.changefeed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.cli.AdminClient;
import dev.sluice.broker.cli.AdminClient.Response;
import dev.sluice.broker.testing.RunningBroker;
import dev.sluice.dispatcher.sink.Sink;
import dev.sluice.dispatcher.sink.SinkUnavailableException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DELETE with and without keep_meta over HTTP, against a real broker: what is kept and removed, the
 * resume from a kept checkpoint, the same-name race (driven with a held cleanup), a cleanup failure
 * that is reported and completes on retry, and a deletion that survives a restart of the supervisor.
 */
class ChangefeedDeletionTest {

  @TempDir
  static Path dir;
  private static RunningBroker rb;

  /** The real connector, with a cleanup that can be held on a latch or made to fail (the only seam). */
  static final class ControlledSinks implements SinkConnector {
    final StandardSinkConnector real = new StandardSinkConnector(System.out);
    final Map<String, AtomicInteger> drops = new ConcurrentHashMap<>();
    volatile CountDownLatch hold;
    volatile CountDownLatch held = new CountDownLatch(1);
    final AtomicInteger failuresLeft = new AtomicInteger();

    @Override
    public Sink open(SinkUri uri, String changefeedId, ChangefeedOptions options, long fenceToken) {
      return real.open(uri, changefeedId, options, fenceToken);
    }

    @Override
    public void dropCheckpoint(SinkUri uri, String changefeedId) {
      drops.computeIfAbsent(changefeedId, k -> new AtomicInteger()).incrementAndGet();
      CountDownLatch h = hold;
      if (h != null) {
        held.countDown();
        try {
          if (!h.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("test never released the cleanup");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new SinkUnavailableException("target unreachable (injected by the test)", null);
      }
      real.dropCheckpoint(uri, changefeedId);
    }
  }

  private static final ChangefeedConfig CONFIG = ChangefeedConfig.defaults().withDeleteWait(Duration.ofMillis(500))
      .withProgressInterval(Duration.ofMillis(100))
      .withCleanupBackoff(Duration.ofMinutes(5), Duration.ofMinutes(5));   // only the test retries

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

  private static JsonObject body(String id, Path out) {
    return new JsonObject().put("id", id).put("include", new JsonArray().add("public.items"))
        .put("sink_uri", "jsonl:file:" + out).put("options", new JsonObject().put("table_poll_interval_ms", 100));
  }

  private static void insertAndAwait(Path out, int id) {
    rb.upstream().txn("INSERT INTO public.items VALUES (" + id + ", 'v" + id + "')");
    await().atMost(Duration.ofSeconds(30)).until(() -> ids(out).containsKey(id));
  }

  /** How often each id appears in the file's insert lines. */
  private static Map<Integer, Integer> ids(Path out) throws IOException {
    Map<Integer, Integer> seen = new ConcurrentHashMap<>();
    if (!Files.exists(out)) {
      return seen;
    }
    Matcher m = Pattern.compile("\"op\":\"insert\".*?\"after\":\\{\"id\":(\\d+)").matcher(Files.readString(out));
    while (m.find()) {
      seen.merge(Integer.parseInt(m.group(1)), 1, Integer::sum);
    }
    return seen;
  }

  private static void awaitCheckpointPast(AdminClient admin, String id, long ts) {
    await().atMost(Duration.ofSeconds(30)).until(() -> admin.send("GET", "/api/v1/changefeeds/" + id, null).json()
        .getLong("checkpoint_ts", 0L) >= ts);
  }

  @Test
  void keepMetaKeepsTheCheckpointAndARecreateResumesFromIt() throws Exception {
    Path out = dir.resolve("km.jsonl");
    try (HostedStack stack = new HostedStack(rb.broker(), dir.resolve("store-km"), CONFIG, new ControlledSinks())) {
      AdminClient admin = stack.admin();
      assertThat(admin.send("POST", "/api/v1/changefeeds", body("km", out)).status()).isEqualTo(201);
      insertAndAwait(out, 101);
      long lsn = rb.upstream().currentLsn();
      awaitCheckpointPast(admin, "km", lsn - 1);

      assertThat(admin.send("DELETE", "/api/v1/changefeeds/km?keep_meta=true", null).status()).isEqualTo(204);
      assertThat(admin.send("GET", "/api/v1/changefeeds/km", null).status()).isEqualTo(404);
      JsonObject deletion = admin.send("GET", "/api/v1/changefeeds/km/deletion/1", null).json();
      assertThat(deletion.getString("phase")).isEqualTo("COMPLETED");
      assertThat(deletion.getBoolean("keep_meta")).isTrue();
      ChangefeedRecord tombstone = stack.supervisor().record("km");
      assertThat(tombstone.state()).isEqualTo(ChangefeedState.REMOVED);
      assertThat(tombstone.keptMeta()).isTrue();
      assertThat(tombstone.checkpoint().ts()).isGreaterThanOrEqualTo(lsn - 1);
      assertThat(tombstone.checkpoint().tables()).extracting(FeedCheckpoint.TableCheckpoint::table)
          .containsExactly("public.items");
      assertThat(out.resolveSibling("km.jsonl.checkpoint")).exists();   // the sink's own checkpoint is kept too

      rb.upstream().txn("INSERT INTO public.items VALUES (102, 'while deleted')");
      Response wrong = admin.send("POST", "/api/v1/changefeeds", body("km", out).put("start_ts", 0));
      assertThat(wrong.status()).isEqualTo(400);
      assertThat(wrong.json().getString("message")).contains("kept checkpoint");

      Response again = admin.send("POST", "/api/v1/changefeeds", body("km", out));
      assertThat(again.status()).as(again.body()).isEqualTo(201);
      assertThat(again.json().getLong("generation")).isEqualTo(2);
      assertThat(again.json().getJsonObject("definition").getLong("start_ts")).isEqualTo(tombstone.checkpoint().ts());
      insertAndAwait(out, 103);
      // resumed from the kept checkpoint: the change made while deleted arrives, nothing twice
      assertThat(ids(out)).containsEntry(101, 1).containsEntry(102, 1).containsEntry(103, 1);
      assertThat(admin.send("DELETE", "/api/v1/changefeeds/km", null).status()).isEqualTo(204);
    }
  }

  @Test
  void deletingWithoutKeepMetaRemovesTheCheckpointSoARecreateStartsFromNow() throws Exception {
    Path out = dir.resolve("rm.jsonl");
    try (HostedStack stack = new HostedStack(rb.broker(), dir.resolve("store-rm"), CONFIG, new ControlledSinks())) {
      AdminClient admin = stack.admin();
      assertThat(admin.send("POST", "/api/v1/changefeeds", body("rm", out)).status()).isEqualTo(201);
      insertAndAwait(out, 201);
      // the sink writes the checkpoint side file after the batch's lines (JsonLinesSink): wait for it too
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(out.resolveSibling("rm.jsonl.checkpoint")));

      assertThat(admin.send("DELETE", "/api/v1/changefeeds/rm?keep_meta=false", null).status()).isEqualTo(204);
      assertThat(out.resolveSibling("rm.jsonl.checkpoint")).doesNotExist();
      assertThat(out).exists();   // the lines already written are the user's data
      ChangefeedRecord tombstone = stack.supervisor().record("rm");
      assertThat(tombstone.keptMeta()).isFalse();
      assertThat(tombstone.checkpoint()).isEqualTo(FeedCheckpoint.NONE);
      assertThat(tombstone.generation()).isEqualTo(1);

      long before = rb.broker().eventStore().resolvedTs();
      Response again = admin.send("POST", "/api/v1/changefeeds", body("rm", out));
      assertThat(again.json().getLong("generation")).isEqualTo(2);
      assertThat(again.json().getJsonObject("definition").getLong("start_ts")).isGreaterThanOrEqualTo(
          Math.min(before, rb.broker().schemaStore().resolvedTs()));
      insertAndAwait(out, 202);
      assertThat(ids(out)).containsEntry(201, 1).containsEntry(202, 1);
      assertThat(admin.send("DELETE", "/api/v1/changefeeds/rm", null).status()).isEqualTo(204);
    }
  }

  @Test
  void aSameNameCreateWaitsForTheDeletionAndTheOldCleanupNeverTouchesTheNewGeneration() throws Exception {
    Path out = dir.resolve("race.jsonl");
    ControlledSinks sinks = new ControlledSinks();
    try (HostedStack stack = new HostedStack(rb.broker(), dir.resolve("store-race"), CONFIG, sinks)) {
      AdminClient admin = stack.admin();
      assertThat(admin.send("POST", "/api/v1/changefeeds", body("race", out)).status()).isEqualTo(201);
      insertAndAwait(out, 301);

      CountDownLatch release = new CountDownLatch(1);
      sinks.hold = release;
      Response deleting = admin.send("DELETE", "/api/v1/changefeeds/race", null);
      assertThat(deleting.status()).as(deleting.body()).isEqualTo(202);
      assertThat(deleting.location()).contains("/api/v1/changefeeds/race/deletion/1");
      assertThat(deleting.json().getString("phase")).isEqualTo("IN_PROGRESS");
      assertThat(sinks.held.await(30, TimeUnit.SECONDS)).isTrue();

      assertThat(admin.send("GET", "/api/v1/changefeeds/race", null).json().getString("state")).isEqualTo("REMOVING");
      assertThat(admin.send("GET", "/api/v1/changefeeds/race/deletion/1", null).json().getString("phase"))
          .isEqualTo("IN_PROGRESS");
      Response create = admin.send("POST", "/api/v1/changefeeds", body("race", out));
      assertThat(create.status()).isEqualTo(409);
      assertThat(create.json().getString("state")).isEqualTo("REMOVING");
      assertThat(create.json().getString("message")).contains("deletion/1");
      assertThat(admin.send("POST", "/api/v1/changefeeds/race/pause", null).status()).isEqualTo(409);
      assertThat(admin.send("POST", "/api/v1/changefeeds/race/resume", null).status()).isEqualTo(409);
      assertThat(admin.send("PATCH", "/api/v1/changefeeds/race", new JsonObject().put("exclude", new JsonArray()))
          .status()).isEqualTo(409);
      Response otherOptions = admin.send("DELETE", "/api/v1/changefeeds/race?keep_meta=true", null);
      assertThat(otherOptions.status()).isEqualTo(409);
      assertThat(otherOptions.json().getString("message")).contains("keep_meta=false");
      // a retry with the same options joins the running cleanup instead of starting a second one
      assertThat(admin.send("DELETE", "/api/v1/changefeeds/race", null).status()).isEqualTo(202);

      sinks.hold = null;
      release.countDown();
      await().atMost(Duration.ofSeconds(30)).until(() -> "COMPLETED".equals(admin.send("GET",
          "/api/v1/changefeeds/race/deletion/1", null).json().getString("phase")));
      Response recreated = admin.send("POST", "/api/v1/changefeeds", body("race", out));
      assertThat(recreated.status()).as(recreated.body()).isEqualTo(201);
      assertThat(recreated.json().getLong("generation")).isEqualTo(2);
      insertAndAwait(out, 302);
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(out.resolveSibling("race.jsonl.checkpoint")));

      // late reports of generation 1 (a stale cleanup end, a stale retry timer) must not touch generation 2
      ChangefeedRecord g2 = stack.supervisor().record("race");
      stack.supervisor().onDecider(() -> {
        stack.supervisor().deletions().onCleanupEnded("race", 1, null);
        stack.supervisor().reports().onRetryDue("race", 1, g2.nextRetryAtMs());
        return null;
      }).get(10, TimeUnit.SECONDS);
      ChangefeedRecord after = stack.supervisor().record("race");
      assertThat(after.generation()).isEqualTo(2);
      assertThat(after.state()).isEqualTo(ChangefeedState.NORMAL);
      assertThat(sinks.drops.get("race").get()).isEqualTo(1);   // one cleanup ran, for generation 1 only
      assertThat(out.resolveSibling("race.jsonl.checkpoint")).exists();
      assertThat(admin.send("DELETE", "/api/v1/changefeeds/race", null).status()).isEqualTo(204);
    }
  }

  @Test
  void aFailedCleanupIsReportedAndCompletesWhenTheDeleteIsRetried() throws Exception {
    Path out = dir.resolve("fail.jsonl");
    ControlledSinks sinks = new ControlledSinks();
    try (HostedStack stack = new HostedStack(rb.broker(), dir.resolve("store-fail"), CONFIG, sinks)) {
      AdminClient admin = stack.admin();
      assertThat(admin.send("POST", "/api/v1/changefeeds", body("fail", out)).status()).isEqualTo(201);
      insertAndAwait(out, 401);

      sinks.failuresLeft.set(1);
      Response failed = admin.send("DELETE", "/api/v1/changefeeds/fail", null);
      assertThat(failed.status()).as(failed.body()).isEqualTo(503);
      assertThat(failed.json().getString("code")).isEqualTo("SINK_UNAVAILABLE");
      assertThat(failed.json().getString("message")).contains("injected").contains("DELETE it again");
      assertThat(failed.location()).contains("/api/v1/changefeeds/fail/deletion/1");
      JsonObject status = admin.send("GET", "/api/v1/changefeeds/fail/deletion/1", null).json();
      assertThat(status.getString("phase")).isEqualTo("IN_PROGRESS");
      assertThat(status.getInteger("attempts")).isEqualTo(1);
      assertThat(status.getJsonObject("last_error").getString("message")).contains("injected");
      assertThat(admin.send("GET", "/api/v1/changefeeds/fail", null).json().getString("state")).isEqualTo("REMOVING");
      assertThat(out.resolveSibling("fail.jsonl.checkpoint")).exists();

      assertThat(admin.send("DELETE", "/api/v1/changefeeds/fail", null).status()).isEqualTo(204);
      JsonObject done = admin.send("GET", "/api/v1/changefeeds/fail/deletion/1", null).json();
      assertThat(done.getString("phase")).isEqualTo("COMPLETED");
      assertThat(done.getInteger("attempts")).isEqualTo(2);
      assertThat(out.resolveSibling("fail.jsonl.checkpoint")).doesNotExist();
    }
  }

  @Test
  void aDeletionInterruptedByARestartCompletesAfterIt() throws Exception {
    Path out = dir.resolve("restart.jsonl");
    Path storeDir = dir.resolve("store-restart");
    ControlledSinks failing = new ControlledSinks();
    try (HostedStack stack = new HostedStack(rb.broker(), storeDir, CONFIG, failing)) {
      assertThat(stack.admin().send("POST", "/api/v1/changefeeds", body("restart", out)).status()).isEqualTo(201);
      insertAndAwait(out, 501);
      failing.failuresLeft.set(Integer.MAX_VALUE);
      assertThat(stack.admin().send("DELETE", "/api/v1/changefeeds/restart", null).status()).isEqualTo(503);
    }
    ControlledSinks healthy = new ControlledSinks();
    try (HostedStack stack = new HostedStack(rb.broker(), storeDir, CONFIG, healthy)) {
      // REMOVING was persisted: the new supervisor continues the cleanup on its own
      await().atMost(Duration.ofSeconds(30)).until(() -> stack.supervisor().record("restart").state()
          == ChangefeedState.REMOVED);
      assertThat(healthy.drops.get("restart").get()).isEqualTo(1);
      assertThat(stack.admin().send("GET", "/api/v1/changefeeds/restart/deletion/1", null).json().getString("phase"))
          .isEqualTo("COMPLETED");
      assertThat(out.resolveSibling("restart.jsonl.checkpoint")).doesNotExist();
    }
  }
}
