package dev.sluice.broker.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.Value;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Builders;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The watermark merge against a model: a table {@code (k key, a int, t text)} whose {@code t} behaves like a
 * TOASTed column (an update that leaves it alone logs it as unavailable), random inserts, updates (with and
 * without a change of {@code t}), key changes and deletes, and a snapshot read chunk by chunk in key order,
 * each chunk's SELECT at a random instant between its two watermarks with changes before, between and after
 * them. The stream a dispatcher gets (every change in commit order, and each chunk's merged READ rows at its
 * high watermark) is applied to an empty table the way the JDBC sink applies it (upserts of the carried
 * columns, deletes by key); at the end it must equal the source table. No upstream or store is needed: the
 * model is the log.
 */
class WatermarkMergeModelTest {

  private static final int KEYS = 10;

  /** One generated step; steps that do not fit the table's state do nothing (an update of a missing key). */
  record Step(int kind, int key, int key2, int a, boolean changesT) {}

  /** A row of the model table. */
  record Row(long a, String t) {}

  /** What a change carried to the log: null in {@code a}/{@code t} means unavailable. */
  record Change(RowOp op, int key, int newKey, Long a, String t) {}

  @Property(tries = 400)
  void theMergedStreamAppliedToAnEmptyTableEqualsTheSource(
      @ForAll("initial") Map<Integer, Row> initial, @ForAll @Size(max = 60) List<@net.jqwik.api.From("steps") Step> steps,
      @ForAll @IntRange(min = 1, max = 5) int chunkRows) {
    Run run = new Run(initial, chunkRows, true);
    run.play(steps);
    assertThat(run.target).as("target after the merged stream").isEqualTo(run.source);
  }

  @Example
  void deliveringChunksUnmergedLosesAChangeMadeBetweenTheWatermarks() {
    // the sensitivity of the model itself: a delete between the SELECT and the high watermark resurrects the row
    Run run = new Run(Map.of(1, new Row(1, "t1")), 5, false);
    run.play(List.of(new Step(5, 0, 0, 0, false), new Step(5, 0, 0, 0, false), new Step(3, 1, 0, 0, false)));
    assertThat(run.source).isEmpty();
    assertThat(run.target).containsKey(1);
  }

  @Example
  void anUpdateThatLeavesTheToastedColumnAloneKeepsTheChunksValueForIt() {
    // read t at the SELECT, then an update of a between the watermarks: only t comes from the chunk
    Run run = new Run(Map.of(4, new Row(1, "big")), 5, true);
    run.play(List.of(new Step(5, 0, 0, 0, false), new Step(5, 0, 0, 0, false), new Step(2, 4, 0, 7, false)));
    assertThat(run.target).isEqualTo(Map.of(4, new Row(7, "big")));
    assertThat(run.lastReads).singleElement().satisfies(r -> {
      assertThat(r.values().get(1).hasUnavailable()).as("a came with the update").isTrue();
      assertThat(r.values().get(2).getStringValue()).isEqualTo("big");
    });
  }

  @Example
  void aRowUntouchedBetweenTheWatermarksIsDeliveredWhole() {
    Run run = new Run(Map.of(1, new Row(1, "x"), 2, new Row(2, "y")), 5, true);
    run.play(List.of(new Step(5, 0, 0, 0, false), new Step(3, 2, 0, 0, false), new Step(5, 0, 0, 0, false)));
    assertThat(run.lastReads).extracting(r -> r.values().get(0).getInt64Value()).containsExactly(1L);
    assertThat(run.target).isEqualTo(run.source).isEqualTo(Map.of(1, new Row(1, "x")));
  }

  @Provide
  Arbitrary<Map<Integer, Row>> initial() {
    return Arbitraries.maps(Arbitraries.integers().between(0, KEYS - 1),
        Arbitraries.integers().between(0, 99).map(a -> new Row(a, "t" + a))).ofMaxSize(KEYS);
  }

  @Provide
  Arbitrary<Step> steps() {
    return Builders.withBuilder(() -> new int[5])
        .use(Arbitraries.integers().between(0, 9)).in((b, v) -> { b[0] = v; return b; })
        .use(Arbitraries.integers().between(0, KEYS - 1)).in((b, v) -> { b[1] = v; return b; })
        .use(Arbitraries.integers().between(0, KEYS - 1)).in((b, v) -> { b[2] = v; return b; })
        .use(Arbitraries.integers().between(0, 99)).in((b, v) -> { b[3] = v; return b; })
        .use(Arbitraries.integers().between(0, 1)).in((b, v) -> { b[4] = v; return b; })
        .build(b -> new Step(b[0], b[1], b[2], b[3], b[4] == 1));
  }

  /** One run of the model: the source table, the log, the snapshot's phases and the target. */
  private static final class Run {
    final TreeMap<Integer, Row> source = new TreeMap<>();
    final Map<Integer, Row> target = new HashMap<>();
    final int chunkRows;
    final boolean merge;
    int tVersion;
    // the snapshot: IDLE (0) -> low watermark written (1) -> chunk read (2) -> high watermark: delivered (back to 0)
    int phase;
    boolean snapshotDone;
    Integer lastKey;
    List<SnapshotRow> chunk = List.of();
    boolean chunkExhausted;
    final List<Change> window = new ArrayList<>();
    List<SnapshotRow> lastReads = List.of();

    Run(Map<Integer, Row> initial, int chunkRows, boolean merge) {
      source.putAll(initial);
      this.chunkRows = chunkRows;
      this.merge = merge;
    }

