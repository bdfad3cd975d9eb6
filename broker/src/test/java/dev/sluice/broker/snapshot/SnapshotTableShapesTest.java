package dev.sluice.broker.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.error.SluiceException;
import dev.sluice.api.v1.DdlType;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.Value;
import dev.sluice.broker.control.EventServiceLimits;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.SnapshotMark;
import dev.sluice.dispatcher.SnapshotOutcome;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.Transaction;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Snapshots of tables of every shape the issue names, through a real broker and the client library: a table
 * without a key (read by heap block), a composite key under concurrent writes, a table created while
 * another's snapshot runs, and one dropped during its own snapshot (a clear TABLE_DROPPED).
 */
class SnapshotTableShapesTest {

  @TempDir
  static Path dir;
  private static SnapshotBroker sb;

  @BeforeAll
  static void start() {
    sb = SnapshotBroker.start(dir, 100, 8192);   // 8 KiB chunks: a keyless chunk is one heap block
  }

  @AfterAll
  static void stop() {
    if (sb != null) {
      sb.close();
    }
  }

  @Test
  void aKeylessTableIsReadByHeapBlockWholeAndOnce() throws Exception {
    sb.pg.exec("CREATE TABLE public.log (at int, msg text)",
        "INSERT INTO public.log SELECT i % 7, repeat('m', 40) || (i % 3) FROM generate_series(1, 1200) i");
    long start = sb.caughtUp();
    Recorder r = new Recorder();
    try (SluiceClient client = client()) {
      r.subscribe(client, Subscription.table("public.log").from(start).withSnapshot());
      r.awaitOutcome();
    }
    assertThat(r.outcome.get().status()).isEqualTo(SnapshotOutcome.Status.COMPLETE);
    assertThat(r.marks.size()).as("one chunk per heap block").isGreaterThan(5);
    assertThat(r.marks).allSatisfy(m -> assertThat(m.next().afterKey()).isEmpty());
    assertThat(r.marks.get(r.marks.size() - 1).next().nextBlock()).isPositive();
    assertThat(multiset(r.readImages())).isEqualTo(multiset(upstream("SELECT at::text, msg FROM public.log")));
  }

  @Test
  void aParentsSnapshotHoldsOnlyItsOwnRowsAsItsCapturedChangesDo() throws Exception {
    // capture publishes a child's and a partition's changes under their own names: their rows are theirs alone
    sb.pg.exec("CREATE TABLE public.vehicles (id int PRIMARY KEY, kind text)",
        "CREATE TABLE public.trucks (payload int) INHERITS (public.vehicles)",
        "CREATE TABLE public.notes (msg text)", "CREATE TABLE public.loud_notes (level int) INHERITS (public.notes)",
        "CREATE TABLE public.measures (id int, at int, PRIMARY KEY (id, at)) PARTITION BY RANGE (at)",
        "CREATE TABLE public.measures_low PARTITION OF public.measures FOR VALUES FROM (0) TO (100)",
        "INSERT INTO public.vehicles SELECT i, 'car' FROM generate_series(1, 30) i",
        "INSERT INTO public.trucks SELECT i, 'truck', i * 10 FROM generate_series(31, 50) i",
        "INSERT INTO public.notes SELECT 'n' || i FROM generate_series(1, 25) i",
        "INSERT INTO public.loud_notes SELECT 'loud' || i, i FROM generate_series(1, 15) i",
        "INSERT INTO public.measures SELECT i, i % 100 FROM generate_series(1, 40) i");
    long start = sb.caughtUp();
    Map<String, Recorder> recorders = new LinkedHashMap<>();
    try (SluiceClient client = client()) {
      for (String table : List.of("public.vehicles", "public.trucks", "public.notes", "public.measures",
          "public.measures_low")) {
        Recorder r = new Recorder();
        r.subscribe(client, Subscription.table(table).from(start).withSnapshot());
        recorders.put(table, r);
      }
      recorders.values().forEach(Recorder::awaitOutcome);
    }
    recorders.forEach((table, r) ->
        assertThat(r.outcome.get().status()).as(table).isEqualTo(SnapshotOutcome.Status.COMPLETE));
    assertThat(recorders.get("public.vehicles").readImages()).hasSize(30);
    assertThat(multiset(recorders.get("public.vehicles").readImages()))
        .isEqualTo(multiset(upstream("SELECT id::text, kind FROM ONLY public.vehicles")));
    assertThat(multiset(recorders.get("public.trucks").readImages()))
        .isEqualTo(multiset(upstream("SELECT id::text, kind, payload::text FROM public.trucks")));
    assertThat(multiset(recorders.get("public.notes").readImages()))
        .isEqualTo(multiset(upstream("SELECT msg FROM ONLY public.notes")));
    assertThat(recorders.get("public.notes").readImages()).hasSize(25);
    assertThat(recorders.get("public.measures").readImages()).as("a partitioned table holds no rows of its own")
        .isEmpty();
    assertThat(recorders.get("public.measures_low").readImages()).hasSize(40);
  }

