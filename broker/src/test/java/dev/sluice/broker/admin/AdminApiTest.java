package dev.sluice.broker.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.changefeed.ChangefeedConfig;
import dev.sluice.broker.cli.AdminClient;
import dev.sluice.broker.cli.AdminClient.Response;
import dev.sluice.broker.testing.RunningBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import io.vertx.openapi.contract.Location;
import io.vertx.openapi.contract.OpenAPIContract;
import io.vertx.openapi.contract.Operation;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every admin endpoint against a real broker (real PostgreSQL upstream, real sockets), with the
 * errors the API promises: unknown parameters and fields are 400 naming them, unknown ids 404,
 * refused transitions 409 with the current state.
 */
class AdminApiTest {

  @TempDir
  static Path dir;
  private static RunningBroker rb;
  private static AdminClient admin;

  @BeforeAll
  static void startBroker() {
    rb = RunningBroker.start(dir.resolve("broker"), ChangefeedConfig.defaults().withProgressInterval(
        Duration.ofMillis(100)), "CREATE TABLE public.items (id int PRIMARY KEY, v text)",
        "CREATE TABLE public.tmp_scratch (id int PRIMARY KEY)");
    admin = rb.admin();
  }

  @AfterAll
  static void stopBroker() {
    if (rb != null) {
      rb.close();
    }
  }

  private JsonObject createBody(String id, Path out) {
    return new JsonObject().put("id", id).put("include", new JsonArray().add("public.*"))
        .put("exclude", new JsonArray().add("public.tmp_*")).put("sink_uri", "jsonl:file:" + out)
        .put("options", new JsonObject().put("table_poll_interval_ms", 100));
  }

  private static void assertError(Response r, int status, String code, String... mentions) {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    assertThat(r.contentType()).startsWith("application/json");
    assertThat(r.json().getString("code")).isEqualTo(code);
    assertThat(r.json().getString("message")).contains(mentions);
  }

  @Test
  void indexHealthReadinessAndMetricsAnswer() {
    Response index = admin.send("GET", "/", null);
    assertThat(index.status()).isEqualTo(200);
    assertThat(index.json().getJsonObject("links").getString("changefeeds")).isEqualTo("/api/v1/changefeeds");
    assertThat(admin.send("GET", "/healthz", null).json().getString("status")).isEqualTo("up");
    Response ready = admin.send("GET", "/readyz", null);
    assertThat(ready.status()).as(ready.body()).isEqualTo(200);
    Response metrics = admin.send("GET", "/metrics", null);
    assertThat(metrics.status()).isEqualTo(200);
    assertThat(metrics.contentType()).startsWith("text/plain");
    assertThat(metrics.body()).contains("sluice_admin_requests_total{method=\"GET\",route=\"/healthz\",status=\"200\"}")
        .contains("sluice_changefeed_state{state=\"normal\"}");
  }

  @Test
  void unknownRoutesAndMethodsAnswerJsonErrors() {
    assertError(admin.send("GET", "/api/v1/nothing", null), 404, "NOT_FOUND", "/api/v1/nothing");
    assertError(admin.send("DELETE", "/api/v1/changefeeds", null), 405, "METHOD_NOT_ALLOWED", "DELETE");
  }

  @Test
  void unknownQueryParametersAreRefusedNamingThem() {
    assertError(admin.send("GET", "/api/v1/changefeeds?verbose=1", null), 400, "UNKNOWN_FIELD", "verbose");
    assertError(admin.send("GET", "/healthz?x=1", null), 400, "UNKNOWN_FIELD", "x");
    assertError(admin.send("GET", "/api/v1/dispatchers?limit=many", null), 400, "INVALID_REQUEST", "limit");
    assertError(admin.send("GET", "/api/v1/changefeeds?state=RUNNING", null), 400, "INVALID_REQUEST", "state");
  }

