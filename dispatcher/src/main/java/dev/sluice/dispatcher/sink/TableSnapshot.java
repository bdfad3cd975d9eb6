package dev.sluice.dispatcher.sink;

import dev.sluice.dispatcher.SnapshotCursor;
import dev.sluice.dispatcher.Transaction;
import java.util.Base64;
import java.util.Objects;

/**
 * Where a changefeed's snapshot of one table stands in a sink: kept with the table's progress (for a JDBC
 * target in {@code sluice_table_checkpoint}, in the same transaction as the chunk's rows), so a restart
 * continues from the last chunk applied and a finished snapshot is never read again.
 *
 * <pre>{@code
 * TableSnapshot s = sink.checkpoint().tables().get(tableId).snapshot();
 * if (s.resumes()) subscription = subscription.withSnapshot(s.cursor());
 * }</pre>
 *
 * @param state   where it stands
 * @param cursor  where it continues (after the last chunk applied); the start when none was
 * @param rows    READ rows applied by it so far (across restarts)
 * @param sinceTs the table's stream position when it was asked for: chunks at or below it belong to an
 *                earlier snapshot (already queued when it was asked again) and do not move the cursor
 */
public record TableSnapshot(State state, SnapshotCursor cursor, long rows, long sinceTs) {

  /** How far a table's snapshot got. */
  public enum State {
    /** No snapshot was asked for (or the record predates snapshots). */
    NONE,
    /** Running (or to be continued after a restart) from {@link #cursor()}. */
    RUNNING,
    /** Paused on request; resumed from {@link #cursor()}. */
    PAUSED,
    /** Every row was read (or none needed reading: the table was created after the changefeed started). */
    DONE,
    /** Cancelled on request; not continued after a restart. */
    CANCELLED,
    /** The upstream refused the read (for example no SELECT privilege); a restart tries again from the cursor. */
    FAILED
  }

  /** Nothing asked: the state of every table of a sink written before snapshots existed. */
  public static final TableSnapshot NONE = new TableSnapshot(State.NONE, SnapshotCursor.start(), 0, 0);

  /** Checks the components. */
  public TableSnapshot {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(cursor, "cursor");
    if (rows < 0 || sinceTs < 0) {
      throw new IllegalArgumentException("rows and sinceTs must be >= 0, got " + rows + ", " + sinceTs);
    }
  }

  /** A snapshot from the start, asked for when the table's stream was at {@code sinceTs}. */
  public static TableSnapshot started(long sinceTs) {
    return new TableSnapshot(State.RUNNING, SnapshotCursor.start(), 0, sinceTs);
  }

  /** Whether a restart subscribes with {@link #cursor()} (running, or failed and to be tried again). */
  public boolean resumes() {
    return state == State.RUNNING || state == State.FAILED;
  }

  /** Whether it ended for good (done or cancelled): a restart does not read the table again. */
  public boolean settled() {
    return state == State.DONE || state == State.CANCELLED;
  }

  /** This snapshot in {@code s}, cursor and rows kept. */
  public TableSnapshot in(State s) {
    return new TableSnapshot(s, cursor, rows, sinceTs);
  }

  /**
   * This snapshot after {@code t} was applied: its READ rows counted, and when it is a chunk's last part of
   * this snapshot (above {@link #sinceTs()}) the cursor moved after it. A chunk of a table with no snapshot
   * recorded starts one.
   */
  public TableSnapshot after(Transaction t) {
    long read = 0;
    for (var row : t.rows()) {
      if (row.op() == dev.sluice.api.v1.RowOp.ROW_OP_READ) {
        read++;
      }
    }
    if (read == 0 && t.snapshot() == null) {
      return this;
    }
    if (t.commitTs() <= sinceTs) {
      return this;   // a chunk of the snapshot this one replaced
    }
    State s = state == State.NONE ? State.RUNNING : state;
    SnapshotCursor c = t.snapshot() != null && (s == State.RUNNING || s == State.PAUSED) ? t.snapshot().next() : cursor;
    return new TableSnapshot(s, c, rows + read, sinceTs);
  }

  /** The stored form of the cursor (base64 of its protocol bytes). */
  public String cursorText() {
    return Base64.getEncoder().encodeToString(cursor.toBytes());
  }

  /** Reads a stored snapshot; a null or empty cursor text is the start. */
  public static TableSnapshot of(int state, String cursorText, long rows, long sinceTs) {
    State s = state >= 0 && state < State.values().length ? State.values()[state] : State.NONE;
    SnapshotCursor c = cursorText == null || cursorText.isEmpty() ? SnapshotCursor.start()
        : SnapshotCursor.fromBytes(Base64.getDecoder().decode(cursorText));
    return new TableSnapshot(s, c, rows, sinceTs);
  }
}
