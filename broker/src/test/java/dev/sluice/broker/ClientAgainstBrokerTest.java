package dev.sluice.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.api.v1.DdlType;
import dev.sluice.api.v1.TableEntry;
import dev.sluice.broker.capture.CaptureConfig;
import dev.sluice.broker.capture.TestPostgres;
import dev.sluice.broker.upstream.DemoWorkloadConfig;
import dev.sluice.broker.upstream.UpstreamConfig;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.StateChange;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.SubscriptionRejectedException;
import dev.sluice.dispatcher.SubscriptionStalledException;
import dev.sluice.dispatcher.SubscriptionState;
import dev.sluice.dispatcher.Transaction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The client library's positions and lifecycle against one real broker (embedded PostgreSQL upstream, real
 * gRPC): a table subscribed by name from before its creation, "from now", a checkpoint with a cursor inside a
 * transaction delivered in parts, a start ts the broker never reaches, an unknown table (issue #18).
 */
class ClientAgainstBrokerTest {

  private static TestPostgres pg;
  private static Broker broker;
  private static Path dir;
  private static String address;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("sluice-client");
    pg = TestPostgres.start();
    pg.exec("CREATE TABLE public.early (id int PRIMARY KEY, v text)");
    BrokerConfig config = new BrokerConfig("node-client", dir, UpstreamConfig.external(pg.jdbcUrl(), "postgres", null),
        CaptureConfig.defaults("node-client").withHeartbeatInterval(Duration.ofMillis(50)), false,
        DemoWorkloadConfig.defaults());
    broker = new Broker(config);
    broker.start();
    address = "127.0.0.1:" + broker.eventService().port();
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      broker.close();
    }
    if (pg != null) {
      pg.close();
    }
  }

  private static ClientConfig config(String id) {
    return ClientConfig.of(address).withCollectorId(id).withReconnectBackoff(Duration.ofMillis(50),
        Duration.ofMillis(500));
  }

  /** Collects rows, DDL and state changes; acknowledges each transaction with the handle it was given. */
  static class Collecting implements ChangeListener {
    final SubscriptionHandle handle;
    final List<String> calls = new CopyOnWriteArrayList<>();
    final List<Long> ids = new CopyOnWriteArrayList<>();
    final List<Transaction> transactions = new CopyOnWriteArrayList<>();
    final List<StateChange> states = new CopyOnWriteArrayList<>();
    final AtomicReference<SluiceException> error = new AtomicReference<>();
    volatile boolean acknowledge = true;

    Collecting(SubscriptionHandle handle) {
      this.handle = handle;
    }

    @Override
    public void onTransaction(Transaction txn) {
      transactions.add(txn);
      for (RowChangeView row : txn.rows()) {
        ids.add(row.after().getLong("id"));
        calls.add("row " + row.after().getLong("id"));
      }
      if (acknowledge) {
        handle.acknowledge(txn.checkpoint());   // the handle given to the factory: never null, safely published
      }
    }

    @Override
    public void onDdl(DdlChange ddl) {
      calls.add("ddl " + ddl.ddlType());
    }

    @Override
    public void onStateChange(StateChange change) {
      states.add(change);
    }

    @Override
    public void onError(SluiceException e) {
      error.set(e);
    }
  }

  private static long createdTs(SluiceClient client, String table) throws Exception {
    for (TableEntry e : client.listTables(0).toCompletableFuture().get(10, TimeUnit.SECONDS).getTablesList()) {
      if ((e.getTableInfo().getSchemaName() + "." + e.getTableInfo().getTableName()).equals(table)) {
        return e.getCreatedTs();
      }
    }
    return -1;
  }

  @Test
  void aTableSubscribedByNameFromBeforeItsCreationStreamsAndDeliversTheCreateFirst() throws Exception {
    pg.exec("CREATE TABLE public.late (id int PRIMARY KEY, v text)");
    long insert = pg.txn("INSERT INTO public.late VALUES (1, 'a')");
    try (SluiceClient client = SluiceClient.connect(config("by-name"))) {
      await().atMost(Duration.ofSeconds(30)).until(() -> createdTs(client, "public.late") > 0);
      long created = createdTs(client, "public.late");
      AtomicReference<Collecting> listener = new AtomicReference<>();
      Function<SubscriptionHandle, ChangeListener> factory = h -> {
        Collecting c = new Collecting(h);
        listener.set(c);
        return c;
      };
      try (SubscriptionHandle h = client.subscribe(Subscription.table("public.late").from(created - 1), factory)) {
        h.streaming().toCompletableFuture().get(30, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(30)).until(() -> listener.get().ids.contains(1L)
            || listener.get().error.get() != null);
        assertThat(listener.get().error.get()).isNull();
        assertThat(listener.get().calls).containsExactly("ddl " + DdlType.DDL_TYPE_CREATE_TABLE, "row 1");
        long commitTs = listener.get().transactions.get(0).commitTs();
        assertThat(commitTs).isLessThanOrEqualTo(insert);
        await().atMost(Duration.ofSeconds(10)).until(() -> h.acknowledged().equals(Checkpoint.at(commitTs)));
      }
    }
  }

  @Test
  void anUnknownTableIsRefusedWithASentenceNotAStatusNumber() throws Exception {
    AtomicReference<SluiceException> error = new AtomicReference<>();
    try (SluiceClient client = SluiceClient.connect(config("unknown"))) {
      SubscriptionHandle h = client.subscribe(Subscription.table("public.nope").from(0), new ChangeListener() {
        @Override
        public void onTransaction(Transaction t) {}

        @Override
        public void onError(SluiceException e) {
          error.set(e);
        }
      });
      await().atMost(Duration.ofSeconds(30)).until(() -> error.get() != null);
      assertThat(error.get()).isInstanceOf(SubscriptionRejectedException.class);
      assertThat(error.get().code()).isEqualTo(ErrorCode.UNKNOWN_TABLE);
      assertThat(error.get().getMessage()).contains("public.nope").contains("is unknown to the broker")
          .doesNotContainPattern("answered \\d");
      assertThat(h.state()).isEqualTo(SubscriptionState.FAILED);
    }
  }

  @Test
  void tableSchemaOfAnUnknownTableFailsWithATypedErrorNamingTheBrokersReason() throws Exception {
    try (SluiceClient client = SluiceClient.connect(config("schema-lookup"))) {
      java.util.concurrent.ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(
          java.util.concurrent.ExecutionException.class,
          () -> client.tableSchema("public.nope", 0).toCompletableFuture().get(30, TimeUnit.SECONDS));
      assertThat(failed.getCause()).isInstanceOfSatisfying(dev.sluice.api.error.RequestRejectedException.class, e -> {
        assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_TABLE);
        assertThat(e.getMessage()).startsWith("GetTableSchema failed: broker " + address + " answered NOT_FOUND")
            .contains("public.nope").doesNotContainPattern("answered \\d").doesNotContain("Exception");
      });
      assertThat(client.tableSchema("public.early", 0).toCompletableFuture().get(30, TimeUnit.SECONDS)
          .getTableName()).isEqualTo("early");
    }
  }

  @Test
  void fromNowDeliversOnlyWhatCommitsAfterTheSubscriptionStarted() throws Exception {
    long before = pg.txn("INSERT INTO public.early VALUES (100, 'old')");
    await().atMost(Duration.ofSeconds(30)).until(() -> broker.eventStore().resolvedTs() >= before);
    try (SluiceClient client = SluiceClient.connect(config("from-now"))) {
      AtomicReference<Collecting> listener = new AtomicReference<>();
      try (SubscriptionHandle h = client.subscribe(Subscription.table("public.early").fromNow(), handle -> {
        listener.set(new Collecting(handle));
        return listener.get();
      })) {
        h.streaming().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(h.acknowledged().ts()).isGreaterThanOrEqualTo(before);
        pg.txn("INSERT INTO public.early VALUES (101, 'new')");
        await().atMost(Duration.ofSeconds(30)).until(() -> listener.get().ids.contains(101L));
        assertThat(listener.get().ids).containsExactly(101L);
        assertThat(listener.get().states).extracting(StateChange::state)
            .containsSubsequence(SubscriptionState.CONNECTING, SubscriptionState.STREAMING);
      }
    }
  }

  @Test
  void aSavedCheckpointWithACursorResumesAfterTheLastAppliedRowOfALargeTransaction() throws Exception {
    pg.exec("CREATE TABLE public.bulk (id int PRIMARY KEY, pad text)");
    long created;
    // a small credit makes the broker send the transaction in fragments, and the client hands it over in parts
    ClientConfig small = config("bulk-1").withDispatcherQueueBytes(16 * 1024).withMaxTransactionBytes(4096);
    try (SluiceClient probe = SluiceClient.connect(small)) {
      await().atMost(Duration.ofSeconds(30)).until(() -> createdTs(probe, "public.bulk") > 0);
      created = createdTs(probe, "public.bulk");
    }
    long bulk = pg.txn("INSERT INTO public.bulk SELECT g, repeat('x', 200) FROM generate_series(1, 300) g");

    // first run: applies the first part only, saves its checkpoint (with a cursor) and goes away
    AtomicReference<Checkpoint> saved = new AtomicReference<>();
    try (SluiceClient client = SluiceClient.connect(small)) {
      AtomicReference<Collecting> listener = new AtomicReference<>();
      try (SubscriptionHandle h = client.subscribe(Subscription.table("public.bulk").from(created), handle -> {
        Collecting c = new Collecting(handle) {
          @Override
          public void onTransaction(Transaction txn) {
            if (saved.get() == null) {
              handle.acknowledge(txn.checkpoint());
              saved.set(txn.checkpoint());
            }
          }
        };
        listener.set(c);
        return c;
      })) {
        await().atMost(Duration.ofSeconds(30)).until(() -> saved.get() != null);
      }
    }
    Checkpoint cursor = saved.get();
    assertThat(cursor.hasCursor()).as("a part of a transaction delivered in parts carries a cursor").isTrue();
    assertThat(cursor.cursorCommitTs()).isLessThanOrEqualTo(bulk);

    // second run: from the saved checkpoint, exactly the rows after the cursor
    try (SluiceClient client = SluiceClient.connect(small.withCollectorId("bulk-2"))) {
      AtomicReference<Collecting> listener = new AtomicReference<>();
      try (SubscriptionHandle h = client.subscribe(Subscription.table("public.bulk").from(cursor), handle -> {
        listener.set(new Collecting(handle));
        return listener.get();
      })) {
        await().atMost(Duration.ofSeconds(30)).until(() -> listener.get().transactions.stream()
            .anyMatch(Transaction::lastPart) || listener.get().error.get() != null);
        assertThat(listener.get().error.get()).isNull();
        List<Long> seqs = listener.get().transactions.stream().flatMap(t -> t.rows().stream())
            .map(RowChangeView::rowSeq).toList();
        assertThat(seqs.get(0)).isEqualTo(cursor.nextRowSeq());
        assertThat(seqs).doesNotHaveDuplicates().hasSize(300 - (int) cursor.nextRowSeq());
        assertThat(listener.get().ids).hasSize(300 - (int) cursor.nextRowSeq()).doesNotHaveDuplicates();
        assertThat(listener.get().transactions).allSatisfy(t -> assertThat(t.commitTs()).isEqualTo(cursor.cursorCommitTs()));
        await().atMost(Duration.ofSeconds(10)).until(() -> h.acknowledged().equals(Checkpoint.at(cursor.cursorCommitTs())));
      }
    }
  }

  @ParameterizedTest(name = "from({0})")
  @ValueSource(longs = {1L << 40, Long.MAX_VALUE})   // the two
  void aStartTsTheBrokerNeverReachesFailsAfterTheRetryTimeoutWithStartTsAhead(long startTs) throws Exception {
    try (SluiceClient client = SluiceClient.connect(config("ahead").withRetryTimeout(Duration.ofSeconds(2)))) {
      AtomicReference<Collecting> listener = new AtomicReference<>();
      SubscriptionHandle h = client.subscribe(Subscription.table("public.early").from(startTs), handle -> {
        listener.set(new Collecting(handle));
        return listener.get();
      });
      await().atMost(Duration.ofSeconds(30)).until(() -> listener.get().error.get() != null);
      assertThat(listener.get().error.get()).isInstanceOfSatisfying(SubscriptionStalledException.class, e -> {
        assertThat(e.code()).isEqualTo(ErrorCode.START_TS_AHEAD);
        assertThat(e.getMessage()).contains("public.early").contains(Long.toString(startTs))
            .contains("resolved ts");
      });
      assertThat(h.streaming().toCompletableFuture()).isCompletedExceptionally();
      assertThat(listener.get().states).anySatisfy(s -> {
        assertThat(s.state()).isEqualTo(SubscriptionState.RETRYING);
        assertThat(s.code()).isEqualTo(ErrorCode.START_TS_AHEAD);
      });
      assertThat(h.state()).isEqualTo(SubscriptionState.FAILED);
    }
  }
}
