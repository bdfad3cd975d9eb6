package dev.sluice.broker.snapshot;

import dev.sluice.api.pgtext.CopyText;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.v1.AckStatus;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.ControlAck;
import dev.sluice.api.v1.DataEvent;
import dev.sluice.api.v1.DmlBatch;
import dev.sluice.api.v1.Handshake;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.SnapshotDone;
import dev.sluice.api.v1.SnapshotRequest;
import dev.sluice.api.v1.SnapshotStatus;
import dev.sluice.api.v1.Value;
import dev.sluice.broker.Broker;
import dev.sluice.broker.BrokerConfig;
import dev.sluice.broker.capture.CaptureConfig;
import dev.sluice.broker.capture.TestPostgres;
import dev.sluice.broker.control.EventServiceLimits;
import dev.sluice.api.error.SluiceException;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.SnapshotMark;
import dev.sluice.dispatcher.SnapshotOutcome;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.Transaction;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import dev.sluice.broker.testing.ReceiverRules;
import dev.sluice.broker.testing.TestCollector;
import dev.sluice.broker.upstream.DemoWorkloadConfig;
import dev.sluice.broker.upstream.UpstreamConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Snapshots through a whole broker on a real PostgreSQL, read by a stock grpc-java collector: the stream of
 * a dispatcher that asked for a snapshot, applied to an empty table (sink semantics), equals the upstream
 * table at the end although a writer updated (with and without a change of the TOASTed column), deleted and
 * inserted keys all through the snapshot; the READ rows come at their chunks' high watermarks, each chunk's
 * last part carries its progress, and SnapshotDone closes it. Requests the broker cannot serve are refused
 * with a typed reason.
 */
class SnapshotEndToEndTest {

  @TempDir
  static Path dir;
  private static TestPostgres pg;
  private static Broker broker;

  @BeforeAll
  static void start() {
    pg = TestPostgres.start();
    BrokerConfig base = new BrokerConfig("node-snap", dir, UpstreamConfig.external(pg.jdbcUrl(), "postgres", null),
        CaptureConfig.defaults("node-snap").withHeartbeatInterval(Duration.ofMillis(50)), false,
        DemoWorkloadConfig.defaults());
    var es = base.serve().eventService();
    BrokerConfig config = base.withServe(base.serve().withEventService(es.withSnapshot(es.snapshot()
        .withChunkRows(150).withRetryBackoff(Duration.ofMillis(50), Duration.ofMillis(500)))));
    broker = new Broker(config);
    broker.start();
  }

