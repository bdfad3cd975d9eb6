package dev.sluice.broker.snapshot;

import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.Unavailable;
import dev.sluice.api.v1.Value;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The watermark merge of one snapshot chunk (DBLog, Netflix 2019): the chunk was read between a low
 * watermark L and a high watermark H, and its rows are delivered at H, so every row that a change
 * between the two touched must give way to that change, which the stream carries before H.
 *
 * <p><b>Why it is exact, for a table with a key.</b> The SELECT ran at some instant s in (L, H). A row it
 * returned that no change in (L, H] touched was the same at L, at s and at H: delivering it at H, after
 * every change up to H, leaves the target with the row as it is at H. A row that an insert, a delete or
 * a key change touched in (L, H] is dropped: those changes carry the whole row (or its absence), and the
 * last of them is what holds at H. A row touched only by updates keeps only the columns none of those
 * updates carried (an unchanged TOASTed value arrives as {@code unavailable}): such a column did not
 * change in (L, H], so its value read at s is its value at H, while every column an update carried is
 * the update's to set. The key columns stay in, so the target can find the row. Rows that the chunk did
 * not return are not the merge's concern: they did not exist at s, and the changes that made or removed
 * them are in the stream.
 *
 * <p><b>The window starts before L.</b> "Every change up to L is visible at s" does not hold in PostgreSQL: a
 * transaction becomes visible a moment after its commit record (after its flush, or a synchronous standby's
 * answer), so a change just before L can be missing from the SELECT. The caller therefore feeds the changes
 * from an earlier watermark on ({@link ReadChunk#windowFromTs}); a change before L that the SELECT did see is
 * then treated as one after it, which is as exact, since the stream delivers it before H too.
 *
 * <p><b>Tables without a key</b> are merged by whole-row identity, as a multiset: each image a change in
 * (L, H] carried (its before image, given REPLICA IDENTITY FULL, and its after image) cancels at most one
 * chunk row equal to it. That is exact for rows not written while the chunk was read; what it cannot
 * tell apart is described in docs/CAPTURE.md ("Snapshots", keyless tables).
 *
 * <p>Memory is the chunk's: changes are streamed in ({@link #accept}) and only touches of the chunk's
 * own rows are kept. Not thread-safe.
 *
 * <pre>{@code
 * WatermarkMerge merge = WatermarkMerge.keyed(chunk.rows(), keyColumns);
 * for (WindowChange c : changesBetweenWatermarks) merge.accept(c);
 * List<SnapshotRow> reads = merge.result();   // deliver as READ rows at H, in this order
 * }</pre>
 */
public final class WatermarkMerge {

  static final Value UNAVAILABLE = Value.newBuilder().setUnavailable(Unavailable.getDefaultInstance()).build();

  /** What the window did to one chunk row. */
  private static final class Touch {
    /** An insert, delete or identity change touched the row: the stream holds all of it. */
    boolean dropped;
    /** Columns some update in the window carried; null until an update touched the row. */
    boolean[] carried;
  }

  private final List<SnapshotRow> chunk;
  private final boolean keyless;
  private final boolean[] keyColumn;
  // keyed: identity -> position in the chunk; keyless: identity -> positions not cancelled yet. Built at the
  // first change: most windows hold no change of the table, and their chunk goes out as read, with no index.
  private Map<RowIdentity, Integer> positions;
  private Map<RowIdentity, ArrayDeque<Integer>> copies;
  private final Touch[] touches;
  private long changes;

  private WatermarkMerge(List<SnapshotRow> chunk, boolean keyless, int[] keyColumns, int columns) {
    this.chunk = List.copyOf(chunk);
    this.keyless = keyless;
    this.keyColumn = new boolean[columns];
    for (int k : keyColumns) {
      keyColumn[k] = true;
    }
    this.touches = new Touch[this.chunk.size()];
  }

  /** The chunk's rows by identity, made at the first change. */
  private void index() {
    if (keyless) {
      copies = new HashMap<>(Math.max(16, this.chunk.size() * 4 / 3 + 1));
      for (int i = 0; i < this.chunk.size(); i++) {
        copies.computeIfAbsent(this.chunk.get(i).identity(), k -> new ArrayDeque<>()).add(i);
      }
      return;
    }
    positions = new HashMap<>(Math.max(16, this.chunk.size() * 4 / 3 + 1));
    for (int i = 0; i < this.chunk.size(); i++) {
      if (positions.put(this.chunk.get(i).identity(), i) != null) {
        throw new IllegalArgumentException("two rows of one chunk have the key " + this.chunk.get(i).identity()
            + ": the key columns do not identify rows");
      }
    }
  }

  /**
   * A merge for a table with a key.
   *
   * @param chunk      the chunk's rows in key order
   * @param keyColumns positions of the key columns in the rows' values
   */
  public static WatermarkMerge keyed(List<SnapshotRow> chunk, int[] keyColumns) {
    if (keyColumns.length == 0) {
      throw new IllegalArgumentException("a keyed merge needs key columns; use keyless()");
    }
    return new WatermarkMerge(chunk, false, keyColumns, columns(chunk, keyColumns));
  }

  /** A merge by whole-row identity, for a table without a key. */
  public static WatermarkMerge keyless(List<SnapshotRow> chunk) {
    return new WatermarkMerge(chunk, true, new int[0], columns(chunk, new int[0]));
  }

  private static int columns(List<SnapshotRow> chunk, int[] keyColumns) {
    int n = chunk.isEmpty() ? 0 : chunk.get(0).values().size();
    for (int k : keyColumns) {
      n = Math.max(n, k + 1);
    }
    return n;
  }

  /** One change of the table between the watermarks, in commit order. */
  public void accept(WindowChange change) {
    if (changes++ == 0) {
      index();
    }
    if (keyless) {
      cancelOne(change.before());
      cancelOne(change.after());
      return;
    }
    boolean wholeRow = change.op() != RowOp.ROW_OP_UPDATE || change.changesIdentity();
    touch(change.before(), wholeRow, change);
    if (change.after() != null && !change.after().equals(change.before())) {
      touch(change.after(), wholeRow, change);
    }
  }

  private void touch(RowIdentity id, boolean wholeRow, WindowChange change) {
    Integer at = id == null ? null : positions.get(id);
    if (at == null) {
      return;
    }
    Touch t = touches[at];
    if (t == null) {
      t = touches[at] = new Touch();
    }
    if (wholeRow || change.available() == null) {
      t.dropped = true;
      return;
    }
    if (t.carried == null) {
      t.carried = new boolean[keyColumn.length];
    }
    for (int i = 0; i < t.carried.length && i < change.available().length; i++) {
      t.carried[i] |= change.available()[i];
    }
  }

  private void cancelOne(RowIdentity id) {
    ArrayDeque<Integer> left = id == null ? null : copies.get(id);
    if (left != null && !left.isEmpty()) {
      int at = left.poll();
      touches[at] = new Touch();
      touches[at].dropped = true;
    }
  }

  /** Changes accepted so far. */
  public long changes() {
    return changes;
  }

  /** The rows to deliver as READ rows at the high watermark, in chunk order. */
  public List<SnapshotRow> result() {
    List<SnapshotRow> out = new ArrayList<>(chunk.size());
    for (int i = 0; i < chunk.size(); i++) {
      Touch t = touches[i];
      SnapshotRow row = chunk.get(i);
      if (t == null) {
        out.add(row);
      } else if (!t.dropped) {
        SnapshotRow patch = patch(row, t.carried);
        if (patch != null) {
          out.add(patch);
        }
      }
    }
    return out;
  }

  /** The row with only the columns no update carried (and its key); null when the updates carried all. */
  private SnapshotRow patch(SnapshotRow row, boolean[] carried) {
    List<Value> values = new ArrayList<>(row.values());
    boolean anything = false;
    for (int i = 0; i < values.size(); i++) {
      boolean wasCarried = i < carried.length && carried[i];
      if (i < keyColumn.length && keyColumn[i]) {
        continue;
      }
      if (wasCarried) {
        values.set(i, UNAVAILABLE);
      } else {
        anything = true;
      }
    }
    return anything ? row.withValues(values) : null;
  }

  /** Rows of the chunk dropped or cut down so far, for tests and meters. */
  int touched() {
    return (int) Arrays.stream(touches).filter(t -> t != null).count();
  }
}
