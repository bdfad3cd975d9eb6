package dev.sluice.broker.changefeed;

import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.sink.SinkCheckpoint;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The progress the server knows of a changefeed: its checkpoint (every table applied up to it) and
 * each table's own applied position. Taken from the runtime while it runs and from the sink when it
 * stops; what {@code keep_meta} keeps.
 *
 * <pre>{@code
 * FeedCheckpoint c = FeedCheckpoint.of(sink.checkpoint());
 * }</pre>
 *
 * @param ts     the changefeed checkpoint ts
 * @param tables per table: id, name, applied position
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
   */
  public record TableCheckpoint(long tableId, String table, Checkpoint applied, long droppedTs) {

    public TableCheckpoint(long tableId, String table, Checkpoint applied) {
      this(tableId, table, applied, 0);
    }

    /** The later of the two; an end recorded by either stays. */
    TableCheckpoint max(TableCheckpoint other) {
      TableCheckpoint later = applied.compareTo(other.applied) >= 0 ? this : other;
      return new TableCheckpoint(tableId, later.table, later.applied, Math.max(droppedTs, other.droppedTs));
    }
  }

  /** From a sink's durable progress. */
  public static FeedCheckpoint of(SinkCheckpoint sink) {
    List<TableCheckpoint> t = new ArrayList<>();
    sink.tables().forEach((id, p) -> t.add(new TableCheckpoint(id, p.tableName(), p.applied(), p.droppedTs())));
    t.sort((a, b) -> Long.compare(a.tableId(), b.tableId()));
    return new FeedCheckpoint(sink.checkpointTs(), t);
  }

  /** The later of the two, table by table. */
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

  /** As a sink's progress (per-table positions keep their DDL ts unknown: 0). */
  public SinkCheckpoint toSinkCheckpoint() {
    Map<Long, SinkCheckpoint.TableProgress> m = new HashMap<>();
    for (TableCheckpoint t : tables) {
      m.put(t.tableId(), new SinkCheckpoint.TableProgress(t.table(), t.applied(), 0, t.droppedTs()));
    }
    return new SinkCheckpoint(ts, m);
  }

  public JsonObject toJson() {
    JsonArray arr = new JsonArray();
    for (TableCheckpoint t : tables) {
      arr.add(new JsonObject().put("table_id", t.tableId()).put("table", t.table())
          .put("checkpoint_ts", t.applied().ts()).put("cursor_commit_ts", t.applied().cursorCommitTs())
          .put("next_row_seq", t.applied().nextRowSeq()).put("dropped_ts", t.droppedTs()));
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
          j.getLong("cursor_commit_ts", 0L), j.getLong("next_row_seq", 0L)), j.getLong("dropped_ts", 0L)));
    }
    return new FeedCheckpoint(o.getLong("checkpoint_ts", 0L), t);
  }
}
