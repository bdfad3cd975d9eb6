package dev.sluice.broker.changefeed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sluice.broker.cli.AdminClient;
import dev.sluice.broker.cli.AdminClient.Response;
import dev.sluice.broker.testing.RunningBroker;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.dispatcher.changefeed.ChangefeedRuntime;
import dev.sluice.dispatcher.sink.Sink;
import dev.sluice.dispatcher.sink.SinkCheckpoint;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Lag means one thing for a changefeed and its tables (docs/CHANGEFEEDS.md, "Lag"), and table rules say
 * when they match nothing, against a real broker. Before: a new changefeed showed the lag since the
 * broker's start, a stalled table showed lag 0 while its changefeed lagged, a changefeed matching no
 * table never advanced, and regex-like rules were accepted silently.
 */
class ChangefeedLagAndRulesTest {

  @TempDir
  static Path dir;
  private static RunningBroker rb;
  private static AdminClient admin;

  @BeforeAll
  static void startBroker() {
    rb = RunningBroker.start(dir.resolve("broker"), ChangefeedConfig.defaults().withProgressInterval(
        Duration.ofMillis(100)), "CREATE TABLE public.items (id int PRIMARY KEY, v text)",
        "CREATE TABLE public.items_old (id int PRIMARY KEY)");
    admin = rb.admin();
  }

  @AfterAll
  static void stopBroker() {
    if (rb != null) {
      rb.close();
    }
  }

  private static JsonObject body(String id, String include, String sink) {
    return new JsonObject().put("id", id).put("include", new JsonArray().add(include)).put("sink_uri", sink)
        .put("options", new JsonObject().put("table_poll_interval_ms", 100));
  }

  private static JsonObject get(AdminClient client, String id) {
    return client.send("GET", "/api/v1/changefeeds/" + id, null).json();
  }

  /** How long the broker's first stored transaction has waited: its age, as far as lag can see. */
  private static long brokerAgeMs() {
    return new CommitClock(rb.broker().eventStore(), System::currentTimeMillis).lagMs(0);
  }

  @Test
  void aNewChangefeedLagsFromItsStartNotFromTheBrokersStart() {
    await().atMost(Duration.ofSeconds(30)).until(() -> brokerAgeMs() >= 4000);
    Response created = admin.send("POST", "/api/v1/changefeeds", body("fresh", "public.items",
        "jsonl:file:" + dir.resolve("fresh.jsonl")));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    for (JsonObject cf : List.of(created.json(), get(admin, "fresh"))) {
      long startTs = cf.getJsonObject("definition").getLong("start_ts");
      assertThat(cf.getLong("checkpoint_ts")).as(cf.encode()).isGreaterThanOrEqualTo(startTs);
      assertThat(cf.getLong("lag_ms")).as(cf.encode()).isLessThan(brokerAgeMs() - 2000);
    }
    assertThat(admin.send("DELETE", "/api/v1/changefeeds/fresh", null).status()).isEqualTo(204);
  }

  @Test
  void aChangefeedMatchingNoTableKeepsUpAndSaysWhichRuleMatchesNothing() {
    Logger runtimeLog = (Logger) LoggerFactory.getLogger(ChangefeedRuntime.class.getPackageName());   // the runtime and its table roster
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    runtimeLog.addAppender(logged);
    try {
      JsonObject created = admin.send("POST", "/api/v1/changefeeds", body("empty", "public.nothing_here",
          "jsonl:file:" + dir.resolve("empty.jsonl")).put("exclude", new JsonArray().add("public.no_such_*"))).json();
      long startTs = created.getJsonObject("definition").getLong("start_ts");
      rb.upstream().txn("INSERT INTO public.items VALUES (100, 'elsewhere')");
      await().atMost(Duration.ofSeconds(30)).until(() -> get(admin, "empty").getLong("checkpoint_ts") > startTs
          && get(admin, "empty").getJsonArray("warnings").size() == 2);
      JsonObject cf = get(admin, "empty");
      assertThat(cf.getJsonArray("warnings").getString(0)).contains("include rule \"public.nothing_here\" matches no"
          + " table");
      assertThat(cf.getJsonArray("warnings").getString(1)).contains("exclude rule \"public.no_such_*\" matches no table");
      long passed = rb.upstream().currentLsn();
      await().atMost(Duration.ofSeconds(30)).until(() -> get(admin, "empty").getLong("checkpoint_ts") >= passed - 1);
      assertThat(logged.list).anySatisfy(e -> {
        assertThat(e.getFormattedMessage()).contains("table rule matches no table");
        assertThat(e.getKeyValuePairs()).anySatisfy(kv -> assertThat(kv.value).isEqualTo("public.nothing_here"));
      });

      rb.upstream().exec("CREATE TABLE public.nothing_here (id int PRIMARY KEY)");
      await().atMost(Duration.ofSeconds(30)).until(() -> get(admin, "empty").getJsonArray("warnings").size() == 1
          && get(admin, "empty").getJsonArray("tables").size() == 1);
      assertThat(admin.send("DELETE", "/api/v1/changefeeds/empty", null).status()).isEqualTo(204);
    } finally {
      runtimeLog.detachAppender(logged);
    }
  }

  @Test
  void rulesThatLookLikeRegularExpressionsAreRefusedNamingTheRule() {
    for (String rule : List.of("public.(items|other)", "[abc].t", "public.items{2}")) {
      Response r = admin.send("POST", "/api/v1/changefeeds", body("regex", rule, "jsonl:stdout"));
      assertThat(r.status()).as(r.body()).isEqualTo(400);
      assertThat(r.json().getString("field")).isEqualTo("include");
      assertThat(r.json().getString("message")).contains("\"" + rule + "\" is not a glob").contains("* matches");
    }
  }

