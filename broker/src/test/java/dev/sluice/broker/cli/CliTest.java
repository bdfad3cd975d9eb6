package dev.sluice.broker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.broker.SluiceCommand;
import dev.sluice.broker.changefeed.ChangefeedConfig;
import dev.sluice.broker.testing.RunningBroker;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The {@code sluice} client commands in this JVM against a running broker: output and exit codes. */
class CliTest {

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

  /** One run of {@code sluice args...}: its exit code, stdout and stderr. */
  record Run(int code, String out, String err) {}

  private static Run sluice(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = new CommandLine(new SluiceCommand()).setOut(new PrintWriter(out, true))
        .setErr(new PrintWriter(err, true)).execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  private static Run admin(String... args) {
    List<String> all = new ArrayList<>(Arrays.asList(args));
    all.add("--server");
    all.add(rb.adminUrl());
    return sluice(all.toArray(String[]::new));
  }

  @Test
  void changefeedCommandsPrintAndExitWithDocumentedCodes() {
    String sink = "jsonl:file:" + dir.resolve("cli.jsonl");
    Run created = admin("changefeed", "create", "cli", "--include", "public.*", "--sink-uri", sink,
        "--option", "table_poll_interval_ms=100");
    assertThat(created.code()).as(created.err()).isEqualTo(ExitCode.OK);
    assertThat(created.out()).contains("id:          cli (generation 1)").contains("state:       NORMAL");

    Run again = admin("changefeed", "create", "cli", "--include", "public.*", "--sink-uri", sink);
    assertThat(again.code()).isEqualTo(ExitCode.CONFLICT);
    assertThat(again.err()).contains("sluice: ID_IN_USE:");

    Run json = admin("changefeed", "get", "cli", "--json");
    assertThat(json.code()).isEqualTo(ExitCode.OK);
    assertThat(new JsonObject(json.out()).getString("state")).isEqualTo("NORMAL");

    Run list = admin("changefeed", "list");
    assertThat(list.out()).contains("ID").contains("cli").contains(sink);

    assertThat(admin("changefeed", "pause", "cli").out()).contains("PAUSED");
    assertThat(admin("changefeed", "list", "--state", "PAUSED").out()).contains("cli");
    assertThat(admin("changefeed", "resume", "cli").out()).contains("NORMAL");
    Run updated = admin("changefeed", "update", "cli", "--exclude", "public.tmp_*");
    assertThat(updated.code()).as(updated.err()).isEqualTo(ExitCode.OK);
    assertThat(updated.out()).contains("exclude [\"public.tmp_*\"]");

    Run badUri = admin("changefeed", "create", "other", "--include", "public.*", "--sink-uri", "kafka://x");
    assertThat(badUri.code()).isEqualTo(ExitCode.USAGE);
    assertThat(badUri.err()).contains("sink_uri");
    assertThat(admin("changefeed", "get", "nobody").code()).isEqualTo(ExitCode.NOT_FOUND);
    assertThat(admin("changefeed", "pause", "nobody").err()).contains("NOT_FOUND");
    assertThat(admin("changefeed", "get", "cli", "--verbose").code()).isEqualTo(ExitCode.USAGE);
    assertThat(sluice("changefeed", "list", "--server", "http://127.0.0.1:1").code()).isEqualTo(ExitCode.SERVER);

    Run deleted = admin("changefeed", "delete", "cli", "--keep-meta");
    assertThat(deleted.code()).as(deleted.err()).isEqualTo(ExitCode.OK);
    assertThat(deleted.out()).contains("deleted cli (metadata kept)");
    assertThat(admin("changefeed", "delete", "cli").code()).isEqualTo(ExitCode.NOT_FOUND);
    assertThat(dir.resolve("cli.jsonl.checkpoint")).exists();

    Run purged = admin("changefeed", "purge", "cli");   // the kept checkpoint could not be removed before
    assertThat(purged.code()).as(purged.err()).isEqualTo(ExitCode.OK);
    assertThat(purged.out()).contains("purged cli");
    assertThat(dir.resolve("cli.jsonl.checkpoint")).doesNotExist();
    assertThat(admin("changefeed", "purge", "cli").code()).isEqualTo(ExitCode.NOT_FOUND);
  }

  @Test
  void helpNamesTheExitCodes() {
    for (String[] cmd : List.of(new String[] {"changefeed", "--help"}, new String[] {"changefeed", "delete", "--help"},
        new String[] {"tail", "--help"})) {
      Run help = sluice(cmd);
      assertThat(help.code()).isEqualTo(ExitCode.OK);
      assertThat(help.out()).contains("Exit codes: 0 ok, 1 server or connection error, 2 usage");
    }
    assertThat(sluice("changefeed", "delete", "--help").out()).contains("without flushing").contains("--keep-meta");
  }

  @Test
  void tailPrintsRowChangesAsJsonLinesAndStopsAtTheLimit() throws Exception {
    long from = Math.min(rb.broker().eventStore().resolvedTs(), rb.broker().schemaStore().resolvedTs());
    CompletableFuture<Run> tail = CompletableFuture.supplyAsync(() -> sluice("tail", "--table", "public.items",
        "--broker", rb.grpcAddress(), "--from", Long.toString(from), "--limit", "3"));
    rb.upstream().txn("INSERT INTO public.items VALUES (7001, 'a'), (7002, 'b')");
    rb.upstream().txn("UPDATE public.items SET v = 'bb' WHERE id = 7002");
    Run run = tail.get(60, TimeUnit.SECONDS);
    assertThat(run.code()).as(run.err()).isEqualTo(ExitCode.OK);
    List<JsonObject> lines = run.out().lines().map(JsonObject::new).toList();
    assertThat(lines).extracting(l -> l.getString("op")).containsExactly("insert", "insert", "update");
    assertThat(lines.get(0).getString("table")).isEqualTo("public.items");
    assertThat(lines.get(0).getLong("commit_ts")).isGreaterThan(from);
    assertThat(lines.get(2).getJsonObject("after").getString("v")).isEqualTo("bb");

    rb.upstream().exec("CREATE TABLE public.snap_items (id int PRIMARY KEY, v text)",
        "INSERT INTO public.snap_items SELECT i, 'r' || i FROM generate_series(1, 40) i");
    long created = rb.upstream().currentLsn();
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
        .until(() -> rb.broker().schemaStore().resolvedTs() >= created);
    Run snap = sluice("tail", "--table", "public.snap_items", "--broker", rb.grpcAddress(), "--snapshot", "--limit",
        "40");
    assertThat(snap.code()).as(snap.err()).isEqualTo(ExitCode.OK);
    List<JsonObject> reads = snap.out().lines().map(JsonObject::new).toList();
    assertThat(reads).hasSize(40).allSatisfy(l -> assertThat(l.getString("op")).isEqualTo("read"));
    assertThat(reads).extracting(l -> l.getJsonObject("after").getInteger("id")).containsExactlyInAnyOrderElementsOf(
        java.util.stream.IntStream.rangeClosed(1, 40).boxed().toList());
    assertThat(snap.err()).contains("snapshot public.snap_items").contains("40 of 40 rows");

    Run missing = sluice("tail", "--table", "public.nothing", "--broker", rb.grpcAddress(), "--from", "0");
    assertThat(missing.code()).as(missing.err()).isEqualTo(ExitCode.NOT_FOUND);
    assertThat(sluice("tail", "--table", "nodot", "--broker", rb.grpcAddress()).code()).isEqualTo(ExitCode.USAGE);
  }
}
