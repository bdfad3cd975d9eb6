package dev.sluice.dispatcher.sink;

import dev.sluice.dispatcher.Checkpoint;
import java.util.Map;

/**
 * A sink's durable progress for one changefeed: the changefeed checkpoint (every table is applied
 * up to it) and each table's own position, which may be ahead of it.
 *
 * <pre>{@code
 * Checkpoint from = sink.checkpoint().forTable(tableId);   // where the table's dispatcher resumes
 * }</pre>
 *
 * @param checkpointTs the changefeed checkpoint: the minimum over tables
 * @param tables       table id to its applied position and last applied DDL ts
 */
public record SinkCheckpoint(long checkpointTs, Map<Long, TableProgress> tables) {

  public SinkCheckpoint {
    tables = Map.copyOf(tables);
  }

  public static SinkCheckpoint empty() {
    return new SinkCheckpoint(0, Map.of());
  }

  /** Where table {@code tableId} resumes: its own position, or the changefeed checkpoint when it has none. */
  public Checkpoint forTable(long tableId) {
    TableProgress p = tables.get(tableId);
    Checkpoint base = Checkpoint.at(checkpointTs);
    return p == null ? base : p.applied().max(base);
  }

  /** One table's progress. */
  public record TableProgress(String tableName, Checkpoint applied, long ddlTs) {}
}