  @Test
  void theDryRunListsWhatRulesMatch() {
    JsonObject all = admin.send("GET", "/api/v1/tables", null).json();
    assertThat(all.getJsonArray("tables").stream().map(t -> ((JsonObject) t).getString("table")))
        .contains("public.items", "public.items_old");
    JsonObject items = all.getJsonArray("tables").stream().map(JsonObject.class::cast)
        .filter(t -> t.getString("table").equals("public.items")).findFirst().orElseThrow();
    assertThat(items.getJsonArray("primary_key")).containsExactly("id");

    Response dry = admin.send("GET", "/api/v1/tables?include=public.items*&exclude=public.*_old"
        + "&include=public.nothing", null);
    assertThat(dry.status()).as(dry.body()).isEqualTo(200);
    JsonObject d = dry.json();
    assertThat(d.getJsonArray("tables").stream().map(t -> ((JsonObject) t).getString("table")))
        .containsExactly("public.items");
    assertThat(d.getJsonArray("rules")).containsExactly(
        new JsonObject().put("rule", "public.items*").put("kind", "include").put("matches", 2),
        new JsonObject().put("rule", "public.nothing").put("kind", "include").put("matches", 0),
        new JsonObject().put("rule", "public.*_old").put("kind", "exclude").put("matches", 1));
    assertThat(d.getJsonArray("warnings").getString(0)).contains("include rule \"public.nothing\" matches no table");

    Response bad = admin.send("GET", "/api/v1/tables?include=" + URLEncoder.encode("demo.(x|y)",
        StandardCharsets.UTF_8), null);
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().getString("message")).contains("\"demo.(x|y)\" is not a glob");
    assertThat(admin.send("GET", "/api/v1/tables?exclude=public.*", null).status()).isEqualTo(400);
  }

  /** A stalled sink: the table and its changefeed fall behind together, by the same measure. */
  @Test
  void aStalledTableLagsAsMuchAsItsChangefeed() throws Exception {
    StallingSinks sinks = new StallingSinks();
    try (HostedStack stack = new HostedStack(rb.broker(), dir.resolve("store-stall"), ChangefeedConfig.defaults()
        .withProgressInterval(Duration.ofMillis(100)), sinks)) {
      AdminClient client = stack.admin();
      Path out = dir.resolve("stall.jsonl");
      assertThat(client.send("POST", "/api/v1/changefeeds", body("stall", "public.items", "jsonl:file:" + out))
          .status()).isEqualTo(201);
      rb.upstream().txn("INSERT INTO public.items VALUES (1, 'before the stall')");
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(out)
          && Files.readString(out).contains("before the stall"));

      sinks.stall = true;
      rb.upstream().txn("INSERT INTO public.items VALUES (2, 'held')");
      assertThat(sinks.stalled.await(30, TimeUnit.SECONDS)).isTrue();
      await().atMost(Duration.ofSeconds(30)).until(() -> get(client, "stall").getLong("lag_ms") >= 2000);
      JsonObject cf = get(client, "stall");
      JsonObject table = cf.getJsonArray("tables").getJsonObject(0);
      assertThat(table.getLong("lag_ms")).as(cf.encodePrettily()).isGreaterThanOrEqualTo(1500)
          .isLessThanOrEqualTo(cf.getLong("lag_ms"));
      assertThat(table.getLong("lag_ts")).as(cf.encodePrettily()).isPositive().isLessThanOrEqualTo(cf.getLong("lag_ts"));
      assertThat(cf.getLong("lag_ms") - table.getLong("lag_ms")).as(cf.encodePrettily()).isLessThan(1000);

      sinks.release.countDown();
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(out).contains("held")
          && get(client, "stall").getLong("lag_ms") < 1500);
      assertThat(client.send("DELETE", "/api/v1/changefeeds/stall", null).status()).isEqualTo(204);
    } finally {
      sinks.release.countDown();
    }
  }

  /** The real sinks, whose apply can be held (the only seam; everything else is the real broker). */
  static final class StallingSinks implements SinkConnector {
    final StandardSinkConnector real = new StandardSinkConnector(System.out);
    final CountDownLatch stalled = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    volatile boolean stall;

    @Override
    public Sink open(SinkUri uri, String changefeedId, ChangefeedOptions options, long fenceToken) {
      Sink sink = real.open(uri, changefeedId, options, fenceToken);
      return new Sink() {
        @Override
        public SinkCheckpoint checkpoint() {
          return sink.checkpoint();
        }

        @Override
        public void apply(List<Transaction> transactions, long changefeedCheckpointTs) {
          if (stall) {
            stalled.countDown();
            try {
              release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          sink.apply(transactions, changefeedCheckpointTs);
        }

        @Override
        public void applyDdl(DdlChange ddl, long changefeedCheckpointTs) {
          sink.applyDdl(ddl, changefeedCheckpointTs);
        }

        @Override
        public void advance(long changefeedCheckpointTs) {
          sink.advance(changefeedCheckpointTs);
        }

        @Override
        public void close() {
          sink.close();
        }
      };
    }

    @Override
    public void dropCheckpoint(SinkUri uri, String changefeedId) {
      real.dropCheckpoint(uri, changefeedId);
    }
  }
}
