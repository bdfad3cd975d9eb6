package dev.sluice.broker.security;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.v1.AckStatus;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.ControlAck;
import dev.sluice.api.v1.EventServiceGrpc;
import dev.sluice.api.v1.Hello;
import dev.sluice.api.v1.ListTablesRequest;
import dev.sluice.api.v1.ServiceProto;
import dev.sluice.api.v1.TableEntry;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.TableSchemaRequest;
import dev.sluice.api.v1.TopologyRequest;
import dev.sluice.api.ProtocolInfo;
import dev.sluice.broker.ServeConfig;
import dev.sluice.broker.changefeed.ChangefeedConfig;
import dev.sluice.broker.cli.AdminClient;
import dev.sluice.broker.testing.RunningBroker;
import dev.sluice.broker.testing.TestCollector;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.ClientSecurity;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionRejectedException;
import io.grpc.ClientInterceptors;
import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.vertx.core.json.JsonObject;
import io.vertx.openapi.contract.OpenAPIContract;
import io.vertx.openapi.contract.Operation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * Who may call what, against a real broker (real PostgreSQL, real sockets) with one principal per role:
 * every route of the OpenAPI document and every RPC of the proto, each without a token, with a wrong
 * token and with the token of each role, with the exact status. The routes and RPCs come from the
 * documents themselves; a route or RPC missing from the EXPECTED tables below fails the test, so a new
 * one cannot ship without a decided rule. Then the table patterns of a reader limited to {@code app.*}.
 */
class AccessMatrixTest {

  /** The spec: which roles may call each route and RPC ({@code public}: no credential needed). */
  private static final String EXPECTED_ROUTES = """
      GET /healthz                                      | public
      GET /readyz                                       | public
      GET /                                             | admin operator reader metrics
      GET /metrics                                      | admin metrics
      GET /api/v1/changefeeds                           | admin operator
      POST /api/v1/changefeeds                          | admin operator
      GET /api/v1/changefeeds/{id}                      | admin operator
      PATCH /api/v1/changefeeds/{id}                    | admin operator
      PUT /api/v1/changefeeds/{id}                      | admin operator
      DELETE /api/v1/changefeeds/{id}                   | admin operator
      POST /api/v1/changefeeds/{id}/pause               | admin operator
      POST /api/v1/changefeeds/{id}/resume              | admin operator
      POST /api/v1/changefeeds/{id}/snapshot            | admin operator
      POST /api/v1/changefeeds/{id}/snapshot/pause      | admin operator
      POST /api/v1/changefeeds/{id}/snapshot/resume     | admin operator
      POST /api/v1/changefeeds/{id}/snapshot/cancel     | admin operator
      GET /api/v1/changefeeds/{id}/deletion/{generation} | admin operator
      GET /api/v1/dispatchers                           | admin operator
      GET /api/v1/snapshots                             | admin operator
      DELETE /api/v1/snapshots/{dispatcher_id}          | admin operator
      GET /api/v1/captures                              | admin operator
      GET /api/v1/tables                                | admin operator
      GET /api/v1/members                               | admin operator
      GET /api/v1/members/{id}                          | admin operator
      POST /api/v1/members/{id}/drain                   | admin operator
      GET /api/v1/config                                | admin operator
      PATCH /api/v1/config                              | admin
      """;

  private static final String EXPECTED_RPCS = """
      Connect        | admin reader
      GetTopology    | admin operator reader metrics
      GetTableSchema | admin reader
      ListTables     | admin reader
      """;

  private static final int FAST = TokenHash.MIN_ITERATIONS;
  /** Principal name to its token; "wrong" is a token no principal has, "none" sends nothing. */
  private static final Map<String, String> TOKENS = new LinkedHashMap<>();
  private static final List<String> CALLERS = List.of("none", "wrong", "admin", "operator", "reader", "metrics");

  private static Path dir;
  private static RunningBroker rb;
  private static final ListAppender<ILoggingEvent> audit = new ListAppender<>();

