package dev.sluice.broker.changefeed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.AppenderBase;
import dev.sluice.broker.SluiceCommand;
import dev.sluice.broker.cli.AdminClient;
import dev.sluice.broker.cli.AdminClient.Response;
import dev.sluice.broker.testing.RunningBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * A whole run with sinks that fail (a wrong password against a real PostgreSQL that asks for one, an
 * unreachable host, a user:password URL) and one that works: every log event of the run (an appender on the
 * root logger, its messages, values and causes rendered in full), every admin API answer and every CLI output
 * is searched for the passwords. Before, the JDBC sink's errors carried its URL with the password into
 * {@code error.message}, the CLI and the logs.
 */
class SecretsStayHiddenTest {

  private static final String WRONG = "Wrong-Hunter22-pw";
  private static final String UNREACHABLE = "Unreach-77-pw";
  private static final String USER_INFO = "Authority-55-pw";
  private static final String REAL = "Real-App-99-pw";
  private static final List<String> SECRETS = List.of(WRONG, UNREACHABLE, USER_INFO, REAL);

  @TempDir
  Path dir;

  /** Every event of the run, rendered with all its text, as it reaches the root logger. */
  static final class EveryEvent extends AppenderBase<ILoggingEvent> {
    final Queue<String> lines = new ConcurrentLinkedQueue<>();

    @Override
    protected void append(ILoggingEvent e) {
      StringBuilder sb = new StringBuilder(e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage());
      if (e.getArgumentArray() != null) {
        sb.append(' ').append(Arrays.deepToString(e.getArgumentArray()));
      }
      if (e.getKeyValuePairs() != null) {
        e.getKeyValuePairs().forEach(kv -> sb.append(' ').append(kv.key).append('=').append(kv.value));
      }
      sb.append(' ').append(e.getMDCPropertyMap());
      if (e.getThrowableProxy() != null) {
        sb.append('\n').append(ThrowableProxyUtil.asString(e.getThrowableProxy()));
      }
      lines.add(sb.toString());
    }
  }

  /** Every answer of the admin API the test gets: status, headers that matter, body. */
  private final List<String> answers = new ArrayList<>();

  private Response send(AdminClient admin, String method, String path, JsonObject body) {
    Response r = admin.send(method, path, body);
    answers.add(method + " " + path + " -> " + r.status() + " " + r.location().orElse("") + " " + r.body());
    return r;
  }

  private String cli(RunningBroker rb, String... args) {
    List<String> all = new ArrayList<>(Arrays.asList(args));
    all.add("--server");
    all.add(rb.adminUrl());
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = new CommandLine(new SluiceCommand()).setOut(new PrintWriter(out, true))
        .setErr(new PrintWriter(err, true)).execute(all.toArray(String[]::new));
    String text = args[0] + (args.length > 1 ? " " + args[1] : "") + " -> " + code + "\n" + out + err;   // what it printed, not what it was given
    answers.add(text);
    return text;
  }

  private static JsonObject body(String id, String sinkUri) {
    return new JsonObject().put("id", id).put("include", new JsonArray().add("public.items")).put("sink_uri", sinkUri)
        .put("options", new JsonObject().put("table_poll_interval_ms", 100));
  }

