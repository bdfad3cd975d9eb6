package dev.sluice.broker.publication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.TableSpan;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.api.v1.TableEntry;
import dev.sluice.api.v1.TableList;
import dev.sluice.broker.changefeed.ChangefeedConfig;
import dev.sluice.broker.testing.RunningBroker;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.SubscriptionRejectedException;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.broker.SluiceCommand;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's own publication that lists some tables: the broker still knows every table (DDL capture follows them
 * all), but the changes of a table the publication leaves out never arrive. Before, REGISTER of such a table was
 * accepted and its dispatcher streamed nothing, with nothing to say why. Real PostgreSQL, real broker, real gRPC.
 */
class TablesOutsideThePublicationTest {

  private static final String[] SETUP = {
      "CREATE TABLE public.items (id int PRIMARY KEY, v text)",
      "CREATE SCHEMA \"Mixed\"",
      "CREATE TABLE \"Mixed\".\"Audit Log\" (id int PRIMARY KEY, v text)",
      "CREATE TABLE public.parted (id int, region text, PRIMARY KEY (id, region)) PARTITION BY LIST (region)",
      "CREATE TABLE public.parted_eu PARTITION OF public.parted FOR VALUES IN ('eu')",
      "CREATE PUBLICATION sluice_pub FOR TABLE public.items, public.parted"};

