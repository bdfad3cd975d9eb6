package dev.sluice.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.AckStatus;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.DataEvent;
import dev.sluice.api.v1.EventFilter;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.SyncPointConfig;
import dev.sluice.broker.NodeIdentity;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.store.TimeMark;
import dev.sluice.broker.testing.ReceiverRules;
import dev.sluice.broker.testing.StoreFixture;
import dev.sluice.broker.testing.TestCollector;
import dev.sluice.schema.TableInfo;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Random workloads (transactions small and large, updates and deletes, DDL, migrations with DDL between
 * their rows, idle periods crossing sync-point boundaries) streamed to a dispatcher with random span, filter, sync-point interval and a
 * small scan budget and credit window, checked by the PROTOCOL.md receiver rules: zero violations,
 * and exactly the rows of the span, in commit order.
 */
class OrderingPropertyTest {

  static Vertx vertx;
  static StoreFixture stores;
  static EventService service;
  static final AtomicLong nextTable = new AtomicLong(1000);

  @BeforeContainer
  static void start() throws Exception {
    Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "ordering");
    vertx = Vertx.vertx();
    stores = new StoreFixture(dir);
    EventServiceConfig config = EventServiceConfig.defaults()
        .withLimits(EventServiceConfig.defaults().limits().withScanBatchBytes(4096));
    service = EventService.start(vertx, config, NodeIdentity.fresh("node-p", null, null), "127.0.0.1", 0,
        stores.events, stores.schema, stores.meters).await(20, TimeUnit.SECONDS);
  }

  @AfterContainer
  static void stop() throws Exception {
    service.close().await(20, TimeUnit.SECONDS);
    vertx.close().await(20, TimeUnit.SECONDS);
    stores.close();
  }

  sealed interface Op {}

  record Insert(int rows, int rowBytes) implements Op {}

  record UpdateDelete(int key) implements Op {}

  record AddColumn() implements Op {}

  /** One transaction: rows, ADD COLUMN, rows, SET NOT NULL (two versions at its commit ts), maybe rows. */
  record Migration(int before, int between, int after) implements Op {}

  record Idle(long micros) implements Op {}

  @Provide
  Arbitrary<List<Op>> workloads() {
    Arbitrary<Op> insert = Combinators.combine(Arbitraries.integers().between(1, 40),
        Arbitraries.integers().between(1, 200)).as(Insert::new);
    Arbitrary<Op> big = Arbitraries.integers().between(200, 600).map(n -> new Insert(n, 30));
    Arbitrary<Op> ud = Arbitraries.integers().between(0, 30).map(UpdateDelete::new);
    Arbitrary<Op> ddl = Arbitraries.just(new AddColumn());
    Arbitrary<Op> idle = Arbitraries.longs().between(0, 2_500_000).map(Idle::new);
    Arbitrary<Op> migration = Combinators.combine(Arbitraries.integers().between(0, 3),
        Arbitraries.integers().between(0, 80), Arbitraries.integers().between(0, 3)).as(Migration::new);
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(10, insert), net.jqwik.api.Tuple.of(1, big), net.jqwik.api.Tuple.of(4, ud),
        net.jqwik.api.Tuple.of(1, ddl), net.jqwik.api.Tuple.of(4, idle), net.jqwik.api.Tuple.of(2, migration))
        .list().ofMinSize(1).ofMaxSize(25);
  }

  @Property(tries = 20)
  void everyStreamFollowsTheReceiverRules(@ForAll("workloads") List<Op> workload, @ForAll boolean halfSpan,
      @ForAll boolean ignoreDeletes, @ForAll boolean syncPoints,
      @ForAll("windows") int creditWindow) throws Exception {
    long tableId = nextTable.getAndIncrement();
    TableInfo table = stores.createTable(tableId, "t" + tableId);
    TableSpan span = halfSpan ? TableSpan.wholeTable(tableId).split(2).get(1) : TableSpan.wholeTable(tableId);
    long start = table.version();
    List<RowChange> expected = new ArrayList<>();
    TableInfo current = table;
    int column = 0;
    long keys = 0;
    for (Op op : workload) {
      List<RowChange> rows = new ArrayList<>();
      if (op instanceof Insert in) {
        for (int i = 0; i < in.rows(); i++) {
          rows.add(StoreFixture.row(RowOp.ROW_OP_INSERT, keys++, "x".repeat(in.rowBytes())));
        }
      } else if (op instanceof UpdateDelete ud) {
        rows.add(StoreFixture.row(RowOp.ROW_OP_UPDATE, ud.key(), "u"));
        rows.add(StoreFixture.row(RowOp.ROW_OP_DELETE, ud.key(), "u"));
      } else if (op instanceof AddColumn) {
        current = stores.addColumn(current, "c" + column++);
      } else if (op instanceof Migration mg) {
        List<Object> changes = new ArrayList<>();
        List<RowChange> migrated = new ArrayList<>();
        int[] counts = {mg.before(), -1, mg.between(), -2, mg.after()};
        String added = "c" + column;
        for (int part : counts) {
          if (part == -1 || part == -2) {
            current = StoreFixture.withColumn(current, added, part == -1);
            changes.add(current);
            column++;
            continue;
          }
          for (int i = 0; i < part; i++) {
            RowChange row = StoreFixture.row(RowOp.ROW_OP_INSERT, keys++, "m".repeat(40));
            changes.add(row);
            migrated.add(row);
          }
        }
        stores.transaction(tableId, changes);
        for (RowChange row : migrated) {
          if (span.contains(row.getKeyHash())) {
            expected.add(row);
          }
        }
      } else if (op instanceof Idle idle) {
        stores.advanceTimeMicros(idle.micros());
        stores.heartbeat();
      }
      if (!rows.isEmpty()) {
        stores.commit(tableId, rows);
        for (RowChange r : rows) {
          if (span.contains(r.getKeyHash()) && !(ignoreDeletes && r.getOp() == RowOp.ROW_OP_DELETE)) {
            expected.add(r);
          }
        }
      }
    }
    long end = stores.heartbeat();

    ReceiverRules rules = new ReceiverRules();
    DispatcherId id = DispatcherId.random();
    try (TestCollector c = TestCollector.connect(service.port())) {
      c.hello("prop");
      var reg = TestCollector.register(id, span, start);
      if (ignoreDeletes) {
        reg.setFilter(EventFilter.newBuilder().addIgnoreOps(RowOp.ROW_OP_DELETE));
      }
      if (syncPoints) {
        reg.setSyncPoint(SyncPointConfig.newBuilder().setIntervalS(1));
      }
      assertThat(c.ack(reg.build()).getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
      c.request(TestCollector.reset(id, 1, start).build());
      rules.accept(c.next(BrokerMessage::hasHandshake));
      long[] received = {0};
      c.credit(id, 1, creditWindow, 0);
      c.takeUntil(m -> {
        rules.accept(m);
        if (m.hasEventBatch()) {
          for (DataEvent e : m.getEventBatch().getEventsList()) {
            received[0] += e.getSerializedSize();
          }
          c.credit(id, 1, creditWindow, received[0]); // the consumer drained its window
        }
      }, m -> rules.resolvedTs(id) >= end, Duration.ofSeconds(30));
    }

    assertThat(rules.violations()).isEmpty();
    assertThat(rules.rows(id)).containsExactlyElementsOf(withSeqs(expected, rules.rows(id)));
    assertThat(rules.ddls(id)).isEqualTo(column);
    if (syncPoints) {
      assertThat(rules.syncPoints(id)).isEqualTo(expectedSyncPoints(start, end));
    } else {
      assertThat(rules.syncPoints(id)).isZero();
    }
  }

  @Provide
  Arbitrary<Integer> windows() {
    return Arbitraries.integers().between(2048, 1 << 20);
  }

  /** Delivered rows carry their row_seq; compare everything else positionally. */
  private static List<RowChange> withSeqs(List<RowChange> expected, List<RowChange> delivered) {
    List<RowChange> out = new ArrayList<>();
    for (int i = 0; i < expected.size(); i++) {
      long seq = i < delivered.size() ? delivered.get(i).getRowSeq() : 0;
      out.add(expected.get(i).toBuilder().setRowSeq(seq).build());
    }
    return out;
  }

  /** Boundaries of 1 s crossed between consecutive time marks from the one at the start on. */
  private static int expectedSyncPoints(long start, long end) {
    List<TimeMark> marks = new ArrayList<>();
    stores.events.timeMarkAtOrBefore(start).ifPresent(marks::add);
    marks.addAll(stores.events.timeMarks(start, end));
    int n = 0;
    for (int i = 1; i < marks.size(); i++) {
      if (marks.get(i).commitTimeMicros() / 1_000_000 > marks.get(i - 1).commitTimeMicros() / 1_000_000) {
        n++;
      }
    }
    return n;
  }
}