  @Test
  void noPasswordReachesALogLineAnAnswerOrTheCli() throws Exception {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    Level rootLevel = root.getLevel();
    EveryEvent events = new EveryEvent();
    List<String> modes = new ArrayList<>();
    events.setContext(root.getLoggerContext());
    events.start();
    root.addAppender(events);
    root.setLevel(Level.INFO);
    try (RunningBroker rb = RunningBroker.start(dir.resolve("broker"), ChangefeedConfig.defaults()
        .withRetryBackoff(Duration.ofMillis(100), Duration.ofMillis(300), 0).withProgressInterval(Duration.ofMillis(100)),
        "CREATE TABLE public.items (id int PRIMARY KEY, v text)")) {
      requirePassword(rb, "app", REAL);
      AdminClient admin = rb.admin();
      int port = rb.upstream().port();
      String wrong = "jdbc:postgresql://127.0.0.1:" + port + "/warehouse?user=app&password=" + WRONG;
      String unreachable = "jdbc:postgresql://127.0.0.1:" + closedPort() + "/warehouse?user=app&password="
          + UNREACHABLE;
      String authority = "jdbc:mysql://app:" + USER_INFO + "@127.0.0.1:" + closedPort() + "/warehouse";
      String real = "jdbc:postgresql://127.0.0.1:" + port + "/warehouse?user=app&password=" + REAL;

      // refused by the create-time check, then created anyway: both ways of failing
      Response refused = send(admin, "POST", "/api/v1/changefeeds", body("wrong", wrong));
      assertThat(refused.status()).as(refused.body()).isEqualTo(400);
      assertThat(refused.body()).contains("password authentication failed for user");
      for (String[] cf : new String[][] {{"wrong", wrong}, {"unreachable", unreachable}, {"authority", authority}}) {
        assertThat(send(admin, "POST", "/api/v1/changefeeds?validate=false", body(cf[0], cf[1])).status())
            .isEqualTo(201);
      }
      assertThat(send(admin, "POST", "/api/v1/changefeeds", body("real", real)).status()).isEqualTo(201);
      rb.upstream().txn("INSERT INTO public.items VALUES (1, 'through the real sink')");
      for (String id : List.of("wrong", "unreachable", "authority")) {
        await().atMost(Duration.ofSeconds(60)).until(() -> send(admin, "GET", "/api/v1/changefeeds/" + id, null)
            .json().getValue("error") != null);
      }
      await().atMost(Duration.ofSeconds(60)).until(() -> countRows(rb) == 1);

      // every read a person or a script does
      send(admin, "GET", "/api/v1/changefeeds", null);
      send(admin, "GET", "/api/v1/changefeeds?state=FAILED", null);
      send(admin, "GET", "/api/v1/dispatchers", null);
      send(admin, "GET", "/api/v1/tables?include=public.*", null);
      send(admin, "GET", "/metrics", null);
      send(admin, "PATCH", "/api/v1/changefeeds/wrong?validate=false", new JsonObject().put("sink_uri", wrong + "&x=1"));
      send(admin, "PUT", "/api/v1/changefeeds/unreachable", body("unreachable", unreachable).copy()
          .put("id", null));   // an unknown field: the 400 quotes nothing of the body's URL
      send(admin, "PATCH", "/api/v1/changefeeds/unreachable", new JsonObject().put("sink_uri", unreachable + "&y=2"));
      cli(rb, "changefeed", "list");
      cli(rb, "changefeed", "get", "wrong");
      cli(rb, "changefeed", "get", "authority", "--json");
      cli(rb, "changefeed", "create", "cli-wrong", "--include", "public.items", "--sink-uri", wrong);
      cli(rb, "changefeed", "create", "cli-wrong", "--include", "public.items", "--sink-uri", wrong, "--no-validate");
      cli(rb, "dispatchers");
      for (String id : List.of("wrong", "unreachable", "authority", "real", "cli-wrong")) {
        send(admin, "DELETE", "/api/v1/changefeeds/" + id, null);
      }

      // the store must keep the URIs to work, so only its owner may read it (checked below)
      Path store = dir.resolve("broker").resolve("changefeeds");
      modes.add(store + " " + PosixFilePermissions.toString(Files.getPosixFilePermissions(store)));
      try (var files = Files.list(store)) {
        for (Path f : files.toList()) {
          modes.add(f + " " + PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        }
      }
    } finally {
      root.detachAppender(events);
      root.setLevel(rootLevel);
    }

    List<String> logged = List.copyOf(events.lines);
    // the failures were logged, and their causes, so the search below looked at something
    assertThat(logged).anySatisfy(l -> assertThat(l).contains("changefeed runtime failed")
        .contains("password authentication failed"));
    assertThat(String.join("\n", logged)).contains("password=***");
    assertThat(answers).anySatisfy(a -> assertThat(a).contains("password=***"));
    for (String secret : SECRETS) {
      assertThat(logged).as("log lines showing " + secret).noneMatch(l -> l.contains(secret));
      assertThat(answers).as("answers showing " + secret).noneMatch(a -> a.contains(secret));
    }
    assertThat(modes).hasSizeGreaterThan(1).allSatisfy(m -> assertThat(m).endsWith(m.equals(modes.get(0))
        ? " rwx------" : " rw-------"));
  }

  /** Makes {@code role} log in with {@code password} only (SCRAM), in a database "warehouse" it owns. */
  private static void requirePassword(RunningBroker rb, String role, String password) throws Exception {
    rb.upstream().exec("CREATE ROLE " + role + " LOGIN PASSWORD '" + password + "'",
        "CREATE DATABASE warehouse OWNER " + role);
    try (Connection c = rb.upstream().connect(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SHOW hba_file")) {
      rs.next();
      Path hba = Path.of(rs.getString(1));
      Files.writeString(hba, "host all " + role + " 127.0.0.1/32 scram-sha-256\n" + Files.readString(hba));
      st.execute("SELECT pg_reload_conf()");
    }
    await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
      try (Connection c = DriverManager.getConnection(rb.upstream().jdbcUrl(), role, "not-" + password)) {
        return false;
      } catch (java.sql.SQLException e) {
        return "28P01".equals(e.getSQLState());   // the reload made it ask
      }
    });
  }

  private static long countRows(RunningBroker rb) throws Exception {
    String url = "jdbc:postgresql://127.0.0.1:" + rb.upstream().port() + "/warehouse";
    try (Connection c = DriverManager.getConnection(url, "app", REAL); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM public.items")) {
      rs.next();
      return rs.getLong(1);
    } catch (java.sql.SQLException e) {
      return -1;   // the table is not there yet
    }
  }

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