  @Test
  void aCompositeKeyIsReadInKeyOrderAndMergedWithConcurrentWrites() throws Exception {
    sb.pg.exec("CREATE TABLE public.pairs (a int, b text, v int, PRIMARY KEY (a, b))",
        "INSERT INTO public.pairs SELECT i / 10, 'k' || (i % 10), i FROM generate_series(0, 1999) i");
    long start = sb.caughtUp();
    AtomicBoolean stop = new AtomicBoolean();
    Recorder r = new Recorder();
    try (SluiceClient client = client()) {
      r.subscribe(client, Subscription.table("public.pairs").from(start).withSnapshot());
      CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
        Random random = new Random(5);
        try (Connection c = sb.pg.connect(); Statement s = c.createStatement()) {
          while (!stop.get()) {
            int a = random.nextInt(210);
            String b = "k" + random.nextInt(10);
            switch (random.nextInt(3)) {
              case 0 -> s.execute("UPDATE public.pairs SET v = v + 1 WHERE a = " + a + " AND b = '" + b + "'");
              case 1 -> s.execute("DELETE FROM public.pairs WHERE a = " + a + " AND b = '" + b + "'");
              default -> s.execute("INSERT INTO public.pairs VALUES (" + a + ", '" + b + "', -1)"
                  + " ON CONFLICT (a, b) DO UPDATE SET v = -2");
            }
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      r.awaitOutcome();
      stop.set(true);
      writer.get();
      long end = sb.pg.txn("UPDATE public.pairs SET v = 0 WHERE a = 0");
      await().atMost(Duration.ofSeconds(30)).until(() -> r.resolved.get() >= end);
    }
    assertThat(r.outcome.get().status()).isEqualTo(SnapshotOutcome.Status.COMPLETE);
    assertThat(r.marks.get(0).next().afterKey()).hasSize(2);
    assertThat(r.keyed(List.of("a", "b"))).isEqualTo(upstreamKeyed("SELECT a::text, b, v::text FROM public.pairs"));
  }

  @Test
  void aTableCreatedAfterTheStartNeedsNoReadAndATableDroppedDuringItsSnapshotEndsClearly() throws Exception {
    sb.pg.exec("CREATE TABLE public.doomed (id int PRIMARY KEY, v text)",
        "INSERT INTO public.doomed SELECT i, 'd' FROM generate_series(1, 3000) i");
    long start = sb.caughtUp();
    EventServiceLimits before = sb.broker.eventService().limits();
    sb.broker.eventService().updateLimits(before.withSnapshotRates(150, 0));   // 20 s for 3000 rows: time to drop it
    Recorder doomed = new Recorder();
    Recorder fresh = new Recorder();
    try (SluiceClient client = client()) {
      doomed.subscribe(client, Subscription.table("public.doomed").from(start).withSnapshot());
      await().atMost(Duration.ofSeconds(60)).until(() -> !doomed.marks.isEmpty());
      // created while the other snapshot runs, subscribed from before its CREATE: the log holds all of it
      sb.pg.exec("CREATE TABLE public.fresh (id int PRIMARY KEY)", "INSERT INTO public.fresh VALUES (1), (2)");
      sb.caughtUp();
      long freshId = sb.pg.oid("public.fresh");   // by id: by name, the start ts is before the table existed
      fresh.subscribe(client, Subscription.span(dev.sluice.api.TableSpan.wholeTable(freshId)).from(start)
          .withSnapshot());
      fresh.awaitOutcome();
      await().atMost(Duration.ofSeconds(30)).until(() -> fresh.keyed(List.of("id")).size() == 2);
      sb.pg.exec("DROP TABLE public.doomed");
      doomed.awaitOutcome();
    } finally {
      sb.broker.eventService().updateLimits(before);
    }
    assertThat(fresh.outcome.get().status()).isEqualTo(SnapshotOutcome.Status.COMPLETE);
    assertThat(fresh.outcome.get().reason()).contains("created after");
    assertThat(fresh.reads).as("no READ row: both rows came as inserts").isEmpty();
    assertThat(doomed.outcome.get().status()).isEqualTo(SnapshotOutcome.Status.TABLE_DROPPED);
    assertThat(doomed.outcome.get().reason()).contains("public.doomed").contains("dropped");
    await().atMost(Duration.ofSeconds(30)).until(() -> doomed.ddls.contains(DdlType.DDL_TYPE_DROP_TABLE));
    assertThat(doomed.reads.size()).isLessThan(3000);
  }

  @Test
  void schemaChangesDuringASnapshotAreDeliveredInPlaceAndTheRowsFollowThem() throws Exception {
    sb.pg.exec("CREATE TABLE public.shifting (id int PRIMARY KEY, v text)",
        "INSERT INTO public.shifting SELECT i, 'v' || i FROM generate_series(1, 3000) i");
    long start = sb.caughtUp();
    EventServiceLimits before = sb.broker.eventService().limits();
    sb.broker.eventService().updateLimits(before.withSnapshotRates(600, 0));   // ~5 s: the DDLs land inside it
    double rereadsBefore = rereads();
    Recorder r = new Recorder();
    try (SluiceClient client = client()) {
      r.subscribe(client, Subscription.table("public.shifting").from(start).withSnapshot());
      await().atMost(Duration.ofSeconds(60)).until(() -> r.marks.size() >= 2);
      sb.pg.exec("ALTER TABLE public.shifting ADD COLUMN n int DEFAULT 7");
      await().atMost(Duration.ofSeconds(60)).until(() -> r.marks.size() >= 5);
      sb.pg.exec("UPDATE public.shifting SET n = 8 WHERE id % 10 = 0", "ALTER TABLE public.shifting DROP COLUMN v");
      r.awaitOutcome();
      long end = sb.pg.txn("UPDATE public.shifting SET n = 9 WHERE id = 1");
      await().atMost(Duration.ofSeconds(30)).until(() -> r.resolved.get() >= end);
    } finally {
      sb.broker.eventService().updateLimits(before);
    }
    assertThat(r.outcome.get().status()).isEqualTo(SnapshotOutcome.Status.COMPLETE);
    assertThat(r.ddls).hasSize(2);
    // the target follows the stream: the rows after the DROP have (id, n); apply the stream over the last shape
    Map<List<String>, List<String>> target = new TreeMap<>(Recorder.KEY_ORDER);
    for (RowChangeView row : r.rows) {
      // each row follows the table info of its transaction: (id, v) before the ADD, (id, v, n), then (id, n)
      Map<String, Value> after = row.after().asMap();
      List<String> key = List.of(ReplicaTable.text(after.get("id")));
      Value n = after.get("n");
      List<String> cur = target.get(key);
      if (row.op() == RowOp.ROW_OP_DELETE) {
        target.remove(key);
      } else {
        target.put(key, java.util.Arrays.asList(key.get(0), n == null || n.hasUnavailable()
            ? (cur == null ? "7" : cur.get(1)) : ReplicaTable.text(n)));   // a row from before the ADD gets its default
      }
    }
    Map<List<String>, List<String>> up = new TreeMap<>(Recorder.KEY_ORDER);
    for (List<String> row : upstream("SELECT id::text, n::text FROM public.shifting")) {
      up.put(row.subList(0, 1), row);
    }
    assertThat(target).isEqualTo(up);
    System.out.println("chunks read again during the schema changes: " + (rereads() - rereadsBefore));
  }

  private static double rereads() {
    var c = sb.broker.meterRegistry().find("sluice.snapshot.chunks").tag("outcome", "reread").counter();
    return c == null ? 0 : c.count();
  }

  private static SluiceClient client() {
    return SluiceClient.connect(ClientConfig.of("127.0.0.1:" + sb.port()));
  }

  private static Map<List<String>, Integer> multiset(List<List<String>> rows) {
    Map<List<String>, Integer> m = new HashMap<>();
    rows.forEach(r -> m.merge(r, 1, Integer::sum));
    return m;
  }

  private static List<List<String>> upstream(String sql) throws Exception {
    List<List<String>> out = new ArrayList<>();
    try (Connection c = sb.pg.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          row.add(rs.getString(i));
        }
        out.add(row);
      }
    }
    return out;
  }

