package dev.sluice.broker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.broker.SluiceCommand;
import dev.sluice.broker.changefeed.ChangefeedConfig;
import dev.sluice.broker.testing.RunningBroker;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The client commands a person meets first, against a real broker and a server that is not one: bad
 * {@code --server} values and foreign servers are one clear line with the documented exit code (they were a
 * stack trace, exit 1, and {@code HTTP_404: } with no text), {@code tail} on an unknown table says so once,
 * and members, dispatchers, captures, config and tables have commands of their own.
 */
class AdminCommandsTest {

  @TempDir
  static Path dir;
  private static RunningBroker rb;
  private static HttpServer foreign;

  @BeforeAll
  static void start() throws IOException {
    rb = RunningBroker.start(dir.resolve("broker"), ChangefeedConfig.defaults(),
        "CREATE TABLE public.items (id int PRIMARY KEY, v text)", "CREATE TABLE public.notes (n text)");
    foreign = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    foreign.createContext("/", exchange -> {
      boolean json = exchange.getRequestURI().getPath().startsWith("/api/v1/members");
      byte[] body = (json ? "{\"hello\":\"world\"}" : "<html><body>Not Found</body></html>")
          .getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", json ? "application/json" : "text/html");
      exchange.sendResponseHeaders(json ? 200 : 404, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    foreign.start();
  }

  @AfterAll
  static void stop() {
    if (foreign != null) {
      foreign.stop(0);
    }
    if (rb != null) {
      rb.close();
    }
  }

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

  private static void assertNoStackTrace(Run run) {
    assertThat(run.err()).doesNotContain("\tat ").doesNotContain("Exception");
  }

  @Test
  void aServerThatIsNotAUrlIsAUsageErrorInOneLine() {
    for (String bad : List.of("notaurl", "ftp://h:1", "http://", "127.0.0.1:8301")) {
      Run run = sluice("changefeed", "list", "--server", bad);
      assertThat(run.code()).as(bad + ": " + run.err()).isEqualTo(ExitCode.USAGE);
      assertThat(run.err()).contains("'" + bad + "' is not the URL of a Sluice admin API").contains("http://host:port");
      assertNoStackTrace(run);
    }
  }

  @Test
  void aServerThatIsNotSluiceIsNamedAndSaidSo() {
    String url = "http://127.0.0.1:" + foreign.getAddress().getPort();
    Run list = sluice("changefeed", "list", "--server", url);
    assertThat(list.code()).isEqualTo(ExitCode.SERVER);
    assertThat(list.err()).contains(url + " answered GET /api/v1/changefeeds with HTTP 404 (text/html)")
        .contains("not an answer of a Sluice admin API").contains("check --server").doesNotContain("HTTP_404");
    assertNoStackTrace(list);
    Run members = sluice("members", "--server", url);   // JSON, but not of Sluice's shape
    assertThat(members.code()).isEqualTo(ExitCode.SERVER);
    assertThat(members.err()).contains("answered GET /api/v1/members with HTTP 200 (application/json)")
        .contains("not an answer of a Sluice admin API");
    assertNoStackTrace(members);
  }

  @Test
  void anUnreachableServerKeepsItsPasswordToItself() throws IOException {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    Run run = sluice("members", "--server", "http://admin:hunter22pw@127.0.0.1:" + closed);
    assertThat(run.code()).isEqualTo(ExitCode.SERVER);
    assertThat(run.err()).contains("cannot connect").doesNotContain("hunter22pw");
  }

  @Test
  void tailOnAnUnknownTableSaysSoOnceAndHowToListTables() {
    PrintStream realErr = System.err;
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    Run run;
    System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8));   // where the CLI's log lines go
    try {
      run = sluice("tail", "--table", "public.nothing", "--broker", rb.grpcAddress(), "--from", "0",
          "--connect-timeout", "20s");
    } finally {
      System.setErr(realErr);
    }
    assertThat(run.code()).as(run.err()).isEqualTo(ExitCode.NOT_FOUND);
    assertThat(run.err().lines().toList()).hasSize(1);
    assertThat(run.err()).contains("table public.nothing is unknown to the broker at " + rb.grpcAddress())
        .contains("sluice tables").doesNotContain("answered 5");
    assertThat(logged.toString(StandardCharsets.UTF_8)).doesNotContain("public.nothing");
  }

  @Test
  void durationsTakeTheShortFormAndIsoAndRefuseTheRest() {
    Run bad = sluice("tail", "--table", "public.items", "--connect-timeout", "soon");
    assertThat(bad.code()).isEqualTo(ExitCode.USAGE);
    assertThat(bad.err()).contains("'soon' is not a duration").contains("3s").contains("PT3S");
    assertThat(admin("changefeed", "delete", "nobody", "--wait", "500ms").code()).isEqualTo(ExitCode.NOT_FOUND);
    assertThat(admin("changefeed", "delete", "nobody", "--wait", "PT2S").code()).isEqualTo(ExitCode.NOT_FOUND);
    assertThat(admin("changefeed", "delete", "nobody", "--wait", "2m").code()).isEqualTo(ExitCode.NOT_FOUND);
  }

  @Test
  void membersDispatchersAndCapturesHaveTablesAndJson() {
    Run members = admin("members");
    assertThat(members.code()).as(members.err()).isEqualTo(ExitCode.OK);
    assertThat(members.out()).startsWith("NODE_ID").contains("node-a *").contains(rb.grpcAddress()).contains("SERVING");
    assertThat(new JsonObject(admin("members", "--json").out()).getString("this_node_id")).isEqualTo("node-a");

    Run dispatchers = admin("dispatchers", "--changefeed", "nobody", "--limit", "5");
    assertThat(dispatchers.code()).as(dispatchers.err()).isEqualTo(ExitCode.OK);
    assertThat(dispatchers.out()).startsWith("ID").contains("LAG_MS").contains("0 of 0 dispatchers");
    assertThat(new JsonObject(admin("dispatchers", "--json").out()).containsKey("resolved_ts")).isTrue();
    Run badLimit = admin("dispatchers", "--limit", "0");
    assertThat(badLimit.code()).isEqualTo(ExitCode.USAGE);
    assertThat(badLimit.err()).contains("sluice: INVALID_REQUEST: limit");

    Run captures = admin("captures");
    assertThat(captures.code()).as(captures.err()).isEqualTo(ExitCode.OK);
    assertThat(captures.out()).startsWith("NODE_ID").contains("STREAMING").contains("EVENT_TRIGGER");
    assertThat(new JsonObject(admin("captures", "--json").out()).getJsonArray("captures")).hasSize(1);
  }

  @Test
  void configGetShowsTheLimitsAndSetChangesThemOrNothing() {
    Run get = admin("config", "get");
    assertThat(get.code()).as(get.err()).isEqualTo(ExitCode.OK);
    assertThat(get.out()).startsWith("KEY").contains("scanConcurrency").contains("default");
    Run set = admin("config", "set", "scanConcurrency=5");
    assertThat(set.code()).as(set.err()).isEqualTo(ExitCode.OK);
    assertThat(set.out().lines().skip(1).toList()).singleElement().asString().contains("scanConcurrency")
        .contains("5").contains("runtime");
    assertThat(rb.broker().eventService().limits().scanConcurrency()).isEqualTo(5);
    assertThat(new JsonObject(admin("config", "get", "--json").out()).getJsonObject("limits")
        .getInteger("scanConcurrency")).isEqualTo(5);
    Run unknown = admin("config", "set", "scanSpeed=3");
    assertThat(unknown.code()).isEqualTo(ExitCode.USAGE);
    assertThat(unknown.err()).contains("scanSpeed");
    Run range = admin("config", "set", "scanConcurrency=0");
    assertThat(range.code()).isEqualTo(ExitCode.USAGE);
    assertThat(rb.broker().eventService().limits().scanConcurrency()).isEqualTo(5);
    assertThat(admin("config", "set").code()).isEqualTo(ExitCode.USAGE);
  }

  @Test
  void tablesListsWhatTheBrokerKnowsAndDryRunsRules() {
    Run all = admin("tables");
    assertThat(all.code()).as(all.err()).isEqualTo(ExitCode.OK);
    assertThat(all.out()).startsWith("TABLE").contains("public.items").contains("public.notes");
    assertThat(all.out().lines().filter(l -> l.startsWith("public.notes")).findFirst().orElseThrow())
        .endsWith("(none)");
    Run dry = admin("tables", "--include", "public.*", "--include", "public.missing", "--exclude", "public.notes");
    assertThat(dry.code()).as(dry.err()).isEqualTo(ExitCode.OK);
    String[] sections = dry.out().split("\n\n");
    assertThat(sections[0]).contains("public.items").doesNotContain("public.notes");
    assertThat(sections[1]).startsWith("RULE").contains("public.missing  include  0");
    assertThat(dry.err()).contains("warning: include rule \"public.missing\" matches no table");
    Run regex = admin("tables", "--include", "public.(items|notes)");
    assertThat(regex.code()).isEqualTo(ExitCode.USAGE);
    assertThat(regex.err()).contains("\"public.(items|notes)\" is not a glob");
  }

  @Test
  void createChecksTheSinkUnlessToldNotTo() throws IOException {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    String sink = "jdbc:postgresql://127.0.0.1:" + closed + "/postgres?user=postgres&password=hunter22cli";
    Run checked = admin("changefeed", "create", "cli-check", "--include", "public.items", "--sink-uri", sink);
    assertThat(checked.code()).isEqualTo(ExitCode.USAGE);
    assertThat(checked.err()).contains("SINK_CHECK_FAILED").contains("does not work").doesNotContain("hunter22cli");
    Run skipped = admin("changefeed", "create", "cli-check", "--include", "public.items", "--sink-uri", sink,
        "--no-validate");
    assertThat(skipped.code()).as(skipped.err()).isEqualTo(ExitCode.OK);
    assertThat(skipped.out()).contains("password=***").doesNotContain("hunter22cli");
    assertThat(admin("changefeed", "delete", "cli-check", "--keep-meta").code()).isEqualTo(ExitCode.OK);
  }

  @Test
  void createTakesAnInitialLoadAndSnapshotReadsATableAgainWithItsProgressInGet() {
    Run bad = admin("changefeed", "create", "cli-bad", "--include", "public.items", "--sink-uri",
        "jsonl:file:cli-bad.jsonl", "--initial-load", "everything");
    assertThat(bad.code()).isEqualTo(ExitCode.USAGE);
    assertThat(bad.err()).contains("initial_load");
    Run created = admin("changefeed", "create", "cli-snap", "--include", "public.items", "--sink-uri",
        "jsonl:file:cli-snap.jsonl", "--initial-load", "none");
    assertThat(created.code()).as(created.err()).isEqualTo(ExitCode.OK);
    assertThat(created.out()).contains("initial load: none");
    Run unknown = admin("changefeed", "snapshot", "nobody");
    assertThat(unknown.code()).isEqualTo(ExitCode.NOT_FOUND);
    // the runtime answers once it follows the table (409 while it starts)
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() ->
        admin("changefeed", "snapshot", "cli-snap", "--table", "public.items").code() == ExitCode.OK);
    Run notFollowed = admin("changefeed", "snapshot", "cli-snap", "--table", "public.notes");
    assertThat(notFollowed.code()).isEqualTo(ExitCode.USAGE);
    assertThat(notFollowed.err()).contains("public.notes");
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() ->
        admin("changefeed", "get", "cli-snap").out().contains("snapshot done"));
    Run get = admin("changefeed", "get", "cli-snap");
    assertThat(get.out()).contains("initial load: none (snapshots: done)");
    Run both = admin("changefeed", "snapshot", "cli-snap", "--pause", "--cancel");
    assertThat(both.code()).isEqualTo(ExitCode.USAGE);
    assertThat(admin("changefeed", "delete", "cli-snap").code()).isEqualTo(ExitCode.OK);
  }
}
