package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.error.SluiceException;
import dev.sluice.api.v1.RowOp;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.SnapshotOutcome;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.it.BrokerProcess;
import dev.sluice.it.PostgresServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue #17's resumable snapshot under a real broker process: several tables are snapshotted (quick tier 2 x
 * 15,000 rows, full tier 4 x 250,000 = 1M rows) by client library subscriptions while a writer updates, deletes
 * and re-inserts keys inside the chunk each table is being read at (and anywhere else). Halfway through, the
 * broker gets SIGKILL; the writer keeps writing while it is down; the broker restarts on the same data dir.
 *
 * <p>Asserted: every subscription's snapshot ends COMPLETE; the restarted broker read only what was left (its
 * own {@code sluice_snapshot_rows_read_rows_total}, a fresh process's counter, is at most the rows not yet
 * delivered at the kill plus the chunks then in flight), each table's first READ row after the restart lies
 * past the first chunk and the epoch it completed in read fewer chunks than a whole table takes: it did not
 * start over. The delivery contract holds (commit ts strictly increasing per subscription), and each copy
 * (the rows applied as a sink applies them) equals the upstream table row by row.
 */
class SnapshotKillRestartIT {

  private static final int CHUNK_ROWS = 500;

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  @Test
  void aBrokerKilledHalfwayThroughASnapshotResumesFromItsLastChunk() throws Exception {
    int tables = Tier.pick(2, 4);
    int rowsPerTable = Tier.pick(15_000, 250_000);
    long rate = Tier.pick(6_000, 40_000);   // all readers together: the kill lands mid-snapshot
    try (PostgresServer up = PostgresServer.upstream()) {
      List<String> names = new ArrayList<>();
      for (int t = 0; t < tables; t++) {
        String name = "public.snap_k" + t;
        names.add(name);
        up.exec("CREATE TABLE " + name + " (id bigint PRIMARY KEY, v bigint NOT NULL, pad text NOT NULL)",
            "INSERT INTO " + name + " SELECT i, i, md5(i::text) FROM generate_series(1, " + rowsPerTable + ") i",
            "ANALYZE " + name);
      }
      BrokerProcess.Options options = BrokerProcess.options(logs.data("broker"), up).withExtraArgs(List.of(
          "--set", "eventService.snapshot.chunkRows=" + CHUNK_ROWS,
          "--set", "eventService.limits.snapshotRowsPerSecond=" + rate));
      try (BrokerProcess broker = BrokerProcess.start("broker", options, logs.dir());
           SluiceClient client = SluiceClient.connect(ClientConfig.of(broker.grpcAddress()).withCollectorId("snap-kill")
               .withHeartbeat(Duration.ofMillis(200), 5).withReconnectBackoff(Duration.ofMillis(50), Duration.ofSeconds(1))
               .withConnectTimeout(Duration.ofSeconds(5)))) {
        long startTs = up.currentLsn();   // the tables existed before the broker: known from its slot's creation on
        List<CopyListener> copies = new ArrayList<>();
        for (String name : names) {
          CopyListener l = new CopyListener(name, startTs);
          l.handle = client.subscribe(Subscription.table(name).from(startTs).withSnapshot(), l);
          copies.add(l);
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong writes = new AtomicLong();
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> write(up, copies, rowsPerTable, stop, writes));

        long total = (long) tables * rowsPerTable;
        await("READ rows before the kill").atMost(Duration.ofMinutes(5))
            .failFast(() -> copies.forEach(l -> assertThat(l.violations()).as("delivery contract of %s", l.name).isEmpty()))
            .until(() -> copies.stream().mapToLong(l -> l.reads.get()).sum() >= total * 2 / 5);
        broker.kill9();
        long readBeforeKill = copies.stream().mapToLong(l -> l.reads.get()).sum();
        for (CopyListener l : copies) {
          l.killedAt.set(l.reads.get());
          assertThat(l.outcome.get()).as("%s ended before the kill: no kill halfway", l.name).isNull();
        }
        long written = writes.get();
        await("writes while the broker is down").atMost(Duration.ofSeconds(60)).until(() -> writes.get() > written + 50);
        broker.restart();
        String log = Files.readString(broker.log());
        assertThat(log).as("restarted broker log").contains("capture streaming").doesNotContain("recreating the slot");

        await("every snapshot complete after the restart").atMost(Duration.ofMinutes(Tier.pick(3, 10)))
            .failFast(() -> copies.forEach(l -> assertThat(l.violations()).as("delivery contract of %s", l.name).isEmpty()))
            .until(() -> copies.stream().allMatch(l -> l.outcome.get() != null));
        stop.set(true);
        writer.get();
        long end = up.currentLsn();
        await("every copy resolved past the last write").atMost(Duration.ofMinutes(2))
            .until(() -> copies.stream().allMatch(l -> l.resolvedTs.get() >= end));

        long readAfterRestart = rowsReadByTheRestartedBroker(broker);
        // chunks read but not yet delivered at the kill (one ahead per table, one on its way) are read again
        long inFlight = (long) tables * 3 * CHUNK_ROWS;
        System.out.printf("snapshot kill -9: %,d of %,d rows delivered before the kill, %,d read by the restarted broker,"
            + " %,d writes; chunks of the last epochs %s%n", readBeforeKill, total, readAfterRestart, writes.get(),
            copies.stream().map(l -> l.name + "=" + l.outcome.get().chunks()).toList());
        assertThat(readAfterRestart).as("rows the restarted broker read (%,d of %,d delivered before the kill)",
            readBeforeKill, total).isGreaterThan(0).isLessThanOrEqualTo(total - readBeforeKill + inFlight);
        for (CopyListener l : copies) {
          assertThat(l.violations()).as("delivery contract of %s", l.name).isEmpty();
          SnapshotOutcome o = l.outcome.get();
          assertThat(o.status()).as("outcome of %s: %s", l.name, o.reason()).isEqualTo(SnapshotOutcome.Status.COMPLETE);
          assertThat(o.chunks()).as("chunks %s's last epoch read", l.name).isLessThan(rowsPerTable / CHUNK_ROWS);
          assertThat(l.firstReadKeyAfterKill()).as("first key %s read after the restart", l.name)
              .isGreaterThan(CHUNK_ROWS);
          assertSameRows(l.name, l.rows, upstreamRows(up, l.name));
        }
        assertThat(writes.get()).as("writes during the snapshot").isGreaterThan(200);
        assertThat(broker.starts()).isEqualTo(2);
      }
    }
  }

