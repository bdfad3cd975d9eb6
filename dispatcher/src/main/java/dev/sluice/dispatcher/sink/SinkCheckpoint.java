package dev.sluice.dispatcher.sink;

import dev.sluice.dispatcher.Checkpoint;
import java.util.Map;

/**
 * A sink's durable progress for one changefeed: the changefeed checkpoint (every table is applied
 * up to it) and each table's own position, which may be ahead of it. A table whose stream ended (its
 * DROP was applied, or the broker no longer has it) keeps its entry with {@code droppedTs}, so a
 * restart never follows it again.
 *
 * <pre>{@code
 * Checkpoint from = sink.checkpoint().forTable(tableId);   // where the table's dispatcher resumes
 * }</pre>
 *
 * @param checkpointTs the changefeed checkpoint: the minimum over tables
 * @param tables       table id to its applied position, last applied DDL ts and end
 */
public record SinkCheckpoint(long checkpointTs, Map<Long, TableProgress> tables) {

  /** Copies the table map. */
  public SinkCheckpoint {
    tables = Map.copyOf(tables);
  }

  /** Nothing applied yet: a new target. */
  public static SinkCheckpoint empty() {
    return new SinkCheckpoint(0, Map.of());
  }

  /** Where table {@code tableId} resumes: its own position, or the changefeed checkpoint when it has none. */
  public Checkpoint forTable(long tableId) {
    TableProgress p = tables.get(tableId);
    Checkpoint base = Checkpoint.at(checkpointTs);
    return p == null ? base : p.applied().max(base);
  }

  /**
   * One table's progress.
   *
   * @param tableName "schema.table" as last applied
   * @param applied   its applied position
   * @param ddlTs     commit ts of its last applied DDL, 0 when none
   * @param droppedTs commit ts its stream ended at (its DROP), 0 while it is followed
   * @param snapshot  where the changefeed's snapshot of the table stands ({@link TableSnapshot#NONE} when none)
   * @param deferredKey the statement that adds back the primary key a PostgreSQL {@link JdbcUpsertSink} dropped
   *                  while it loads the table's snapshot ({@code ALTER TABLE "s"."t" ADD CONSTRAINT "t_pkey" PRIMARY
   *                  KEY (id)}, see {@link JdbcUpsertSink#finishDeferredKeys()}); null while the target table has
   *                  its key
   */
  public record TableProgress(String tableName, Checkpoint applied, long ddlTs, long droppedTs,
      TableSnapshot snapshot, String deferredKey) {

    /** Defaults a missing snapshot to {@link TableSnapshot#NONE}. */
    public TableProgress {
      snapshot = snapshot == null ? TableSnapshot.NONE : snapshot;
    }

    /** A progress whose table has its key (none deferred). */
    public TableProgress(String tableName, Checkpoint applied, long ddlTs, long droppedTs, TableSnapshot snapshot) {
      this(tableName, applied, ddlTs, droppedTs, snapshot, null);
    }

    /** A progress without a snapshot. */
    public TableProgress(String tableName, Checkpoint applied, long ddlTs, long droppedTs) {
      this(tableName, applied, ddlTs, droppedTs, TableSnapshot.NONE);
    }

    /** A followed table's progress (not dropped). */
    public TableProgress(String tableName, Checkpoint applied, long ddlTs) {
      this(tableName, applied, ddlTs, 0);
    }

    /** This progress with {@code s} as its snapshot. */
    public TableProgress withSnapshot(TableSnapshot s) {
      return new TableProgress(tableName, applied, ddlTs, droppedTs, s, deferredKey);
    }

    /** This progress with {@code statement} as its deferred key (null: the key is in place). */
    public TableProgress withDeferredKey(String statement) {
      return new TableProgress(tableName, applied, ddlTs, droppedTs, snapshot, statement);
    }

    /** Whether the table's stream ended: nothing of it is applied or followed any more. */
    public boolean dropped() {
      return droppedTs > 0;
    }

    /** This progress, ended at {@code ts}. */
    public TableProgress droppedAt(long ts) {
      return new TableProgress(tableName, applied.max(Checkpoint.at(ts)), ddlTs, ts, snapshot, deferredKey);
    }
  }
}
