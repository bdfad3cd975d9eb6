package dev.sluice.broker.changefeed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.cli.AdminClient;
import dev.sluice.broker.cli.AdminClient.Response;
import dev.sluice.broker.testing.RunningBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a changefeed's sink must pass to be created or updated, against a real broker with the default file sink
 * directory ({@code <data dir>/sinks}) and a real PostgreSQL as JDBC target: files only inside that directory,
 * one changefeed per file, and a sink that works now, unless {@code ?validate=false}. Before, the admin API
 * created {@code /nonexistent/dir} as the server's user, took a second writer of a file, and answered 201 to
 * sinks that could not work.
 */
class SinkAdmissionTest {

  @TempDir
  static Path dir;
  private static RunningBroker rb;
  private static AdminClient admin;
  private static Path sinks;

  @BeforeAll
  static void startBroker() {
    rb = RunningBroker.startAsConfigured(dir.resolve("data"), ChangefeedConfig.defaults(),
        "CREATE TABLE public.items (id int PRIMARY KEY, v text)");
    admin = rb.admin();
    sinks = dir.resolve("data").resolve("sinks").toAbsolutePath();
  }

  @AfterAll
  static void stopBroker() {
    if (rb != null) {
      rb.close();
    }
  }

  private static JsonObject body(String id, String sinkUri) {
    return new JsonObject().put("id", id).put("include", new JsonArray().add("public.items")).put("sink_uri", sinkUri)
        .put("options", new JsonObject().put("table_poll_interval_ms", 100));
  }

  private static void assertError(Response r, int status, String code, String... mentions) {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    assertThat(r.json().getString("code")).as(r.body()).isEqualTo(code);
    assertThat(r.json().getString("message")).contains(mentions);
  }

  @Test
  void aFileOutsideTheSinkDirectoryIsRefusedNamingItAndNothingIsCreated() {
    Path outside = dir.resolve("nonexistent").resolve("dir");
    assertError(admin.send("POST", "/api/v1/changefeeds", body("outside", "jsonl:file:" + outside.resolve("x.jsonl"))),
        400, "INVALID_REQUEST", "outside the file sink directory " + sinks, "setting changefeeds.fileSinkDir");
    assertThat(dir.resolve("nonexistent")).doesNotExist();
    assertError(admin.send("POST", "/api/v1/changefeeds?validate=false", body("up", "jsonl:file:../up.jsonl")), 400,
        "INVALID_REQUEST", "outside the file sink directory");
    assertError(admin.send("POST", "/api/v1/changefeeds", body("etc", "jsonl:file:/etc/sluice.jsonl")), 400,
        "INVALID_REQUEST", "outside the file sink directory");
    assertThat(admin.send("GET", "/api/v1/changefeeds/outside", null).status()).isEqualTo(404);
  }

  @Test
  void aLinkInsideTheSinkDirectoryThatLeadsOutIsRefused() throws IOException {
    Files.createDirectories(sinks);
    Files.createDirectories(dir.resolve("elsewhere"));
    Files.createSymbolicLink(sinks.resolve("escape"), dir.resolve("elsewhere"));
    assertError(admin.send("POST", "/api/v1/changefeeds", body("link", "jsonl:file:escape/x.jsonl")), 400,
        "INVALID_REQUEST", "outside the file sink directory");
    assertThat(dir.resolve("elsewhere").resolve("x.jsonl")).doesNotExist();
  }

  @Test
  void aRelativeFileIsTakenInTheSinkDirectoryAndASecondWriterIsRefusedUntilTheFirstIsGone() throws Exception {
    Response created = admin.send("POST", "/api/v1/changefeeds", body("first", "jsonl:file:shared/orders.jsonl"));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    Path file = sinks.resolve("shared").resolve("orders.jsonl");
    assertThat(created.json().getJsonObject("definition").getString("sink_uri")).isEqualTo("jsonl:file:" + file);
    rb.upstream().txn("INSERT INTO public.items VALUES (1, 'relative')");
    await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(file) && Files.readString(file).contains("relative"));

    Response same = admin.send("POST", "/api/v1/changefeeds", body("second", "jsonl:file:" + file));
    assertError(same, 409, "SINK_IN_USE", file.toString(), "\"first\"");
    assertThat(same.json().getString("changefeed")).isEqualTo("first");
    assertError(admin.send("POST", "/api/v1/changefeeds", body("second", "jsonl:file:shared/orders.jsonl.checkpoint")),
        409, "SINK_IN_USE", "\"first\"");
    assertThat(admin.send("POST", "/api/v1/changefeeds", body("second", "jsonl:file:second.jsonl")).status())
        .isEqualTo(201);
    assertError(admin.send("PATCH", "/api/v1/changefeeds/second", new JsonObject().put("sink_uri",
        "jsonl:file:shared/orders.jsonl")), 409, "SINK_IN_USE", "\"first\"");
    assertThat(admin.send("GET", "/api/v1/changefeeds/second", null).json().getJsonObject("definition")
        .getString("sink_uri")).isEqualTo("jsonl:file:" + sinks.resolve("second.jsonl"));