  @Test
  void aDeleteWithAnUnknownParameterIsRefusedAndDeletesNothing() {
    assertThat(admin.send("POST", "/api/v1/changefeeds", createBody("guarded", dir.resolve("guarded.jsonl")))
        .status()).isEqualTo(201);
    // a server that ignored unknown parameters would turn a newer client's flag into a destructive delete
    assertError(admin.send("DELETE", "/api/v1/changefeeds/guarded?keep_meta=true&force=true", null), 400,
        "UNKNOWN_FIELD", "force");
    assertError(admin.send("DELETE", "/api/v1/changefeeds/guarded?keep_meta=yes", null), 400, "INVALID_REQUEST",
        "keep_meta");
    assertError(admin.send("DELETE", "/api/v1/changefeeds/guarded?keep_meta=true&keep_meta=false", null), 400,
        "INVALID_REQUEST", "keep_meta");
    assertError(admin.send("DELETE", "/api/v1/changefeeds/guarded", new JsonObject().put("keep_meta", true)), 400,
        "UNKNOWN_FIELD", "keep_meta");
    assertThat(admin.send("GET", "/api/v1/changefeeds/guarded", null).json().getString("state")).isEqualTo("NORMAL");
    assertThat(admin.send("DELETE", "/api/v1/changefeeds/guarded", null).status()).isEqualTo(204);
  }

  @Test
  void badCreateBodiesAreRefusedNamingTheField() {
    Path out = dir.resolve("bad.jsonl");
    assertError(admin.send("POST", "/api/v1/changefeeds", createBody("bad", out).put("sink", "x")), 400,
        "UNKNOWN_FIELD", "sink");
    assertError(admin.send("POST", "/api/v1/changefeeds", createBody("bad", out).put("options",
        new JsonObject().put("flush", true))), 400, "UNKNOWN_FIELD", "options.flush");
    assertError(admin.send("POST", "/api/v1/changefeeds", createBody("bad", out).put("start_ts", "now")), 400,
        "INVALID_REQUEST", "start_ts", "integer");
    assertError(admin.send("POST", "/api/v1/changefeeds", createBody("bad", out).put("sink_uri", "kafka://x")), 400,
        "INVALID_REQUEST", "sink_uri");
    assertError(admin.send("POST", "/api/v1/changefeeds", createBody("bad", out).put("sink_uri",
        "jdbc:postgresql://h:1/db?password=secret").put("include", new JsonArray())), 400, "INVALID_REQUEST", "include");
    assertError(admin.send("POST", "/api/v1/changefeeds", createBody("bad", out).put("include",
        new JsonArray().add("nodot"))), 400, "INVALID_REQUEST", "include");
    assertError(admin.send("POST", "/api/v1/changefeeds", createBody("bad/x", out)), 400, "INVALID_REQUEST", "id");
    assertError(admin.send("POST", "/api/v1/changefeeds", null), 400, "INVALID_REQUEST", "body");
    assertError(admin.send("POST", "/api/v1/changefeeds", new JsonObject().put("id", "bad")), 400, "INVALID_REQUEST",
        "sink_uri");
    assertThat(admin.send("GET", "/api/v1/changefeeds/bad", null).status()).isEqualTo(404);
  }

  @Test
  void unknownIdsAre404() {
    for (String[] call : List.of(new String[] {"GET", ""}, new String[] {"PATCH", ""}, new String[] {"PUT", ""},
        new String[] {"DELETE", ""}, new String[] {"POST", "/pause"}, new String[] {"POST", "/resume"},
        new String[] {"GET", "/deletion/1"})) {
      JsonObject body = call[0].startsWith("P") && call[1].isEmpty() ? new JsonObject().put("include",
          new JsonArray().add("public.*")).put("sink_uri", "jsonl:stdout") : null;
      assertError(admin.send(call[0], "/api/v1/changefeeds/missing" + call[1], body), 404, "NOT_FOUND", "missing");
    }
  }

  @Test
  void aChangefeedLivesThroughCreatePauseResumeUpdateAndDelete() throws Exception {
    Path out = dir.resolve("life.jsonl");
    Response created = admin.send("POST", "/api/v1/changefeeds", createBody("life", out));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.location()).contains("/api/v1/changefeeds/life");
    assertThat(created.json().getString("state")).isEqualTo("NORMAL");
    assertThat(created.json().getLong("generation")).isEqualTo(1);
    assertThat(created.json().getJsonObject("definition").getString("sink_uri")).isEqualTo("jsonl:file:" + out);