  @BeforeAll
  static void startBroker() throws Exception {
    dir = Files.createTempDirectory(Path.of("/tmp"), "sec-m");
    List<PrincipalConfig> principals = new ArrayList<>();
    for (Role r : Role.values()) {
      String token = r.configName() + "-token-" + DispatcherId.random();
      TOKENS.put(r.configName(), token);
      principals.add(new PrincipalConfig(r.configName(), Set.of(r), r == Role.READER ? List.of("app.*") : null,
          TokenHash.of(token.toCharArray(), FAST), null, null));
    }
    TOKENS.put("wrong", "wrong-token-" + DispatcherId.random());
    ((Logger) LoggerFactory.getLogger(AuditLog.LOGGER)).addAppender(audit);
    audit.start();
    rb = RunningBroker.start(dir.resolve("b"), ChangefeedConfig.defaults(), ServeConfig.ephemeral(),
        SecurityConfig.none().withPrincipals(principals),
        "CREATE SCHEMA app", "CREATE TABLE app.orders (id int PRIMARY KEY, v text)",
        "CREATE SCHEMA billing", "CREATE TABLE billing.invoices (id int PRIMARY KEY, amount numeric)");
  }

  @AfterAll
  static void stopBroker() throws Exception {
    ((Logger) LoggerFactory.getLogger(AuditLog.LOGGER)).detachAppender(audit);
    if (rb != null) {
      rb.close();
    }
  }

  // ------------------------------------------------------------------ admin routes

  static Stream<Arguments> everyRouteAndCaller() throws Exception {
    startIfNeeded();
    Map<String, Set<String>> expected = table(EXPECTED_ROUTES);
    Path yaml = Path.of("..", "api", "src", "main", "resources", "openapi", "sluice-admin-v1.yaml");
    OpenAPIContract contract = OpenAPIContract.from(rb.broker().vertx(), yaml.toAbsolutePath().toString())
        .await(30, TimeUnit.SECONDS);
    Set<String> documented = new TreeSet<>();
    for (Operation op : contract.operations()) {
      documented.add(op.getHttpMethod().name() + " " + op.getOpenAPIPath());
    }
    assertThat(expected.keySet()).as("every documented route has a decided row in EXPECTED_ROUTES, and no other")
        .isEqualTo(documented);
    return documented.stream().flatMap(route -> CALLERS.stream().map(caller -> Arguments.of(route, caller,
        expected.get(route))));
  }

  @ParameterizedTest(name = "{0} as {1}")
  @MethodSource("everyRouteAndCaller")
  void everyRouteAnswersEachCallerAsItsRuleSays(String route, String caller, Set<String> allowed) {
    AdminClient.Response r = call(route, caller);
    boolean isPublic = allowed.contains("public");
    if (isPublic || allowed.contains(caller)) {
      AdminClient.Response asAdmin = call(route, "admin");
      assertThat(r.status()).as(route + " as " + caller + ": " + r.body()).isNotIn(401, 403)
          .isEqualTo(asAdmin.status());
    } else if (caller.equals("none") || caller.equals("wrong")) {
      assertThat(r.status()).as(route + " as " + caller + ": " + r.body()).isEqualTo(401);
      assertThat(r.json().getString("code")).isEqualTo("UNAUTHENTICATED");
    } else {
      assertThat(r.status()).as(route + " as " + caller + ": " + r.body()).isEqualTo(403);
      assertThat(r.json().getString("code")).isEqualTo("PERMISSION_DENIED");
      assertThat(r.json().getString("message")).contains("principal " + caller);
    }
  }

  /** The route with its parameters filled so that nothing changes: an unknown id, an empty body. */
  private static AdminClient.Response call(String route, String caller) {
    String method = route.substring(0, route.indexOf(' '));
    String path = route.substring(route.indexOf(' ') + 1).replace("{id}", "no-such-feed").replace("{generation}", "1")
        .replace("{dispatcher_id}", "0".repeat(32));
    JsonObject body = Set.of("POST", "PUT", "PATCH").contains(method) && !path.endsWith("/pause")
        && !path.endsWith("/resume") ? new JsonObject() : null;
    return client(caller).send(method, path, body);
  }