  @AfterAll
  static void stop() {
    if (broker != null) {
      broker.close();
    }
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void aSnapshotMergedWithConcurrentChangesEqualsTheUpstreamTable() throws Exception {
    pg.exec("CREATE TABLE public.items (id bigint PRIMARY KEY, v text, big text)",
        "ALTER TABLE public.items ALTER big SET STORAGE EXTERNAL",   // out of line: unchanged ones come unavailable
        "INSERT INTO public.items SELECT i, 'v' || i, repeat(md5(i::text), 80) FROM generate_series(1, 2000) i",
        "ANALYZE public.items");
    long table = pg.oid("public.items");
    long start = pg.currentLsn();
    await().atMost(Duration.ofSeconds(30)).until(() -> broker.eventStore().resolvedTs() >= start);

    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong writes = new AtomicLong();
    CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> write(stop, writes));
    ReceiverRules rules = new ReceiverRules();
    ReplicaTable replica = new ReplicaTable(3);
    List<DmlBatch> reads = new ArrayList<>();
    try (TestCollector c = TestCollector.connect(broker.eventService().port())) {
      c.hello("snap");
      DispatcherId id = DispatcherId.random();
      SnapshotRequest fromStart = SnapshotRequest.getDefaultInstance();
      assertThat(c.ack(TestCollector.register(id, TableSpan.wholeTable(table), start).setSnapshot(fromStart).build())
          .getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
      c.next(BrokerMessage::hasReady);
      c.request(TestCollector.reset(id, 1, start).setSnapshot(fromStart).build());
      Handshake hs = c.next(BrokerMessage::hasHandshake).getHandshake();
      rules.accept(BrokerMessage.newBuilder().setHandshake(hs).build());
      c.credit(id, 1, 256L << 20, 0);

      c.takeUntil(m -> collect(m, rules, replica, reads), m -> rules.snapshotDone(id) != null, Duration.ofSeconds(120));
      stop.set(true);
      writer.get();
      long end = pg.txn("INSERT INTO public.items VALUES (100000, 'last', 'x')");
      c.takeUntil(m -> collect(m, rules, replica, reads), m -> rules.resolvedTs(id) >= end, Duration.ofSeconds(60));

      assertThat(rules.violations()).isEmpty();
      SnapshotDone done = rules.snapshotDone(id);
      assertThat(done.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
      assertThat(done.getChunks()).as("150-row chunks of ~2000 rows less deletes").isGreaterThanOrEqualTo(5);
      assertThat(writes.get()).as("writes during the snapshot").isGreaterThan(50);
      List<DmlBatch> lastParts = reads.stream().filter(DmlBatch::hasSnapshot).toList();
      assertThat(lastParts).hasSize((int) done.getChunks());
      assertThat(lastParts).allSatisfy(b -> assertThat(b.getLastFragment()).isTrue());
      assertThat(lastParts.get(lastParts.size() - 1).getSnapshot().getRowsRead()).isEqualTo(done.getRowsRead());
      assertThat(lastParts.get(0).getSnapshot().getRowsEstimate()).as("pg_class.reltuples").isPositive();
      assertThat(replica.rows()).isEqualTo(upstream());
      assertThat(reads).as("a stream with copy-text gets the chunks after a table's first as COPY text lines")
          .anySatisfy(b -> assertThat(b.hasCopyRows()).isTrue());
      assertThat(reads).as("the first chunk, read by the cursor to learn the rows' size, as RowChanges")
          .anySatisfy(b -> assertThat(b.getRowsCount()).isPositive());
    }
  }

  @Test
  void aStreamWithoutCopyTextGetsEveryReadRowAsARowChange() throws Exception {
    pg.exec("CREATE TABLE public.plain_items (id bigint PRIMARY KEY, v text, n int)",
        "INSERT INTO public.plain_items SELECT i, 'v' || i, i FROM generate_series(1, 1000) i",
        "ANALYZE public.plain_items");
    long table = pg.oid("public.plain_items");
    long start = pg.currentLsn();
    await().atMost(Duration.ofSeconds(30)).until(() -> broker.eventStore().resolvedTs() >= start);
    ReceiverRules rules = new ReceiverRules();
    ReplicaTable replica = new ReplicaTable(3);
    List<DmlBatch> reads = new ArrayList<>();
    try (TestCollector c = TestCollector.connect(broker.eventService().port())) {
      java.util.Set<String> features = new java.util.HashSet<>(dev.sluice.api.ProtocolInfo.BROKER_FEATURES);
      features.remove(dev.sluice.api.ProtocolInfo.FEATURE_COPY_TEXT);
      assertThat(c.hello("plain", features).getFeaturesList()).doesNotContain("copy-text");
      DispatcherId id = DispatcherId.random();
      SnapshotRequest fromStart = SnapshotRequest.getDefaultInstance();
      assertThat(c.ack(TestCollector.register(id, TableSpan.wholeTable(table), start).setSnapshot(fromStart).build())
          .getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
      c.next(BrokerMessage::hasReady);
      c.request(TestCollector.reset(id, 1, start).setSnapshot(fromStart).build());
      rules.accept(BrokerMessage.newBuilder().setHandshake(c.next(BrokerMessage::hasHandshake).getHandshake()).build());
      c.credit(id, 1, 256L << 20, 0);
      c.takeUntil(m -> collect(m, rules, replica, reads), m -> rules.snapshotDone(id) != null, Duration.ofSeconds(60));
      assertThat(rules.violations()).isEmpty();
      assertThat(rules.snapshotDone(id).getChunks()).isGreaterThan(2);
      assertThat(reads).noneSatisfy(b -> assertThat(b.hasCopyRows()).isTrue());
      assertThat(replica.rows()).isEqualTo(upstream("plain_items", "n"));
    }
  }

  @Test
  void aSnapshotOnAStreamWithoutTheFeatureIsRefusedWithATypedReason() {
    pg.exec("CREATE TABLE IF NOT EXISTS public.refused (id int PRIMARY KEY)");
    long table = pg.oid("public.refused");
    long start = pg.currentLsn();
    await().atMost(Duration.ofSeconds(30)).until(() -> broker.eventStore().resolvedTs() >= start);
    try (TestCollector c = TestCollector.connect(broker.eventService().port())) {
      c.send(dev.sluice.api.v1.CollectorMessage.newBuilder().setHello(dev.sluice.api.v1.Hello.newBuilder()
          .setCollectorId("old").setProtocolVersion(1).addOptionalFeatures("credits")
          .addOptionalFeatures("resolved-batch")).build());
      c.next(BrokerMessage::hasWelcome);
      ControlAck ack = c.ack(TestCollector.register(DispatcherId.random(), TableSpan.wholeTable(table), start)
          .setSnapshot(SnapshotRequest.getDefaultInstance()).build());
      assertThat(ack.getStatus()).isEqualTo(AckStatus.ACK_STATUS_REJECTED);
      assertThat(ack.getCode()).isEqualTo(ErrorCode.UNSUPPORTED_FEATURE.toWire());
      assertThat(ack.getReason()).contains("'snapshot'");
    }
    try (TestCollector c = TestCollector.connect(broker.eventService().port())) {
      c.hello("bad-key");
      ControlAck ack = c.ack(TestCollector.register(DispatcherId.random(), TableSpan.wholeTable(table), start)
          .setSnapshot(SnapshotRequest.newBuilder().addAfterKey(Value.newBuilder().setInt64Value(1))
              .addAfterKey(Value.newBuilder().setInt64Value(2))).build());
      assertThat(ack.getStatus()).isEqualTo(AckStatus.ACK_STATUS_REJECTED);
      assertThat(ack.getCode()).isEqualTo(ErrorCode.INVALID_REQUEST.toWire());
      assertThat(ack.getReason()).contains("after_key has 2 values").contains("public.refused").contains("[id]");
    }
  }

  @Test
  void theClientLibraryDeliversASnapshotThatPausesResumesAndEndsComplete() throws Exception {
    pg.exec("CREATE TABLE public.lib_items (id bigint PRIMARY KEY, v text, n int)",
        "INSERT INTO public.lib_items SELECT i, 'v' || i, i FROM generate_series(1, 3000) i", "ANALYZE public.lib_items");
    long start = pg.currentLsn();
    await().atMost(Duration.ofSeconds(30)).until(() -> broker.eventStore().resolvedTs() >= start);
    EventServiceLimits before = broker.eventService().limits();
    broker.eventService().updateLimits(before.withSnapshotRates(1000, 0));   // ~7 chunks a second: time to pause
    RecordingSnapshotListener listener = new RecordingSnapshotListener();
    try (SluiceClient client = SluiceClient.connect(ClientConfig.of("127.0.0.1:" + broker.eventService().port()))) {
      SubscriptionHandle h = client.subscribe(Subscription.table("public.lib_items").from(start).withSnapshot(),
          listener);
      listener.handle = h;
      await().atMost(Duration.ofSeconds(60)).until(() -> listener.marks.size() >= 2);
      h.pauseSnapshot();
      await().atMost(Duration.ofSeconds(30)).until(() -> h.stats().epoch() >= 2 && h.snapshotPaused());
      int paused = listener.marks.size();
      await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5))
          .until(() -> listener.marks.size() <= paused + 1);   // a chunk already on its way may still land
      assertThat(listener.outcome.get()).isNull();
      long readsWhilePaused = listener.reads.get();
      long lastKeyBefore = listener.lastReadKey.get();
      broker.eventService().updateLimits(before);
      h.resumeSnapshot();
      await().atMost(Duration.ofSeconds(60)).until(() -> listener.outcome.get() != null);
      assertThat(listener.outcome.get().status()).isEqualTo(SnapshotOutcome.Status.COMPLETE);
      assertThat(h.snapshotCursor()).as("nothing left to ask for").isNull();
      assertThat(listener.firstReadKeyAfter(readsWhilePaused)).as("resumed after the last chunk, not from the start")
          .isGreaterThan(lastKeyBefore);
      long end = pg.txn("UPDATE public.lib_items SET n = -1 WHERE id = 7");
      await().atMost(Duration.ofSeconds(30)).until(() -> listener.resolved.get() >= end);
      assertThat(listener.replica.rows()).isEqualTo(upstream("lib_items", "n"));
    } finally {
      broker.eventService().updateLimits(before);
    }
  }

  @Test
  void aCancelledSnapshotEndsCancelledAndChangesGoOn() throws Exception {
    pg.exec("CREATE TABLE public.cancel_items (id bigint PRIMARY KEY, v text, n int)",
        "INSERT INTO public.cancel_items SELECT i, 'v' || i, i FROM generate_series(1, 3000) i");
    long start = pg.currentLsn();
    await().atMost(Duration.ofSeconds(30)).until(() -> broker.eventStore().resolvedTs() >= start);
    EventServiceLimits before = broker.eventService().limits();
    broker.eventService().updateLimits(before.withSnapshotRates(300, 0));
    RecordingSnapshotListener listener = new RecordingSnapshotListener();
    try (SluiceClient client = SluiceClient.connect(ClientConfig.of("127.0.0.1:" + broker.eventService().port()))) {
      SubscriptionHandle h = client.subscribe(Subscription.table("public.cancel_items").from(start).withSnapshot(),
          listener);
      listener.handle = h;
      await().atMost(Duration.ofSeconds(60)).until(() -> !listener.marks.isEmpty());
      h.cancelSnapshot();
      await().atMost(Duration.ofSeconds(30)).until(() -> listener.outcome.get() != null);
      assertThat(listener.outcome.get().status()).isEqualTo(SnapshotOutcome.Status.CANCELLED);
      assertThat(h.snapshotCursor()).isNull();
      pg.txn("INSERT INTO public.cancel_items VALUES (5000, 'after', 1)");
      await().atMost(Duration.ofSeconds(30)).until(() -> listener.replica.rows().containsKey(5000L));
      assertThat(listener.replica.rows().size()).as("the snapshot stopped early").isLessThan(3000);
    } finally {
      broker.eventService().updateLimits(before);
    }
  }

  /**
   * Regression: chunks were read as {@code column::text}, whose casts differ from the types' output (what
   * pgoutput sends) for some types: a boolean came as "true" instead of t (so it fell back to text), a
   * char(n) lost its padding. A READ row must hold exactly the values a captured INSERT of the same row holds.
   */
  @Test
  void readRowsHoldExactlyTheValuesACapturedInsertOfTheSameRowHolds() throws Exception {
    String values = "true, 'ab', 12.50, '2024-05-01 12:00:00.5+02', '\\x00ff', '{1,2}', '{\"a\": [1, 2]}',"
        + " '2b5ec7d4-5c5e-4c4f-9b0c-8b1f1f5b2a11', '2024-02-29', 1.5::float4, '1 day 02:00'";
    pg.exec("CREATE TABLE public.typed (id int PRIMARY KEY, b boolean, c char(5), n numeric(6,2), t timestamptz,"
        + " y bytea, a int[], j jsonb, u uuid, d date, f real, i interval)",
        "INSERT INTO public.typed VALUES (1, " + values + ")");
    long start = pg.currentLsn();
    await().atMost(Duration.ofSeconds(30)).until(() -> broker.eventStore().resolvedTs() >= start);
    List<RowChangeView> rows = new CopyOnWriteArrayList<>();
    try (SluiceClient client = SluiceClient.connect(ClientConfig.of("127.0.0.1:" + broker.eventService().port()))) {
      client.subscribe(Subscription.table("public.typed").from(start).withSnapshot(), new ChangeListener() {
        @Override
        public void onTransaction(Transaction txn) {
          rows.addAll(txn.rows());
        }

        @Override
        public void onError(SluiceException error) {
        }
      });
      await().atMost(Duration.ofSeconds(60)).until(() -> rows.stream().anyMatch(r -> r.op() == RowOp.ROW_OP_READ));
      pg.txn("INSERT INTO public.typed VALUES (2, " + values + ")");
      await().atMost(Duration.ofSeconds(30)).until(() -> rows.stream().anyMatch(r -> r.op() == RowOp.ROW_OP_INSERT));
    }
    List<Value> read = rows.stream().filter(r -> r.op() == RowOp.ROW_OP_READ).findFirst().orElseThrow().after().values();
    List<Value> inserted = rows.stream().filter(r -> r.op() == RowOp.ROW_OP_INSERT).findFirst().orElseThrow().after()
        .values();
    assertThat(read.subList(1, read.size())).isEqualTo(inserted.subList(1, inserted.size()));
    assertThat(read.get(1).hasBoolValue()).isTrue();
    assertThat(read.get(2).getStringValue()).isEqualTo("ab   ");
  }

  /** Applies what the library delivers to a replica, acknowledging each transaction once applied. */
  private static final class RecordingSnapshotListener implements ChangeListener {
    final ReplicaTable replica = new ReplicaTable(3);
    final List<SnapshotMark> marks = new CopyOnWriteArrayList<>();
    final List<Long> readKeys = new CopyOnWriteArrayList<>();
    final AtomicLong reads = new AtomicLong();
    final AtomicLong lastReadKey = new AtomicLong();
    final AtomicLong resolved = new AtomicLong();
    final AtomicReference<SnapshotOutcome> outcome = new AtomicReference<>();
    final AtomicReference<SluiceException> error = new AtomicReference<>();
    volatile SubscriptionHandle handle;   // set once subscribed; until then nothing is acknowledged

    @Override
    public void onTransaction(Transaction txn) {
      synchronized (replica) {
        for (RowChangeView r : txn.rows()) {
          replica.apply(r);
          if (r.op() == RowOp.ROW_OP_READ) {
            readKeys.add(r.after().getLong("id"));
            reads.incrementAndGet();
            lastReadKey.set(r.after().getLong("id"));
          }
        }
      }
      if (txn.snapshot() != null) {
        marks.add(txn.snapshot());
      }
      SubscriptionHandle h = handle;
      if (h != null) {
        h.acknowledge(txn.checkpoint());
      }
    }

    @Override
    public void onResolved(long ts) {
      resolved.set(ts);
      SubscriptionHandle h = handle;
      if (h != null) {
        h.acknowledge(ts);
      }
    }

    @Override
    public void onSnapshotComplete(SnapshotOutcome o) {
      outcome.set(o);
    }

    @Override
    public void onError(SluiceException e) {
      error.set(e);
    }

    /** The key of the first READ row after the first {@code n}. */
    long firstReadKeyAfter(long n) {
      return readKeys.get((int) n);
    }
  }

  private static void collect(BrokerMessage m, ReceiverRules rules, ReplicaTable replica, List<DmlBatch> reads) {
    rules.accept(m);
    if (!m.hasEventBatch()) {
      return;
    }
    for (DataEvent e : m.getEventBatch().getEventsList()) {
      if (e.hasDml()) {
        boolean read = false;
        DmlBatch d = e.getDml();
        for (RowChange r : d.hasCopyRows() ? CopyText.rowChanges(d.getCopyRows()) : d.getRowsList()) {
          replica.apply(r);
          read |= r.getOp() == RowOp.ROW_OP_READ;
        }
        if (read || d.hasSnapshot()) {
          reads.add(e.getDml());
        }
      }
    }
  }

  /** Updates of v only (big stays out of line: unavailable in the log), of big, deletes and inserts. */
  private static void write(AtomicBoolean stop, AtomicLong writes) {
    Random random = new Random(17);
    try (Connection c = pg.connect(); Statement s = c.createStatement()) {
      while (!stop.get()) {
        long key = 1 + random.nextInt(2100);
        switch (random.nextInt(4)) {
          case 0 -> s.execute("UPDATE public.items SET v = 'u" + writes.get() + "' WHERE id = " + key);
          case 1 -> s.execute("UPDATE public.items SET big = repeat(md5('" + writes.get() + "'), 90), v = 'b'"
              + " WHERE id = " + key);
          case 2 -> s.execute("DELETE FROM public.items WHERE id = " + key);
          default -> s.execute("INSERT INTO public.items VALUES (" + key + ", 'i', repeat('z', 3000))"
              + " ON CONFLICT (id) DO UPDATE SET v = 'ic'");
        }
        writes.incrementAndGet();
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static Map<Long, List<String>> upstream() throws Exception {
    return upstream("items", "big");
  }

  private static Map<Long, List<String>> upstream(String table, String third) throws Exception {
    Map<Long, List<String>> out = new TreeMap<>();
    try (Connection c = pg.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, v, " + third + "::text FROM public." + table + " ORDER BY id")) {
      while (rs.next()) {
        out.put(rs.getLong(1), List.of(Long.toString(rs.getLong(1)), rs.getString(2), rs.getString(3)));
      }
    }
    return out;
  }
}