  private static Map<List<String>, List<String>> upstreamKeyed(String sql) throws Exception {
    Map<List<String>, List<String>> out = new TreeMap<>(Recorder.KEY_ORDER);
    for (List<String> row : upstream(sql)) {
      out.put(row.subList(0, 2), row);
    }
    return out;
  }

  /** What one subscription delivered, applied like a sink applies it. */
  private static final class Recorder implements ChangeListener {
    static final java.util.Comparator<List<String>> KEY_ORDER = (x, y) -> String.join("\u0000", x)
        .compareTo(String.join("\u0000", y));
    final List<RowChangeView> rows = new CopyOnWriteArrayList<>();
    final List<RowChangeView> reads = new CopyOnWriteArrayList<>();
    final List<SnapshotMark> marks = new CopyOnWriteArrayList<>();
    final List<DdlType> ddls = new CopyOnWriteArrayList<>();
    final AtomicReference<SnapshotOutcome> outcome = new AtomicReference<>();
    final java.util.concurrent.atomic.AtomicLong resolved = new java.util.concurrent.atomic.AtomicLong();
    volatile SubscriptionHandle handle;

    void subscribe(SluiceClient client, Subscription s) {
      handle = client.subscribe(s, this);
    }

    void awaitOutcome() {
      await().atMost(Duration.ofSeconds(120)).until(() -> outcome.get() != null);
    }

