package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.CommitTs;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.broker.SluiceCommand;
import dev.sluice.broker.store.EventStoreConfig;
import dev.sluice.broker.store.RocksEventStore;
import dev.sluice.broker.store.RowScan;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL of the broker process in the middle of a stream, then a restart: the event store equals the
 * upstream's history (a change-log table written in the same transactions as the changes), with no
 * gap and no duplicate.
 */
class CaptureCrashRecoveryTest {

  private static final String SLOT = "sluice_crash";

  /** One upstream transaction as the change log records it. */
  private record Change(long seq, long itemId, String op, long val) {}

  @Test
  void killedBrokerResumesWithoutGapOrDuplicate(@TempDir Path dir) throws Exception {
    try (TestPostgres pg = TestPostgres.start()) {
      pg.exec("CREATE TABLE items (id bigint PRIMARY KEY, val bigint NOT NULL)",
          "CREATE TABLE change_log (seq bigserial PRIMARY KEY, item_id bigint NOT NULL, op text NOT NULL, val bigint NOT NULL)");
      AtomicBoolean writing = new AtomicBoolean(true);
      AtomicLong committed = new AtomicLong();
      Process broker = startBroker(dir, pg, "first");
      long slotStart = awaitConfirmedAbove(pg, 0); // the history starts once the slot exists
      CompletableFuture<Void> workload = CompletableFuture.runAsync(() -> workload(pg, writing, committed));
      try {
        await().atMost(Duration.ofSeconds(60)).until(() -> committed.get() >= 1500);
        awaitConfirmedAbove(pg, slotStart);
        broker.destroyForcibly(); // SIGKILL, mid-stream: the workload keeps writing
        assertThat(broker.waitFor(30, TimeUnit.SECONDS)).isTrue();
        long atKill = committed.get();
        await().atMost(Duration.ofSeconds(60)).until(() -> committed.get() >= atKill + 500);

        broker = startBroker(dir, pg, "second");
        long beforeRestart = committed.get();
        await().atMost(Duration.ofSeconds(60)).until(() -> committed.get() >= beforeRestart + 1000);
      } finally {
        writing.set(false);
        workload.get(30, TimeUnit.SECONDS);
      }
      long end = pg.currentLsn();
      awaitConfirmedAbove(pg, end);
      broker.destroy(); // SIGTERM: graceful stop releases the store
      assertThat(broker.waitFor(60, TimeUnit.SECONDS)).isTrue();

      compare(dir, pg, history(pg));
      String second = java.nio.file.Files.readString(dir.resolve("broker-second.log"));
      assertThat(second).contains("capture streaming").doesNotContain("recreating the slot");
    }
  }

  private static void compare(Path dir, TestPostgres pg, List<Change> history) throws Exception {
    assertThat(history).hasSizeGreaterThan(3000);
    long items = pg.oid("items");
    long log = pg.oid("change_log");
    try (RocksEventStore store = RocksEventStore.open(EventStoreConfig.defaults(dir.resolve("data/events")),
        new SimpleMeterRegistry())) {
      TreeMap<Long, RowChange> itemByTs = new TreeMap<>();
      List<CaptureHarness.StoredRow> itemRows = scan(store, items);
      for (CaptureHarness.StoredRow r : itemRows) {
        assertThat(itemByTs.put(r.commitTs(), r.change())).as("one item change per transaction").isNull();
      }
      List<Change> stored = new ArrayList<>();
      for (CaptureHarness.StoredRow r : scan(store, log)) {
        RowChange item = itemByTs.get(r.commitTs());
        assertThat(item).as("item change in the transaction of log row at %s", r.commitTs()).isNotNull();
        Change c = new Change(r.change().getAfter(0).getInt64Value(), r.change().getAfter(1).getInt64Value(),
            r.change().getAfter(2).getStringValue(), r.change().getAfter(3).getInt64Value());
        stored.add(c);
        assertThat(opName(item.getOp())).isEqualTo(c.op());
        long itemId = item.getOp() == RowOp.ROW_OP_DELETE ? item.getBefore(0).getInt64Value() : item.getAfter(0).getInt64Value();
        assertThat(itemId).isEqualTo(c.itemId());
        if (item.getOp() != RowOp.ROW_OP_DELETE) {
          assertThat(item.getAfter(1).getInt64Value()).isEqualTo(c.val());
        }
      }
      assertThat(stored).as("stored change log = upstream history: same rows, same order, no gap, no duplicate")
          .containsExactlyElementsOf(history);
      assertThat(itemRows).hasSameSizeAs(history);
    }
  }