    void play(List<Step> steps) {
      for (Step s : steps) {
        switch (s.kind()) {
          case 5, 6 -> advanceSnapshot();
          default -> change(s);
        }
      }
      int guard = 0;
      while (!snapshotDone) {   // the workload stopped; the snapshot runs to its end
        advanceSnapshot();
        if (++guard > 10_000) {
          throw new AssertionError("the snapshot does not end");
        }
      }
    }

    private void change(Step s) {
      Row old = source.get(s.key());
      Change c = null;
      switch (s.kind()) {
        case 0, 1 -> {
          if (old == null) {
            Row r = new Row(s.a(), "t" + (++tVersion));
            source.put(s.key(), r);
            c = new Change(RowOp.ROW_OP_INSERT, s.key(), s.key(), r.a(), r.t());
          } else {
            c = update(s, old);
          }
        }
        case 3 -> {
          if (old != null) {
            source.remove(s.key());
            c = new Change(RowOp.ROW_OP_DELETE, s.key(), s.key(), null, null);
          }
        }
        case 4 -> {
          if (old != null && s.key2() != s.key() && !source.containsKey(s.key2())) {
            source.remove(s.key());
            Row r = new Row(s.a(), old.t());
            source.put(s.key2(), r);
            // a key change logs the whole new row (docs/CAPTURE.md: the TOAST limit of key changes)
            c = new Change(RowOp.ROW_OP_UPDATE, s.key(), s.key2(), r.a(), r.t());
          }
        }
        default -> {
          if (old != null) {
            c = update(s, old);
          }
        }
      }
      if (c != null) {
        apply(c);   // the stream carries every change in commit order
        if (phase >= 1) {
          window.add(c);   // between this chunk's low and high watermark
        }
      }
    }

    private Change update(Step s, Row old) {
      String t = s.changesT() ? "t" + (++tVersion) : old.t();
      source.put(s.key(), new Row(s.a(), t));
      return new Change(RowOp.ROW_OP_UPDATE, s.key(), s.key(), (long) s.a(), s.changesT() ? t : null);
    }

    private void advanceSnapshot() {
      if (snapshotDone) {
        return;
      }
      switch (phase) {
        case 0 -> {
          window.clear();
          phase = 1;
        }
        case 1 -> {   // the SELECT, at this instant
          List<SnapshotRow> rows = new ArrayList<>();
          for (Map.Entry<Integer, Row> e : (lastKey == null ? source : source.tailMap(lastKey, false)).entrySet()) {
            if (rows.size() == chunkRows) {
              break;
            }
            rows.add(snapshotRow(e.getKey(), e.getValue()));
          }
          chunk = rows;
          chunkExhausted = rows.size() < chunkRows;
          if (!rows.isEmpty()) {
            lastKey = (int) rows.get(rows.size() - 1).values().get(0).getInt64Value();
          }
          phase = 2;
        }
        default -> {   // the high watermark: the merged chunk goes out here
          List<SnapshotRow> reads = chunk;
          if (merge) {
            WatermarkMerge m = WatermarkMerge.keyed(chunk, new int[] {0});
            for (Change c : window) {
              m.accept(windowChange(c));
            }
            reads = m.result();
          }
          lastReads = reads;
          for (SnapshotRow r : reads) {
            applyRead(r);
          }
          snapshotDone = chunkExhausted;
          phase = 0;
        }
      }
    }

    // ---- the sink's semantics (JdbcUpsertSink): upsert what is carried, delete by key

    private void apply(Change c) {
      switch (c.op()) {
        case ROW_OP_INSERT -> target.put(c.key(), new Row(c.a(), c.t()));
        case ROW_OP_DELETE -> target.remove(c.key());
        default -> {
          if (c.newKey() != c.key()) {
            target.remove(c.key());
          }
          upsert(c.newKey(), c.a(), c.t());
        }
      }
    }

    private void applyRead(SnapshotRow r) {
      List<Value> v = r.values();
      assertThat(v.get(0).hasUnavailable()).as("a READ row's key is always there").isFalse();
      upsert((int) v.get(0).getInt64Value(), v.get(1).hasUnavailable() ? null : v.get(1).getInt64Value(),
          v.get(2).hasUnavailable() ? null : v.get(2).getStringValue());
    }

    private void upsert(int key, Long a, String t) {
      Row cur = target.get(key);
      // a row the target lacks gets NULL where nothing was carried, as an INSERT of the carried columns does
      target.put(key, new Row(a != null ? a : cur == null ? -1 : cur.a(), t != null ? t : cur == null ? null : cur.t()));
    }

    private static SnapshotRow snapshotRow(int key, Row r) {
      List<Value> values = List.of(Value.newBuilder().setInt64Value(key).build(),
          Value.newBuilder().setInt64Value(r.a()).build(), Value.newBuilder().setStringValue(r.t()).build());
      return new SnapshotRow(RowIdentity.of(values.subList(0, 1)), 0, values, 32);
    }

    private static WindowChange windowChange(Change c) {
      RowIdentity before = c.op() == RowOp.ROW_OP_DELETE || c.newKey() != c.key() ? id(c.key()) : null;
      RowIdentity after = c.op() == RowOp.ROW_OP_DELETE ? null : id(c.newKey());
      boolean[] available = c.op() == RowOp.ROW_OP_DELETE ? null
          : new boolean[] {true, c.a() != null, c.t() != null};
      return new WindowChange(c.op(), before, after, available);
    }

    private static RowIdentity id(int key) {
      return RowIdentity.of(List.of(Value.newBuilder().setInt64Value(key).build()));
    }
  }
}