  private static AdminClient client(String caller) {
    ClientSecurity s = TOKENS.containsKey(caller) ? ClientSecurity.none().withToken(TOKENS.get(caller))
        : ClientSecurity.none();
    return AdminClient.of(rb.adminUrl(), Duration.ofSeconds(30), s);
  }

  @Test
  void a401NamesTheSchemeAndRefusalsAndChangesAreAudited() {
    AdminClient.Response r = client("none").send("GET", "/api/v1/changefeeds", null);
    assertThat(r.status()).isEqualTo(401);
    assertThat(r.json().getString("message")).contains("authorization: Bearer <token>");
    assertThat(client("reader").send("POST", "/api/v1/changefeeds/x/pause", null).status()).isEqualTo(403);
    assertThat(client("operator").send("POST", "/api/v1/changefeeds/x/pause", null).status()).isEqualTo(404);
    // the line of an answered request is written when the exchange ends, which may follow the answer
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
        List.copyOf(audit.list).stream().map(AccessMatrixTest::keyValues)).anyMatch(l -> "operator".equals(
            l.get("principal")) && "404".equals(l.get("status"))));
    List<Map<String, String>> lines = List.copyOf(audit.list).stream().map(AccessMatrixTest::keyValues).toList();
    assertThat(lines).anyMatch(l -> "reader".equals(l.get("principal")) && "refused".equals(l.get("outcome"))
        && "PERMISSION_DENIED".equals(l.get("status")));
    assertThat(lines).anyMatch(l -> "operator".equals(l.get("principal")) && "failed".equals(l.get("outcome"))
        && "404".equals(l.get("status")) && l.get("action").endsWith("/pause") && l.get("at") != null);
    assertThat(lines).anyMatch(l -> "-".equals(l.get("principal")) && "UNAUTHENTICATED".equals(l.get("status")));
    assertThat(lines.toString()).doesNotContain(TOKENS.get("reader")).doesNotContain(TOKENS.get("operator"));
  }

  // ------------------------------------------------------------------ RPCs

  static Stream<Arguments> everyRpcAndCaller() {
    Map<String, Set<String>> expected = table(EXPECTED_RPCS);
    Set<String> rpcs = new TreeSet<>();
    ServiceProto.getDescriptor().findServiceByName("EventService").getMethods().forEach(m -> rpcs.add(m.getName()));
    assertThat(expected.keySet()).as("every RPC of the proto has a decided row in EXPECTED_RPCS, and no other")
        .isEqualTo(rpcs);
    return rpcs.stream().flatMap(rpc -> CALLERS.stream().map(caller -> Arguments.of(rpc, caller, expected.get(rpc))));
  }

  @ParameterizedTest(name = "{0} as {1}")
  @MethodSource("everyRpcAndCaller")
  void everyRpcAnswersEachCallerAsItsRuleSays(String rpc, String caller, Set<String> allowed) throws Exception {
    startIfNeeded();
    Status.Code expected = allowed.contains(caller) ? Status.Code.OK
        : caller.equals("none") || caller.equals("wrong") ? Status.Code.UNAUTHENTICATED : Status.Code.PERMISSION_DENIED;
    ManagedChannel channel = channel();
    try {
      Status.Code got;
      if (rpc.equals("Connect")) {
        TestCollector c = TestCollector.over(channel(), headers(caller));
        try {
          c.send(CollectorMessage.newBuilder().setHello(Hello.newBuilder().setCollectorId("matrix")
              .setProtocolVersion(ProtocolInfo.VERSION)).build());
          if (expected == Status.Code.OK) {
            assertThat(c.next(BrokerMessage::hasWelcome).getWelcome().getBrokerId()).isEqualTo("node-a");
            got = Status.Code.OK;
          } else {
            BrokerMessage err = c.next(BrokerMessage::hasStreamError);
            assertThat(err.getStreamError().getCode()).isEqualTo(expected == Status.Code.UNAUTHENTICATED
                ? ErrorCode.UNAUTHENTICATED.toWire() : ErrorCode.PERMISSION_DENIED.toWire());
            got = c.awaitClosed().getCode();
          }
        } finally {
          c.close();
        }
      } else {
        got = unary(channel, caller, rpc);
      }
      assertThat(got).as(rpc + " as " + caller).isEqualTo(expected);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static Status.Code unary(ManagedChannel channel, String caller, String rpc) {
    Channel ch = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers(caller)));
    var stub = EventServiceGrpc.newBlockingStub(ch).withDeadlineAfter(20, TimeUnit.SECONDS);
    try {
      switch (rpc) {
        case "GetTopology" -> stub.getTopology(TopologyRequest.getDefaultInstance());
        case "GetTableSchema" -> stub.getTableSchema(TableSchemaRequest.newBuilder().setTableName("app.orders").build());
        case "ListTables" -> stub.listTables(ListTablesRequest.getDefaultInstance());
        default -> throw new AssertionError("no call written for RPC " + rpc + "; add one here");
      }
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  // ------------------------------------------------------------------ table patterns

  @Test
  void aReaderOfAppCannotRegisterBillingInvoicesAndIsToldWhy() {
    long invoices = schemaAs("admin", "billing.invoices").getTableId();
    long orders = schemaAs("admin", "app.orders").getTableId();
    TestCollector c = TestCollector.over(channel(), headers("reader"));
    try {
      c.hello("reader-collector");
      ControlAck refused = c.ack(TestCollector.register(DispatcherId.random(), TableSpan.wholeTable(invoices), 0)
          .build());
      assertThat(refused.getStatus()).isEqualTo(AckStatus.ACK_STATUS_REJECTED);
      assertThat(refused.getCode()).isEqualTo(ErrorCode.PERMISSION_DENIED.toWire());
      assertThat(refused.getReason()).contains("billing.invoices").contains("[app.*]").contains("reader");
      ControlAck accepted = c.ack(TestCollector.register(DispatcherId.random(), TableSpan.wholeTable(orders), 0)
          .build());
      assertThat(accepted.getStatus()).as(accepted.getReason()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
    } finally {
      c.close();
    }
    assertThat(List.copyOf(audit.list).stream().map(AccessMatrixTest::keyValues)).anyMatch(l -> "REGISTER".equals(l.get("action"))
        && "billing.invoices".equals(l.get("target")) && "reader".equals(l.get("principal")));
  }

  @Test
  void listTablesShowsAReaderOnlyItsTablesAndGetTableSchemaRefusesTheOthers() {
    assertThat(tablesAs("admin")).contains("app.orders", "billing.invoices");
    assertThat(tablesAs("reader")).contains("app.orders").doesNotContain("billing.invoices");
    long invoices = schemaAs("admin", "billing.invoices").getTableId();
    ManagedChannel channel = channel();
    try {
      var reader = EventServiceGrpc.newBlockingStub(ClientInterceptors.intercept(channel,
          MetadataUtils.newAttachHeadersInterceptor(headers("reader")))).withDeadlineAfter(20, TimeUnit.SECONDS);
      assertThat(statusOf(() -> reader.getTableSchema(TableSchemaRequest.newBuilder()
          .setTableName("billing.invoices").build()))).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(statusOf(() -> reader.getTableSchema(TableSchemaRequest.newBuilder().setTableId(invoices).build())))
          .isEqualTo(Status.Code.PERMISSION_DENIED);
      // by name the patterns are checked first: a missing hidden table looks like a present one
      assertThat(statusOf(() -> reader.getTableSchema(TableSchemaRequest.newBuilder()
          .setTableName("billing.nothing").build()))).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(statusOf(() -> reader.getTableSchema(TableSchemaRequest.newBuilder()
          .setTableName("app.nothing").build()))).isEqualTo(Status.Code.NOT_FOUND);
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void theClientLibraryFailsASubscriptionOutsideItsTablesWithTheTypedCode() throws Exception {
    try (SluiceClient client = SluiceClient.connect(ClientConfig.of(rb.grpcAddress())
        .withSecurity(ClientSecurity.none().withToken(TOKENS.get("reader"))))) {
      var byName = client.subscribe(Subscription.table("billing.invoices").from(0), new NoopListener());
      ExecutionException e = org.assertj.core.api.Assertions.catchThrowableOfType(ExecutionException.class,
          () -> byName.streaming().toCompletableFuture().get(30, TimeUnit.SECONDS));
      assertThat(e.getCause()).isInstanceOf(SubscriptionRejectedException.class);
      assertThat(((SubscriptionRejectedException) e.getCause()).code()).isEqualTo(ErrorCode.PERMISSION_DENIED);
      assertThat(e.getCause().getMessage()).contains("billing.invoices");
      var allowed = client.subscribe(Subscription.table("app.orders").from(0), new NoopListener());
      allowed.streaming().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  // ------------------------------------------------------------------ helpers

  private static List<String> tablesAs(String caller) {
    ManagedChannel channel = channel();
    try {
      var stub = EventServiceGrpc.newBlockingStub(ClientInterceptors.intercept(channel,
          MetadataUtils.newAttachHeadersInterceptor(headers(caller)))).withDeadlineAfter(20, TimeUnit.SECONDS);
      return stub.listTables(ListTablesRequest.getDefaultInstance()).getTablesList().stream()
          .map(TableEntry::getTableInfo).map(t -> t.getSchemaName() + "." + t.getTableName()).toList();
    } finally {
      channel.shutdownNow();
    }
  }

  private static TableInfo schemaAs(String caller, String table) {
    ManagedChannel channel = channel();
    try {
      return EventServiceGrpc.newBlockingStub(ClientInterceptors.intercept(channel,
          MetadataUtils.newAttachHeadersInterceptor(headers(caller)))).withDeadlineAfter(20, TimeUnit.SECONDS)
          .getTableSchema(TableSchemaRequest.newBuilder().setTableName(table).build());
    } finally {
      channel.shutdownNow();
    }
  }

  private static Status.Code statusOf(Runnable call) {
    try {
      call.run();
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  private static ManagedChannel channel() {
    return NettyChannelBuilder.forTarget(rb.grpcAddress()).usePlaintext().build();
  }

  private static Metadata headers(String caller) {
    Metadata md = new Metadata();
    if (TOKENS.containsKey(caller)) {
      md.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + TOKENS.get(caller));
    }
    return md;
  }

  private static Map<String, String> keyValues(ILoggingEvent e) {
    Map<String, String> out = new TreeMap<>();
    if (e.getKeyValuePairs() != null) {
      e.getKeyValuePairs().forEach(kv -> out.put(kv.key, String.valueOf(kv.value)));
    }
    return out;
  }

  /** Parses "key | role role ..." rows. */
  private static Map<String, Set<String>> table(String text) {
    Map<String, Set<String>> out = new TreeMap<>();
    text.lines().filter(l -> !l.isBlank()).forEach(l -> {
      String[] parts = l.split("\\|");
      out.put(parts[0].strip(), Set.of(parts[1].strip().split("\\s+")));
    });
    return out;
  }

  private static void startIfNeeded() throws Exception {
    if (rb == null) {
      startBroker();
    }
  }

  private static final class NoopListener implements dev.sluice.dispatcher.ChangeListener {
    @Override
    public void onTransaction(dev.sluice.dispatcher.Transaction txn) {}

    @Override
    public void onError(dev.sluice.api.error.SluiceException error) {}
  }
}
