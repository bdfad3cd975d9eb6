package dev.sluice.broker.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.TableSpan;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/** {@code scan(span, from, to, cursor)} agrees with an in-memory model (a sorted map) over random batches. */
class RocksEventStoreScanPropertiesTest {

  /** One transaction: its commit ts is the previous one plus {@code tsGap}; rows in order of row_seq. */
  record Txn(int tsGap, List<RowSpec> rows) {}

  record RowSpec(long tableId, int keyHash) {}

  /** Span {@code index % parts} of the table split in {@code parts}. */
  record SpanChoice(int parts, int index) {}

  /**
   * A scan starting {@code fromBack} below the commit ts of transaction {@code fromTxn} (modulo their
   * number), with a cursor at the transaction {@code cursorTxnOffset} later: anchored to the data so
   * that cursors and bounds hit stored rows.
   */
  record Query(long tableId, SpanChoice spanChoice, int fromTxn, long fromBack, long length, boolean withCursor,
      int cursorTxnOffset, long cursorNextSeq) {}

  record Key(long tableId, long commitTs, long rowSeq) {}

  private static final Comparator<Key> KEY_ORDER = Comparator.comparingLong(Key::tableId)
      .thenComparingLong(Key::commitTs).thenComparingLong(Key::rowSeq);

  @Property(tries = 40)
  void scanMatchesTheModel(@ForAll("batches") List<List<Txn>> batches, @ForAll("queries") List<Query> queries)
      throws IOException {
    Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "scan-props");
    TreeMap<Key, ScannedRow> model = new TreeMap<>(KEY_ORDER);
    try (RocksEventStore store = RocksEventStore.open(StoreCrashWriterMain.config(dir), new SimpleMeterRegistry())) {
      long ts = 0;
      List<Long> txnTs = new ArrayList<>();
      for (List<Txn> batchTxns : batches) {
        StoreBatch batch = store.newBatch();
        for (Txn txn : batchTxns) {
          ts += txn.tsGap();
          txnTs.add(ts);
          for (int seq = 0; seq < txn.rows().size(); seq++) {
            RowSpec spec = txn.rows().get(seq);
            ScannedRow row = ScannedRow.of(spec.tableId(), ts, seq, spec.keyHash());
            row.putInto(batch);
            model.put(new Key(spec.tableId(), ts, seq), row);
          }
          batch.setResolvedTs(ts);
        }
        store.write(batch, false);
      }
      boolean cursorSkipped = false;
      boolean spanFiltered = false;
      for (Query q : queries) {
        SpanChoice choice = q.spanChoice();
        TableSpan span = TableSpan.wholeTable(q.tableId()).split(choice.parts()).get(choice.index() % choice.parts());
        long from = Math.max(0, txnTs.get(q.fromTxn() % txnTs.size()) - q.fromBack());
        long to = from + q.length();
        long cursorTs = txnTs.get((q.fromTxn() + q.cursorTxnOffset()) % txnTs.size());
        ScanCursor cursor = q.withCursor() ? new ScanCursor(cursorTs, q.cursorNextSeq()) : null;
        List<ScannedRow> expected = expected(model, span, from, to, cursor);
        cursorSkipped |= cursor != null && expected.size() < expected(model, span, from, to, null).size();
        spanFiltered |= expected.size() < expected(model, TableSpan.wholeTable(q.tableId()), from, to, cursor).size();
        assertThat(ScannedRow.drain(store.scan(span, from, to, cursor))).as("%s: scan(%s, %d, %d, %s)", q, span,
            from, to, cursor).containsExactlyElementsOf(expected);
      }
      // the generators must exercise the cursor and the span filter, or the property proves little
      Statistics.label("cursor skipped rows").collect(cursorSkipped);
      Statistics.label("span filtered rows").collect(spanFiltered);
    } finally {
      deleteTree(dir);
    }
    Statistics.label("cursor skipped rows").coverage(c -> c.check(true).percentage(p -> p >= 25));
    Statistics.label("span filtered rows").coverage(c -> c.check(true).percentage(p -> p >= 25));
  }

  private static List<ScannedRow> expected(TreeMap<Key, ScannedRow> model, TableSpan span, long from, long to,
      ScanCursor cursor) {
    List<ScannedRow> rows = new ArrayList<>();
    for (ScannedRow row : model.values()) {
      boolean inRange = row.tableId() == span.tableId() && row.commitTs() > from && row.commitTs() <= to;
      boolean beforeCursor = cursor != null && row.commitTs() == cursor.commitTs()
          && row.rowSeq() < cursor.nextRowSeq();
      if (inRange && span.contains(row.keyHash()) && !beforeCursor) {
        rows.add(row);
      }
    }
    return rows;
  }

  @Provide
  Arbitrary<List<List<Txn>>> batches() {
    // table 3 never gets rows: queries of it must come back empty
    Arbitrary<RowSpec> row = Combinators.combine(Arbitraries.longs().between(1, 2), Arbitraries.integers())
        .as(RowSpec::new);
    Arbitrary<Txn> txn = Combinators.combine(Arbitraries.integers().between(1, 3), row.list().ofMinSize(2).ofMaxSize(10))
        .as(Txn::new);
    return txn.list().ofMinSize(1).ofMaxSize(4).list().ofMinSize(2).ofMaxSize(8);
  }

  @Provide
  Arbitrary<List<Query>> queries() {
    Arbitrary<SpanChoice> span = Combinators.combine(Arbitraries.integers().between(1, 4),
        Arbitraries.integers().between(0, 3)).as(SpanChoice::new);
    Arbitrary<Query> query = Combinators.combine(
        Arbitraries.longs().between(1, 3).edgeCases(c -> c.includeOnly(1L, 3L)),
        span,
        Arbitraries.integers().between(0, 31),
        Arbitraries.longs().between(0, 3),
        Arbitraries.longs().between(-2, 40),
        Arbitraries.of(true, true, false),
        Arbitraries.integers().between(0, 2),
        Arbitraries.longs().between(0, 6))
        .as(Query::new);
    return query.list().ofMinSize(5).ofMaxSize(30);
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
