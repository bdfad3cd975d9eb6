package dev.sluice.broker.changefeed;

import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.sink.SinkCheckpoint;
import dev.sluice.dispatcher.sink.TableSnapshot;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The progress the server knows of a changefeed: its checkpoint (every table applied up to it) and
 * each table's own applied position and where its snapshot stands. Taken from the runtime while it runs
 * and from the sink when it stops; what {@code keep_meta} keeps, and what the API shows of a changefeed
 * whose runtime does not run.
 *
 * <pre>{@code
 * FeedCheckpoint c = FeedCheckpoint.of(sink.checkpoint());
 * TableSnapshot s = c.tables().get(0).snapshot();   // TableSnapshot.NONE when none was asked for
 * }</pre>
 *
 * @param ts     the changefeed checkpoint ts
 * @param tables per table: id, name, applied position, end and snapshot
 */
public record FeedCheckpoint(long ts, List<TableCheckpoint> tables) {

  public static final FeedCheckpoint NONE = new FeedCheckpoint(0, List.of());

  public FeedCheckpoint {
    tables = List.copyOf(tables);
  }

  /**
   * One table's applied position.
   *
   * @param droppedTs the ts its stream ended at (dropped), 0 while it is followed
   * @param snapshot  where its snapshot stands as last recorded ({@link TableSnapshot#NONE} when none was asked
   *                  for); taken from the runtime's status its cursor is the sink's as last sampled (once a second)
   */
  public record TableCheckpoint(long tableId, String table, Checkpoint applied, long droppedTs,
      TableSnapshot snapshot) {

    /** Defaults a missing snapshot to {@link TableSnapshot#NONE}. */
    public TableCheckpoint {
      snapshot = snapshot == null ? TableSnapshot.NONE : snapshot;
    }

    public TableCheckpoint(long tableId, String table, Checkpoint applied, long droppedTs) {
      this(tableId, table, applied, droppedTs, TableSnapshot.NONE);
    }

    public TableCheckpoint(long tableId, String table, Checkpoint applied) {
      this(tableId, table, applied, 0);
    }

    /** The later of the two; an end recorded by either stays; the snapshot of {@code other}, the newer report. */
    TableCheckpoint max(TableCheckpoint other) {
      TableCheckpoint later = applied.compareTo(other.applied) >= 0 ? this : other;
      // the newer report's snapshot unless it has none (positions do not order them: see FeedCheckpoint.max)
      TableSnapshot snapshot = other.snapshot.state() == TableSnapshot.State.NONE ? this.snapshot : other.snapshot;
      return new TableCheckpoint(tableId, later.table, later.applied, Math.max(droppedTs, other.droppedTs), snapshot);
    }
  }

  /** From a sink's durable progress. */
  public static FeedCheckpoint of(SinkCheckpoint sink) {
    List<TableCheckpoint> t = new ArrayList<>();
    sink.tables().forEach((id, p) -> t.add(new TableCheckpoint(id, p.tableName(), p.applied(), p.droppedTs(),
        p.snapshot())));
    t.sort((a, b) -> Long.compare(a.tableId(), b.tableId()));
    return new FeedCheckpoint(sink.checkpointTs(), t);
  }

  /**
   * The later of the two, table by table; a table's snapshot is {@code other}'s where it has one, so pass the
   * newer report as {@code other} (a snapshot's rows and state only move on, but a re-snapshot starts again
   * from 0 rows, and a table's position in the runtime's status runs ahead of the one its sink recorded the
   * snapshot at: neither orders two reports).
   */
  public FeedCheckpoint max(FeedCheckpoint other) {
    Map<Long, TableCheckpoint> byId = new HashMap<>();
    for (TableCheckpoint t : tables) {
      byId.put(t.tableId(), t);
    }
    for (TableCheckpoint t : other.tables) {
      byId.merge(t.tableId(), t, TableCheckpoint::max);
    }
    List<TableCheckpoint> merged = new ArrayList<>(byId.values());
    merged.sort((a, b) -> Long.compare(a.tableId(), b.tableId()));
    return new FeedCheckpoint(Math.max(ts, other.ts), merged);
  }

  /**
   * As a sink's progress (per-table positions keep their DDL ts unknown: 0), snapshots included, so a run
   * resumed from it continues, keeps paused or leaves settled the snapshots the sink itself does not hold.
   */
  public SinkCheckpoint toSinkCheckpoint() {
    Map<Long, SinkCheckpoint.TableProgress> m = new HashMap<>();
    for (TableCheckpoint t : tables) {
      m.put(t.tableId(), new SinkCheckpoint.TableProgress(t.table(), t.applied(), 0, t.droppedTs(), t.snapshot()));
    }
    return new SinkCheckpoint(ts, m);
  }

  /**
   * The stored form: per table its position and, when it has a snapshot, {@code snapshot_state} (lower case),
   * {@code snapshot_rows}, {@code snapshot_cursor} (base64) and {@code snapshot_since_ts}.
   */
  public JsonObject toJson() {
    JsonArray arr = new JsonArray();
    for (TableCheckpoint t : tables) {
      JsonObject j = new JsonObject().put("table_id", t.tableId()).put("table", t.table())
          .put("checkpoint_ts", t.applied().ts()).put("cursor_commit_ts", t.applied().cursorCommitTs())
          .put("next_row_seq", t.applied().nextRowSeq()).put("dropped_ts", t.droppedTs());
      TableSnapshot s = t.snapshot();
      if (s.state() != TableSnapshot.State.NONE) {
        j.put("snapshot_state", s.state().name().toLowerCase(Locale.ROOT)).put("snapshot_rows", s.rows())
            .put("snapshot_cursor", s.cursorText()).put("snapshot_since_ts", s.sinceTs());
      }
      arr.add(j);
    }
    return new JsonObject().put("checkpoint_ts", ts).put("tables", arr);
  }

  static FeedCheckpoint fromJson(JsonObject o) {
    if (o == null) {
      return NONE;
    }
    List<TableCheckpoint> t = new ArrayList<>();
    for (Object e : o.getJsonArray("tables", new JsonArray())) {
      JsonObject j = (JsonObject) e;
      t.add(new TableCheckpoint(j.getLong("table_id"), j.getString("table"), new Checkpoint(j.getLong("checkpoint_ts"),
          j.getLong("cursor_commit_ts", 0L), j.getLong("next_row_seq", 0L)), j.getLong("dropped_ts", 0L),
          snapshotFromJson(j)));
    }
    return new FeedCheckpoint(o.getLong("checkpoint_ts", 0L), t);
  }

  /** A table's stored snapshot; a record from before snapshots were kept (no snapshot_state) has none. */
  private static TableSnapshot snapshotFromJson(JsonObject j) {
    String state = j.getString("snapshot_state");
    if (state == null) {
      return TableSnapshot.NONE;
    }
    int ordinal = -1;   // a state this version does not know reads as none
    for (TableSnapshot.State s : TableSnapshot.State.values()) {
      ordinal = s.name().equalsIgnoreCase(state) ? s.ordinal() : ordinal;
    }
    return TableSnapshot.of(ordinal, j.getString("snapshot_cursor"), j.getLong("snapshot_rows", 0L),
        j.getLong("snapshot_since_ts", 0L));
  }
}
