package dev.sluice.broker.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import dev.sluice.broker.ServeConfig;
import dev.sluice.broker.SluiceCommand;
import dev.sluice.broker.changefeed.ChangefeedConfig;
import dev.sluice.broker.cli.AdminClient;
import dev.sluice.broker.cli.ExitCode;
import dev.sluice.broker.testing.RunningBroker;
import dev.sluice.broker.testing.TestPki;
import dev.sluice.dispatcher.ClientSecurity;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * A whole secured run: a broker with TLS and tokens, a hosted changefeed that dials the node over TLS
 * with the node's own token, the CLI over https with token files, {@code sluice tail} over TLS, refusals,
 * a metrics scrape and {@code sluice token hash}. Then every log line, CLI output, API answer and the
 * scrape are searched for the tokens and the private key: none may appear.
 */
class SecuredRunSecretsTest {

  private static final int FAST = TokenHash.MIN_ITERATIONS;
  private static final String ADMIN_TOKEN = "adm1n-t0ken-9f8e7d6c5b4a";
  private static final String READER_TOKEN = "r3ader-t0ken-1a2b3c4d5e6f";
  private static final String METRICS_TOKEN = "m3trics-t0ken-0f1e2d3c4b5a";
  private static final String WRONG_TOKEN = "wr0ng-t0ken-aabbccddeeff";