  @Test
  void aTableThePublicationLeavesOutIsFlaggedAndRefusedUntilItIsAdded(@TempDir Path dir) throws Exception {
    try (RunningBroker rb = RunningBroker.start(dir.resolve("broker"), ChangefeedConfig.defaults(), SETUP)) {
      rb.awaitResolved(rb.upstream().currentLsn());
      try (SluiceClient client = SluiceClient.connect(ClientConfig.of(rb.grpcAddress()).withCollectorId("pub")
          .withReconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500)))) {
        // ListTables flags it; the partitioned table is no member of its own (its partition is) and is not flagged
        assertThat(unpublished(client)).containsEntry("Mixed.Audit Log", true).containsEntry("public.items", false)
            .containsEntry("public.parted", false).containsEntry("public.parted_eu", false);
        JsonObject tables = rb.admin().send("GET", "/api/v1/tables", null).json();
        assertThat(tables.getJsonArray("tables").stream().map(JsonObject.class::cast)
            .filter(t -> t.getString("table").equals("Mixed.Audit Log")).findFirst().orElseThrow()
            .getBoolean("published")).isFalse();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = new CommandLine(new SluiceCommand()).setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true)).execute("tables", "--server", rb.adminUrl());
        assertThat(code).as(err.toString()).isZero();
        assertThat(out.toString().lines().filter(l -> l.startsWith("Mixed.Audit Log")).findFirst().orElseThrow())
            .contains(" no ");
        assertThat(err.toString()).contains("the upstream publication leaves 1 table(s) out (Mixed.Audit Log)");
        JsonObject capture = rb.admin().send("GET", "/api/v1/captures", null).json().getJsonArray("captures")
            .getJsonObject(0).getJsonObject("publication_tables");
        assertThat(capture.getBoolean("all_tables")).isFalse();
        assertThat(capture.getInteger("unpublished_count")).isEqualTo(1);
        assertThat(capture.getJsonArray("unpublished").getList()).containsExactly("Mixed.Audit Log");

        // REGISTER is refused with the fix, quoted as SQL takes the names (by name: a space is part of one)
        TableSpan audit = TableSpan.wholeTable(rb.upstream().oid("\"Mixed\".\"Audit Log\""));
        Listener refused = new Listener();
        client.subscribe(Subscription.table("Mixed.Audit Log").from(0), refused);
        await().atMost(Duration.ofSeconds(30)).until(() -> refused.error.get() != null);
        assertThat(refused.error.get()).isInstanceOf(SubscriptionRejectedException.class);
        assertThat(refused.error.get().code()).isEqualTo(ErrorCode.TABLE_NOT_PUBLISHED);
        assertThat(refused.error.get().getMessage()).contains("publication sluice_pub does not publish it")
            .contains("ALTER PUBLICATION sluice_pub ADD TABLE \"Mixed\".\"Audit Log\"");

        // a published table is served as before
        Listener items = new Listener();
        client.subscribe(Subscription.table("public.items").from(0), items);
        rb.upstream().txn("INSERT INTO public.items VALUES (1, 'a')");
        await().atMost(Duration.ofSeconds(30)).until(() -> items.commits.size() == 1);

        // added to the publication: read again within seconds, then served with its changes
        rb.upstream().exec("ALTER PUBLICATION sluice_pub ADD TABLE \"Mixed\".\"Audit Log\"");
        await().atMost(Duration.ofSeconds(30)).until(() -> !unpublished(client).get("Mixed.Audit Log"));
        assertThat(rb.broker().meterRegistry().get("sluice.capture.publication.unpublished").gauge().value()).isZero();
        Listener added = new Listener();
        SubscriptionHandle h = client.subscribe(Subscription.span(audit).from(0), added);
        rb.upstream().txn("INSERT INTO \"Mixed\".\"Audit Log\" VALUES (1, 'x')");
        await().atMost(Duration.ofSeconds(30)).until(() -> added.commits.size() == 1 || added.error.get() != null);
        assertThat(added.error.get()).isNull();

        // taken out again while streaming: the dispatcher goes on (nothing of it arrives), the admin API says so
        rb.upstream().exec("ALTER PUBLICATION sluice_pub DROP TABLE \"Mixed\".\"Audit Log\"");
        await().atMost(Duration.ofSeconds(30)).until(() -> rb.admin().send("GET", "/api/v1/dispatchers", null).json()
            .getJsonArray("dispatchers").stream().map(JsonObject.class::cast)
            .filter(d -> !d.getBoolean("published")).count() == 1);
        h.close();

        // a table created outside the publication is flagged at once: capture reads it again after the DDL
        rb.upstream().exec("CREATE TABLE public.later (id int PRIMARY KEY)");
        await().atMost(Duration.ofSeconds(30)).until(() -> unpublished(client).getOrDefault("public.later", false));
      }
    }
  }

  @Test
  void aForAllTablesPublicationLeavesNothingOut(@TempDir Path dir) throws Exception {
    try (RunningBroker rb = RunningBroker.start(dir.resolve("broker"), ChangefeedConfig.defaults(),
        "CREATE TABLE public.items (id int PRIMARY KEY)", "CREATE UNLOGGED TABLE public.scratch (id int)")) {
      rb.awaitResolved(rb.upstream().currentLsn());
      try (SluiceClient client = SluiceClient.connect(ClientConfig.of(rb.grpcAddress()).withCollectorId("all"))) {
        // an unlogged table is not captured at all (unknown), the others are published
        assertThat(unpublished(client)).containsEntry("public.items", false).doesNotContainKey("public.scratch");
      }
      JsonObject capture = rb.admin().send("GET", "/api/v1/captures", null).json().getJsonArray("captures")
          .getJsonObject(0).getJsonObject("publication_tables");
      assertThat(capture.getBoolean("all_tables")).isTrue();
      assertThat(capture.getInteger("unpublished_count")).isZero();
    }
  }

  @Test
  void aForTablesInSchemaPublicationLeavesOutTheOtherSchemasTablesAndTakesNewOnesOfItsOwn(@TempDir Path dir)
      throws Exception {
    try (RunningBroker rb = RunningBroker.start(dir.resolve("broker"), ChangefeedConfig.defaults(),
        "CREATE SCHEMA sales", "CREATE TABLE sales.orders (id int PRIMARY KEY)",
        "CREATE TABLE public.notes (id int PRIMARY KEY)", "CREATE PUBLICATION sluice_pub FOR TABLES IN SCHEMA sales")) {
      rb.awaitResolved(rb.upstream().currentLsn());
      try (SluiceClient client = SluiceClient.connect(ClientConfig.of(rb.grpcAddress()).withCollectorId("schema"))) {
        assertThat(unpublished(client)).containsEntry("sales.orders", false).containsEntry("public.notes", true);
        rb.upstream().exec("CREATE TABLE sales.refunds (id int PRIMARY KEY)");
        await().atMost(Duration.ofSeconds(30)).until(() -> unpublished(client).containsKey("sales.refunds"));
        assertThat(unpublished(client)).containsEntry("sales.refunds", false);
      }
    }
  }

  private static Map<String, Boolean> unpublished(SluiceClient client) throws Exception {
    TableList list = client.listTables(0).toCompletableFuture().get(30, TimeUnit.SECONDS);
    return list.getTablesList().stream().collect(Collectors.toMap(
        (TableEntry e) -> e.getTableInfo().getSchemaName() + "." + e.getTableInfo().getTableName(),
        TableEntry::getUnpublished));
  }

  private static final class Listener implements ChangeListener {
    final AtomicReference<SluiceException> error = new AtomicReference<>();
    final List<Long> commits = new CopyOnWriteArrayList<>();

    @Override
    public void onTransaction(Transaction t) {
      commits.add(t.commitTs());
    }

    @Override
    public void onError(SluiceException e) {
      error.set(e);
    }
  }
}