  /** Updates, deletes and re-inserts: half at the keys just past each table's last READ row, the chunk being read. */
  private static void write(PostgresServer up, List<CopyListener> copies, int rowsPerTable, AtomicBoolean stop,
      AtomicLong writes) {
    Random random = new Random(17);
    try (Connection c = up.connect(); Statement s = c.createStatement()) {
      while (!stop.get()) {
        CopyListener l = copies.get(random.nextInt(copies.size()));
        long key = random.nextBoolean()
            ? Math.min(rowsPerTable, l.lastReadKey.get() + 1 + random.nextInt(2 * CHUNK_ROWS))
            : 1 + random.nextInt(rowsPerTable);
        long n = writes.get();
        switch (random.nextInt(3)) {
          case 0 -> s.execute("UPDATE " + l.name + " SET v = " + (-n) + ", pad = 'u" + n + "' WHERE id = " + key);
          case 1 -> s.execute("DELETE FROM " + l.name + " WHERE id = " + key);
          default -> s.execute("INSERT INTO " + l.name + " VALUES (" + key + ", " + n + ", 'i" + n + "')"
              + " ON CONFLICT (id) DO UPDATE SET v = excluded.v, pad = excluded.pad");
        }
        writes.incrementAndGet();
      }
    } catch (Exception e) {
      if (!stop.get()) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** The restarted process's own counter of rows read from the upstream (it began at 0). */
  private static long rowsReadByTheRestartedBroker(BrokerProcess broker) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(broker.adminUrl()
        + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as("GET /metrics: %s", r.body()).isEqualTo(200);
    return r.body().lines().filter(line -> line.startsWith("sluice_snapshot_rows_read_rows_total"))
        .mapToLong(line -> (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
        .findFirst().orElseThrow(() -> new AssertionError("no sluice_snapshot_rows_read_rows_total in /metrics"));
  }

  private static Map<Long, List<String>> upstreamRows(PostgresServer up, String table) throws Exception {
    Map<Long, List<String>> out = new TreeMap<>();
    try (Connection c = up.connect(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT id, v, pad FROM " + table)) {
      while (rs.next()) {
        out.put(rs.getLong(1), List.of(Long.toString(rs.getLong(2)), rs.getString(3)));
      }
    }
    return out;
  }

  /** Applies every row as a sink would (READ and INSERT upsert) and checks the order of what it gets. */
  private static final class CopyListener implements ChangeListener {
    final String name;
    final Map<Long, List<String>> rows = new ConcurrentHashMap<>();
    final AtomicLong reads = new AtomicLong();
    final AtomicLong lastReadKey = new AtomicLong();
    final AtomicLong killedAt = new AtomicLong(-1);
    final AtomicLong resolvedTs = new AtomicLong();
    final AtomicReference<SnapshotOutcome> outcome = new AtomicReference<>();
    private final List<Long> readKeys = Collections.synchronizedList(new ArrayList<>());
    private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
    private volatile long lastCommitTs;
    private volatile boolean lastWasLastPart = true;
    volatile SubscriptionHandle handle;

    CopyListener(String name, long startTs) {
      this.name = name;
      this.lastCommitTs = startTs;
    }

    @Override
    public void onTransaction(Transaction txn) {
      // a large transaction's parts share its commit ts; anything else at or before the last is a repeat or reorder
      if (txn.commitTs() < lastCommitTs || txn.commitTs() == lastCommitTs && lastWasLastPart) {
        violations.add("transaction at " + txn.commitTs() + " after " + lastCommitTs);
      }
      lastCommitTs = txn.commitTs();
      lastWasLastPart = txn.lastPart();
      for (RowChangeView r : txn.rows()) {
        if (r.op() == RowOp.ROW_OP_DELETE) {
          rows.remove(r.before().getLong("id"));
        } else {
          long id = r.after().getLong("id");
          rows.put(id, List.of(Long.toString(r.after().getLong("v")), r.after().getString("pad")));
          if (r.op() == RowOp.ROW_OP_READ) {
            readKeys.add(id);
            lastReadKey.set(id);
            reads.incrementAndGet();
          }
        }
      }
      SubscriptionHandle h = handle;
      if (h != null) {
        h.acknowledge(txn.checkpoint());
      }
    }

    @Override
    public void onResolved(long ts) {
      resolvedTs.accumulateAndGet(ts, Math::max);
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
    public void onError(SluiceException error) {
      violations.add("subscription failed: " + error);
    }

    List<String> violations() {
      synchronized (violations) {
        return List.copyOf(violations);
      }
    }

    /** The key of the first READ row delivered after the kill. */
    long firstReadKeyAfterKill() {
      int at = (int) killedAt.get();
      synchronized (readKeys) {
        assertThat(readKeys.size()).as("%s read rows after the kill", name).isGreaterThan(at);
        return readKeys.get(at);
      }
    }
  }

  /** The copy equals the upstream; a failure lists the keys that differ (a map of 250,000 rows is truncated). */
  private static void assertSameRows(String table, Map<Long, List<String>> copy, Map<Long, List<String>> upstream) {
    java.util.TreeMap<Long, String> differing = new java.util.TreeMap<>();
    for (Long k : new java.util.TreeSet<>(upstream.keySet())) {
      if (!upstream.get(k).equals(copy.get(k))) {
        differing.put(k, "upstream " + upstream.get(k) + ", copy " + copy.get(k));
      }
    }
    for (Long k : copy.keySet()) {
      if (!upstream.containsKey(k)) {
        differing.put(k, "upstream none, copy " + copy.get(k));
      }
    }
    assertThat(differing).as("rows of %s that differ (of %,d upstream, %,d in the copy), the first 30: %s", table,
        upstream.size(), copy.size(), differing.entrySet().stream().limit(30).toList()).isEmpty();
  }
}