    assertThat(admin.send("DELETE", "/api/v1/changefeeds/first", null).status()).isEqualTo(204);
    Response moved = admin.send("PATCH", "/api/v1/changefeeds/second", new JsonObject().put("sink_uri",
        "jsonl:file:shared/orders.jsonl"));
    assertThat(moved.status()).as(moved.body()).isEqualTo(200);
    assertThat(admin.send("DELETE", "/api/v1/changefeeds/second", null).status()).isEqualTo(204);
  }

  @Test
  void aJdbcSinkThatCannotWorkIsRefusedWithWhatFailedUnlessValidateIsFalse() throws Exception {
    int closed = freePort();
    String unreachable = "jdbc:postgresql://127.0.0.1:" + closed + "/postgres?user=postgres&password=hunter22-x";
    Response refused = admin.send("POST", "/api/v1/changefeeds", body("unreachable", unreachable));
    assertError(refused, 400, "SINK_CHECK_FAILED", "does not work", "refused", "validate=false");
    assertThat(refused.json().getString("field")).isEqualTo("sink_uri");
    assertThat(refused.body()).doesNotContain("hunter22-x").contains("password=***");
    assertThat(admin.send("GET", "/api/v1/changefeeds/unreachable", null).status()).isEqualTo(404);

    String noDatabase = "jdbc:postgresql://127.0.0.1:" + rb.upstream().port() + "/nosuchdb?user=postgres";
    assertError(admin.send("POST", "/api/v1/changefeeds", body("nodb", noDatabase)), 400, "SINK_CHECK_FAILED",
        "nosuchdb", "does not exist");
    String noRole = "jdbc:postgresql://127.0.0.1:" + rb.upstream().port() + "/postgres?user=nobody";
    assertError(admin.send("POST", "/api/v1/changefeeds", body("norole", noRole)), 400, "SINK_CHECK_FAILED",
        "nobody");
    assertError(admin.send("POST", "/api/v1/changefeeds?validate=maybe", body("x", noRole)), 400, "INVALID_REQUEST",
        "validate");

    // skipped: created, and it fails and retries as before
    Response skipped = admin.send("POST", "/api/v1/changefeeds?validate=false", body("unreachable", unreachable));
    assertThat(skipped.status()).as(skipped.body()).isEqualTo(201);
    await().atMost(Duration.ofSeconds(30)).until(() -> admin.send("GET", "/api/v1/changefeeds/unreachable", null)
        .json().getValue("error") != null);
    assertThat(admin.send("DELETE", "/api/v1/changefeeds/unreachable?keep_meta=true", null).status()).isEqualTo(204);
  }

  @Test
  void anUpdateChecksANewSinkAndKeepsTheOldOneWhenItFails() throws Exception {
    String good = "jdbc:postgresql://127.0.0.1:" + rb.upstream().port() + "/postgres?user=postgres";
    Response created = admin.send("POST", "/api/v1/changefeeds", body("mover", good).put("options",
        new JsonObject().put("target_schema", "mover_copy")));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    String bad = "jdbc:postgresql://127.0.0.1:" + freePort() + "/postgres?user=postgres";
    assertError(admin.send("PATCH", "/api/v1/changefeeds/mover", new JsonObject().put("sink_uri", bad)), 400,
        "SINK_CHECK_FAILED", "does not work");
    assertThat(admin.send("GET", "/api/v1/changefeeds/mover", null).json().getJsonObject("definition")
        .getString("sink_uri")).isEqualTo(good);
    // no new sink, no check
    Response patched = admin.send("PATCH", "/api/v1/changefeeds/mover", new JsonObject().put("exclude",
        new JsonArray().add("public.tmp")));
    assertThat(patched.status()).as(patched.body()).isEqualTo(200);
    Response skipped = admin.send("PATCH", "/api/v1/changefeeds/mover?validate=false", new JsonObject()
        .put("sink_uri", bad));
    assertThat(skipped.status()).as(skipped.body()).isEqualTo(200);
    assertThat(admin.send("DELETE", "/api/v1/changefeeds/mover?keep_meta=true", null).status()).isEqualTo(204);
  }

  @Test
  void aFileSinkWhosePathIsADirectoryIsRefused() throws IOException {
    Files.createDirectories(sinks.resolve("adir.jsonl"));
    assertError(admin.send("POST", "/api/v1/changefeeds", body("adir", "jsonl:file:adir.jsonl")), 400,
        "SINK_CHECK_FAILED", "not a regular file");
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