  private static Path dir;
  private static RunningBroker rb;
  private static String keyPem;
  private static Path caFile;
  private static final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private static final List<String> outputs = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory(Path.of("/tmp"), "sec-r");
    TestPki.Ca ca = TestPki.ca("Run CA");
    caFile = ca.write(dir, "ca");
    TestPki.Issued server = ca.server("broker-run", Duration.ofDays(1));
    TestPki.PemFiles files = server.write(dir, "broker");
    keyPem = Files.readString(files.key());
    token("admin", ADMIN_TOKEN);
    token("reader", READER_TOKEN);
    token("metrics", METRICS_TOKEN);
    token("wrong", WRONG_TOKEN);
    List<PrincipalConfig> principals = List.of(
        new PrincipalConfig("ops", Set.of(Role.ADMIN), null, TokenHash.of(ADMIN_TOKEN.toCharArray(), FAST), null, null),
        new PrincipalConfig("app", Set.of(Role.READER), List.of("app.*"),
            TokenHash.of(READER_TOKEN.toCharArray(), FAST), null, null),
        new PrincipalConfig("prom", Set.of(Role.METRICS), null, TokenHash.of(METRICS_TOKEN.toCharArray(), FAST),
            null, null));
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.addAppender(logs);
    logs.start();
    rb = RunningBroker.start(dir.resolve("b"), ChangefeedConfig.defaults().withProgressInterval(Duration.ofMillis(100)),
        ServeConfig.ephemeral(), SecurityConfig.none().withPrincipals(principals)
            .withTls(TlsConfig.of(files.cert(), files.key())),
        "CREATE SCHEMA app", "CREATE TABLE app.orders (id int PRIMARY KEY, v text)",
        "CREATE SCHEMA billing", "CREATE TABLE billing.invoices (id int PRIMARY KEY, amount numeric)");
  }

  @AfterAll
  static void stop() {
    if (rb != null) {
      rb.close();
    }
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
  }

  private static void token(String name, String value) throws Exception {
    Path p = dir.resolve(name + ".token");
    Files.writeString(p, value + "\n");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
  }

  record Run(int code, String out, String err) {}

  private static Run sluice(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = new CommandLine(new SluiceCommand()).setOut(new PrintWriter(out, true))
        .setErr(new PrintWriter(err, true)).execute(args);
    synchronized (outputs) {
      outputs.add(out.toString());
      outputs.add(err.toString());
    }
    return new Run(code, out.toString(), err.toString());
  }

  private static Run admin(String token, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--server", rb.adminUrl(), "--tls-ca", caFile.toString(), "--token-file",
        dir.resolve(token + ".token").toString()));
    return sluice(all.toArray(String[]::new));
  }

  private static Run tail(String token, String... args) {
    List<String> all = new ArrayList<>(List.of("tail"));
    all.addAll(List.of(args));
    all.addAll(List.of("--broker", rb.grpcAddress(), "--tls-ca", caFile.toString(), "--token-file",
        dir.resolve(token + ".token").toString(), "--connect-timeout", "PT20S"));
    return sluice(all.toArray(String[]::new));
  }

  @Test
  void aSecuredRunWorksEndToEndAndNoSecretAppearsInAnyOutput() throws Exception {
    assertThat(rb.adminUrl()).startsWith("https://");
    Path sink = dir.resolve("orders.jsonl");

    // the CLI over https with a token file; the hosted changefeed dials the node over TLS with its own token
    Run created = admin("admin", "changefeed", "create", "orders", "--include", "app.*", "--sink-uri",
        "jsonl:file:" + sink);
    assertThat(created.code()).as(created.err()).isEqualTo(ExitCode.OK);
    rb.upstream().txn("INSERT INTO app.orders VALUES (1, 'one'), (2, 'two')");
    await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(sink)
        && Files.readString(sink).contains("\"two\""));
    Run listed = admin("admin", "changefeed", "list");
    assertThat(listed.code()).as(listed.err()).isEqualTo(ExitCode.OK);
    assertThat(listed.out()).contains("orders");

    // refusals: a wrong token, a reader asking an operator's thing, a reader outside its tables
    Run wrong = admin("wrong", "changefeed", "list");
    assertThat(wrong.code()).isEqualTo(ExitCode.DENIED);
    assertThat(wrong.err()).contains("UNAUTHENTICATED");
    Run notAllowed = admin("reader", "changefeed", "pause", "orders");
    assertThat(notAllowed.code()).isEqualTo(ExitCode.DENIED);
    assertThat(notAllowed.err()).contains("PERMISSION_DENIED");
    Run hidden = tail("reader", "--table", "billing.invoices", "--from", "0");
    assertThat(hidden.code()).as(hidden.err()).isEqualTo(ExitCode.DENIED);
    assertThat(hidden.err()).contains("PERMISSION_DENIED").contains("billing.invoices");
    Run wrongTail = tail("wrong", "--table", "app.orders", "--from", "0");
    assertThat(wrongTail.code()).as(wrongTail.err()).isEqualTo(ExitCode.DENIED);

    // sluice tail over TLS with the reader's token
    CompletableFuture<Run> tail = CompletableFuture.supplyAsync(() -> tail("reader", "--table", "app.orders",
        "--from", "0", "--limit", "2"));
    Run tailed = tail.get(60, TimeUnit.SECONDS);
    assertThat(tailed.code()).as(tailed.err()).isEqualTo(ExitCode.OK);
    assertThat(tailed.out()).contains("\"one\"").contains("\"two\"");

    // metrics with its own permission, over https
    AdminClient prom = AdminClient.of(rb.adminUrl(), Duration.ofSeconds(30),
        ClientSecurity.tls(caFile).withToken(METRICS_TOKEN));
    AdminClient.Response scrape = prom.send("GET", "/metrics", null);
    assertThat(scrape.status()).isEqualTo(200);
    assertThat(scrape.body()).contains("sluice_tls_reloads_total");
    outputs.add(scrape.body());
    AdminClient.Response asMetrics = prom.send("GET", "/api/v1/changefeeds/orders", null);
    assertThat(asMetrics.status()).isEqualTo(403);
    outputs.add(asMetrics.body());
    AdminClient ops = AdminClient.of(rb.adminUrl(), Duration.ofSeconds(30),
        ClientSecurity.tls(caFile).withToken(ADMIN_TOKEN));
    for (String path : List.of("/", "/api/v1/changefeeds/orders", "/api/v1/dispatchers", "/api/v1/config",
        "/api/v1/members", "/api/v1/captures")) {
      AdminClient.Response r = ops.send("GET", path, null);
      assertThat(r.status()).as(path + ": " + r.body()).isEqualTo(200);
      outputs.add(r.body());
    }

    // sluice token hash reads stdin and prints only the stored form
    InputStream stdin = System.in;
    Run hashed;
    try {
      System.setIn(new ByteArrayInputStream((READER_TOKEN + "\n").getBytes(StandardCharsets.UTF_8)));
      hashed = sluice("token", "hash", "--iterations", "1000");
    } finally {
      System.setIn(stdin);
    }
    assertThat(hashed.code()).as(hashed.err()).isEqualTo(ExitCode.OK);
    assertThat(TokenHash.parse(hashed.out().strip()).matches(READER_TOKEN.toCharArray())).isTrue();

    assertThat(admin("admin", "changefeed", "delete", "orders").code()).isEqualTo(ExitCode.OK);

    // nothing printed, answered or logged holds a token or the private key
    List<String> everything = new ArrayList<>(outputs);
    for (ILoggingEvent e : List.copyOf(logs.list)) {
      everything.add(e.getFormattedMessage() + " " + e.getKeyValuePairs() + " "
          + (e.getThrowableProxy() == null ? "" : ThrowableProxyUtil.asString(e.getThrowableProxy())));
    }
    assertThat(everything).as("outputs searched").hasSizeGreaterThan(20);
    String keyBody = keyPem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    for (String secret : List.of(ADMIN_TOKEN, READER_TOKEN, METRICS_TOKEN, WRONG_TOKEN, keyBody.substring(0, 40),
        "PRIVATE KEY")) {
      assertThat(everything).as("no output holds " + secret.substring(0, 6) + "...")
          .noneMatch(s -> s.replaceAll("\\s", "").contains(secret.replaceAll("\\s", "")));
    }
  }
}