    Response again = admin.send("POST", "/api/v1/changefeeds", createBody("life", out));
    assertError(again, 409, "ID_IN_USE", "life");
    assertThat(again.json().getString("state")).isEqualTo("NORMAL");

    long lsn = rb.upstream().txn("INSERT INTO public.items VALUES (1, 'one')", "INSERT INTO public.tmp_scratch VALUES (9)");
    await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(out)
        && Files.readString(out, StandardCharsets.UTF_8).contains("\"op\":\"insert\""));
    await().atMost(Duration.ofSeconds(30)).until(() ->
        admin.send("GET", "/api/v1/changefeeds/life", null).json().getLong("checkpoint_ts") >= lsn - 1000);
    JsonObject got = admin.send("GET", "/api/v1/changefeeds/life", null).json();
    assertThat(got.getJsonArray("tables").size()).isEqualTo(1);
    JsonObject table = got.getJsonArray("tables").getJsonObject(0);
    assertThat(table.getString("table")).isEqualTo("public.items");
    assertThat(table.getString("dispatcher_state")).isEqualTo("STREAMING");
    assertThat(got.getLong("lag_ms")).isNotNull().isGreaterThanOrEqualTo(0);
    assertThat(Files.readString(out)).doesNotContain("tmp_scratch");

    Response dispatchers = admin.send("GET", "/api/v1/dispatchers?changefeed=life", null);
    assertThat(dispatchers.json().getInteger("total")).isEqualTo(1);
    JsonObject d = dispatchers.json().getJsonArray("dispatchers").getJsonObject(0);
    assertThat(d.getString("changefeed_id")).isEqualTo("life");
    assertThat(d.getLong("lag_ts")).isGreaterThanOrEqualTo(0);
    assertThat(d.containsKey("lag_ms")).isTrue();

    assertThat(admin.send("POST", "/api/v1/changefeeds/life/pause", null).json().getString("state")).isEqualTo("PAUSED");
    assertThat(admin.send("POST", "/api/v1/changefeeds/life/pause", null).status()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(30)).until(() -> admin.send("GET", "/api/v1/dispatchers?changefeed=life", null)
        .json().getInteger("total") == 0);   // the paused runtime removed its dispatchers
    assertThat(admin.send("GET", "/api/v1/changefeeds/life", null).json().getValue("lag_ms")).isNull();
    assertThat(admin.send("GET", "/api/v1/changefeeds?state=PAUSED", null).json().getJsonArray("changefeeds")
        .size()).isEqualTo(1);
    assertError(admin.send("POST", "/api/v1/changefeeds/life/pause", new JsonObject().put("now", true)), 400,
        "UNKNOWN_FIELD", "now");
    assertThat(admin.send("POST", "/api/v1/changefeeds/life/resume", null).json().getString("state"))
        .isEqualTo("NORMAL");

    assertError(admin.send("PATCH", "/api/v1/changefeeds/life", new JsonObject().put("start_ts", 1)), 400,
        "INVALID_REQUEST", "start_ts");
    assertError(admin.send("PATCH", "/api/v1/changefeeds/life", new JsonObject().put("sinkuri", "x")), 400,
        "UNKNOWN_FIELD", "sinkuri");
    Response patched = admin.send("PATCH", "/api/v1/changefeeds/life", new JsonObject().put("exclude",
        new JsonArray()).put("options", new JsonObject().put("max_batch_transactions", 7)));
    assertThat(patched.status()).as(patched.body()).isEqualTo(200);
    assertThat(patched.json().getJsonObject("definition").getJsonObject("options").getInteger("max_batch_transactions"))
        .isEqualTo(7);
    assertThat(patched.json().getJsonObject("definition").getJsonObject("options").getLong("table_poll_interval_ms"))
        .isEqualTo(100);
    // the update restarted the runtime from the checkpoint: the excluded table is followed from there on
    rb.upstream().txn("INSERT INTO public.tmp_scratch VALUES (10)", "INSERT INTO public.items VALUES (2, 'two')");
    await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(out).contains("\"id\":10"));
    String lines = Files.readString(out);
    assertThat(lines).doesNotContain("\"id\":9");
    // row 1's insert once: the restart resumed after it (the initial load read it too, as "op":"read")
    assertThat(lines.lines().filter(l -> l.contains("\"id\":1,") && l.contains("\"op\":\"insert\""))).hasSize(1);

    assertThat(admin.send("GET", "/api/v1/changefeeds", null).json().getJsonArray("changefeeds").stream()
        .map(o -> ((JsonObject) o).getString("id"))).contains("life");
    assertThat(admin.send("DELETE", "/api/v1/changefeeds/life", null).status()).isEqualTo(204);
    assertThat(admin.send("GET", "/api/v1/changefeeds/life", null).status()).isEqualTo(404);
    JsonObject deletion = admin.send("GET", "/api/v1/changefeeds/life/deletion/1", null).json();
    assertThat(deletion.getString("phase")).isEqualTo("COMPLETED");
    assertThat(deletion.getBoolean("keep_meta")).isFalse();
    assertThat(out.resolveSibling("life.jsonl.checkpoint")).doesNotExist();
  }

  @Test
  void putReplacesTheDefinitionAndNeedsItWhole() {
    Path out = dir.resolve("put.jsonl");
    assertThat(admin.send("POST", "/api/v1/changefeeds", createBody("put", out)).status()).isEqualTo(201);
    assertError(admin.send("PUT", "/api/v1/changefeeds/put", new JsonObject().put("include",
        new JsonArray().add("public.items"))), 400, "INVALID_REQUEST", "sink_uri");
    Response put = admin.send("PUT", "/api/v1/changefeeds/put", new JsonObject().put("include",
        new JsonArray().add("public.items")).put("sink_uri", "jsonl:file:" + out));
    assertThat(put.status()).as(put.body()).isEqualTo(200);
    JsonObject def = put.json().getJsonObject("definition");
    assertThat(def.getJsonArray("exclude")).isEmpty();
    assertThat(def.getJsonObject("options").getLong("table_poll_interval_ms")).isEqualTo(2000);
    assertThat(admin.send("DELETE", "/api/v1/changefeeds/put?keep_meta=false", null).status()).isEqualTo(204);
  }

  @Test
  void capturesMembersAndConfigDescribeTheNode() {
    JsonObject capture = admin.send("GET", "/api/v1/captures", null).json().getJsonArray("captures").getJsonObject(0);
    assertThat(capture.getString("state")).isEqualTo("STREAMING");
    assertThat(capture.getString("ddl_mode")).isEqualTo("EVENT_TRIGGER");
    assertThat(capture.getLong("resolved_ts")).isPositive();
    assertThat(capture.getJsonObject("position").containsKey("confirmed_lsn")).isTrue();

    JsonObject members = admin.send("GET", "/api/v1/members", null).json();
    assertThat(members.getString("this_node_id")).isEqualTo("node-a");
    JsonObject me = members.getJsonArray("members").getJsonObject(0);
    assertThat(me.getString("admin_address")).isEqualTo(rb.broker().adminAddress());
    assertThat(me.getString("grpc_address")).isEqualTo(rb.grpcAddress());

    JsonObject config = admin.send("GET", "/api/v1/config", null).json();
    assertThat(config.getJsonObject("limits").getInteger("scanConcurrency")).isPositive();
    assertThat(config.getJsonObject("settings").getJsonObject("nodeId").getString("value")).isEqualTo("node-a");
    assertThat(config.getJsonObject("settings").getJsonObject("nodeId").getString("source")).isEqualTo("api");
    Response patched = admin.send("PATCH", "/api/v1/config", new JsonObject().put("scanConcurrency", 3));
    assertThat(patched.status()).as(patched.body()).isEqualTo(200);
    JsonObject entry = patched.json().getJsonObject("settings").getJsonObject("eventService.limits.scanConcurrency");
    assertThat(entry.getInteger("value")).isEqualTo(3);
    assertThat(entry.getString("source")).isEqualTo("runtime");
    assertThat(admin.send("GET", "/api/v1/config", null).json().getJsonObject("limits").getInteger("scanConcurrency"))
        .isEqualTo(3);
    assertThat(rb.broker().eventService().limits().scanConcurrency()).isEqualTo(3);
    assertError(admin.send("PATCH", "/api/v1/config", new JsonObject().put("scanSpeed", 3)), 400, "UNKNOWN_FIELD",
        "scanSpeed");
    assertError(admin.send("PATCH", "/api/v1/config", new JsonObject().put("scanConcurrency", "3")), 400,
        "INVALID_REQUEST", "scanConcurrency");
    assertError(admin.send("PATCH", "/api/v1/config", new JsonObject().put("scanConcurrency", 0)), 400,
        "INVALID_REQUEST", "scanConcurrency must be in [1, 1024], got 0");
    assertError(admin.send("PATCH", "/api/v1/config", new JsonObject().put("eventService.gcRetention", 5)), 400,
        "INVALID_REQUEST", "eventService.gcRetention is fixed at start");
    assertThat(rb.broker().eventService().limits().scanConcurrency()).isEqualTo(3);
  }

  @Test
  void snapshotsAreListedTheirRatesChangeAtRuntimeAndAnUnknownOneIsNotFound() {
    JsonObject list = admin.send("GET", "/api/v1/snapshots", null).json();
    assertThat(list.getBoolean("available")).isTrue();
    assertThat(list.getInteger("readers")).isEqualTo(2);
    assertThat(list.getJsonArray("snapshots")).isEmpty();
    Response patched = admin.send("PATCH", "/api/v1/config", new JsonObject().put("snapshotRowsPerSecond", 5000)
        .put("snapshotBytesPerSecond", 1 << 20));
    assertThat(patched.status()).as(patched.body()).isEqualTo(200);
    assertThat(admin.send("GET", "/api/v1/snapshots", null).json().getLong("rows_per_second_limit")).isEqualTo(5000);
    assertThat(rb.broker().eventService().limits().snapshotBytesPerSecond()).isEqualTo(1 << 20);
    assertError(admin.send("PATCH", "/api/v1/config", new JsonObject().put("snapshotBytesPerSecond", 10)), 400,
        "INVALID_REQUEST", "snapshotBytesPerSecond must be 0 (no limit) or >= 1024, got 10");
    admin.send("PATCH", "/api/v1/config", new JsonObject().put("snapshotRowsPerSecond", null)
        .put("snapshotBytesPerSecond", null));
    assertThat(rb.broker().eventService().limits().snapshotRowsPerSecond()).isZero();
    assertError(admin.send("DELETE", "/api/v1/snapshots/00000000000000000000000000000042", null), 404, "NOT_FOUND",
        "no snapshot runs for dispatcher 00000000000000000000000000000042");
    assertError(admin.send("DELETE", "/api/v1/snapshots/xyz", null), 400, "INVALID_REQUEST",
        "dispatcher_id must be 32 hex digits, got \"xyz\"");
  }

  @Test
  void everyServedRouteIsDocumentedWithItsQueryParametersAndNothingElseIs() throws Exception {
    // the checkout's file when there is one (a -pl broker run may see an older api jar), else the classpath's
    Path yaml = Path.of("..", "api", "src", "main", "resources", "openapi", "sluice-admin-v1.yaml");
    if (!Files.exists(yaml)) {
      yaml = dir.resolve("sluice-admin-v1.yaml");
      try (var in = AdminApiTest.class.getResourceAsStream("/openapi/sluice-admin-v1.yaml")) {
        assertThat(in).as("the OpenAPI document on the classpath (api module)").isNotNull();
        Files.copy(in, yaml);
      }
    }
    // parsing validates the document against the OpenAPI 3.0 schema and resolves every $ref
    OpenAPIContract contract = OpenAPIContract.from(rb.broker().vertx(), yaml.toAbsolutePath().toString()).await(30, TimeUnit.SECONDS);
    Map<String, Set<String>> documented = new TreeMap<>();
    for (Operation op : contract.operations()) {
      Set<String> query = new TreeSet<>();
      op.getParameters().stream().filter(p -> p.getIn() == Location.QUERY).forEach(p -> query.add(p.getName()));
      documented.put(op.getHttpMethod().name() + " " + op.getOpenAPIPath(), query);
    }
    assertThat(documented).isEqualTo(rb.broker().admin().routes());

    String text = Files.readString(yaml);
    assertThat(text).contains("Deleting a running changefeed does not first flush it")
        .contains("`keep_meta=true` keeps:**").contains("It removes:").contains("Never removed:**");
  }
}