    @Override
    public void onTransaction(Transaction txn) {
      for (RowChangeView r : txn.rows()) {
        rows.add(r);
        if (r.op() == RowOp.ROW_OP_READ) {
          reads.add(r);
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
    public void onDdl(DdlChange ddl) {
      ddls.add(ddl.ddlType());
    }

    @Override
    public void onResolved(long ts) {
      resolved.set(ts);
    }

    @Override
    public void onSnapshotComplete(SnapshotOutcome o) {
      outcome.set(o);
    }

    @Override
    public void onError(SluiceException error) {
    }

    List<List<String>> readImages() {
      List<List<String>> out = new ArrayList<>();
      for (RowChangeView r : reads) {
        out.add(r.after().values().stream().map(ReplicaTable::text).toList());
      }
      return out;
    }

    /** The rows as a keyed target holds them after every change and READ row, in order. */
    Map<List<String>, List<String>> keyed(List<String> keyColumns) {
      Map<List<String>, List<String>> t = new TreeMap<>(KEY_ORDER);
      for (RowChangeView r : rows) {
        List<String> after = r.after().isPresent() ? r.after().values().stream().map(ReplicaTable::text).toList() : null;
        switch (r.op()) {
          case ROW_OP_DELETE -> t.remove(key(r.before().values(), keyColumns.size()));
          default -> {
            List<String> cur = t.get(key(r.after().values(), keyColumns.size()));
            List<String> next = new ArrayList<>(after);
            for (int i = 0; i < next.size(); i++) {
              if (r.after().value(i).hasUnavailable()) {
                next.set(i, cur == null ? null : cur.get(i));
              }
            }
            t.put(next.subList(0, keyColumns.size()), next);
          }
        }
      }
      return t;
    }

    private static List<String> key(List<Value> image, int n) {
      return image.subList(0, n).stream().map(ReplicaTable::text).toList();
    }
  }
}