  private static List<CaptureHarness.StoredRow> scan(RocksEventStore store, long table) throws Exception {
    List<CaptureHarness.StoredRow> out = new ArrayList<>();
    try (RowScan scan = store.scan(TableSpan.wholeTable(table), 0, store.resolvedTs(), null)) {
      while (scan.next()) {
        out.add(new CaptureHarness.StoredRow(scan.commitTs(), scan.rowSeq(), scan.keyHash(),
            RowChange.parseFrom(scan.rowChange())));
      }
    }
    return out;
  }

  private static String opName(RowOp op) {
    return switch (op) {
      case ROW_OP_INSERT -> "I";
      case ROW_OP_UPDATE -> "U";
      case ROW_OP_DELETE -> "D";
      default -> "?";
    };
  }

  private static List<Change> history(TestPostgres pg) throws SQLException {
    List<Change> out = new ArrayList<>();
    try (Connection c = pg.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT seq, item_id, op, val FROM change_log ORDER BY seq")) {
      while (rs.next()) {
        out.add(new Change(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getLong(4)));
      }
    }
    return out;
  }

  /** One writer: each transaction changes one item and logs it, so commit order = seq order. */
  private static void workload(TestPostgres pg, AtomicBoolean writing, AtomicLong committed) {
    Random random = new Random(7);
    try (Connection c = pg.connect()) {
      c.setAutoCommit(false);
      PreparedStatement log = c.prepareStatement("INSERT INTO change_log (item_id, op, val) VALUES (?, ?, ?)");
      PreparedStatement insert = c.prepareStatement("INSERT INTO items VALUES (?, ?) ON CONFLICT DO NOTHING");
      PreparedStatement update = c.prepareStatement("UPDATE items SET val = ? WHERE id = ?");
      PreparedStatement delete = c.prepareStatement("DELETE FROM items WHERE id = ?");
      while (writing.get()) {
        long id = random.nextInt(300);
        long val = random.nextLong();
        String op;
        int pick = random.nextInt(10);
        if (pick < 5) {
          insert.setLong(1, id);
          insert.setLong(2, val);
          op = insert.executeUpdate() == 1 ? "I" : null;
        } else if (pick < 8) {
          update.setLong(1, val);
          update.setLong(2, id);
          op = update.executeUpdate() == 1 ? "U" : null;
        } else {
          delete.setLong(1, id);
          op = delete.executeUpdate() == 1 ? "D" : null;
        }
        if (op == null) {
          c.rollback();
          continue;
        }
        log.setLong(1, id);
        log.setString(2, op);
        log.setLong(3, val);
        log.executeUpdate();
        c.commit();
        committed.incrementAndGet();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Process startBroker(Path dir, TestPostgres pg, String run) throws Exception {
    return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
        SluiceCommand.class.getName(), "server", "--data-dir", dir.resolve("data").toString(),
        "--upstream", pg.jdbcUrl(), "--upstream-user", "postgres", "--node-id", "crash",
        "--heartbeat-interval", "PT0.05S")
        .redirectErrorStream(true).redirectOutput(dir.resolve("broker-" + run + ".log").toFile()).start();
  }

  /** Waits until the slot exists and PostgreSQL has a flush position above {@code lsn} confirmed. */
  private static long awaitConfirmedAbove(TestPostgres pg, long lsn) {
    AtomicLong confirmed = new AtomicLong();
    await().atMost(Duration.ofSeconds(90)).until(() -> {
      String s = pg.queryString("SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '"
          + SLOT + "'");
      confirmed.set(s == null ? 0 : CommitTs.parseLsn(s).value());
      return confirmed.get() > lsn;
    });
    return confirmed.get();
  }
}
