package dev.sluice.broker.changefeed;

import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.dispatcher.sink.Sink;
import dev.sluice.dispatcher.sink.SinkChange;
import dev.sluice.dispatcher.sink.SinkCheckpoint;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A sink whose reported checkpoint is the later of its own and the one the server kept (after an
 * update to a new sink, or a keep_meta re-create onto a sink without its own checkpoint, such as
 * stdout), so the changefeed runtime resumes every table from where the changefeed was. Writes go
 * straight to the wrapped sink, which still skips what its own progress covers.
 *
 * <p>The kept checkpoint is merged in when the runtime asks, so it follows the wrapped sink's own
 * progress. (The runtime caps the changefeed checkpoint at its last table listing, so it never passes
 * the CREATE of a table it has not discovered yet.)
 */
final class ResumingSink implements Sink {

  private final Sink sink;
  private final SinkCheckpoint kept;

  ResumingSink(Sink sink, FeedCheckpoint kept) {
    this.sink = sink;
    this.kept = kept.toSinkCheckpoint();
  }

  @Override
  public SinkCheckpoint checkpoint() {
    return merged(sink.checkpoint(), kept);
  }

  private static SinkCheckpoint merged(SinkCheckpoint own, SinkCheckpoint kept) {
    Map<Long, SinkCheckpoint.TableProgress> tables = new HashMap<>(kept.tables());
    own.tables().forEach((id, p) -> tables.merge(id, p, (k, o) -> {
      Checkpoint later = o.applied().max(k.applied());
      return new SinkCheckpoint.TableProgress(o.tableName(), later, o.ddlTs(), Math.max(o.droppedTs(), k.droppedTs()),
          o.snapshot(), o.deferredKey());
    }));
    return new SinkCheckpoint(Math.max(own.checkpointTs(), kept.checkpointTs()), tables);
  }

  /** The wrapped sink's own durable progress. */
  SinkCheckpoint ownCheckpoint() {
    return sink.checkpoint();
  }

  @Override
  public void apply(List<Transaction> transactions, long changefeedCheckpointTs) {
    sink.apply(transactions, changefeedCheckpointTs);
  }

  @Override
  public void applyDdl(DdlChange ddl, long changefeedCheckpointTs) {
    sink.applyDdl(ddl, changefeedCheckpointTs);
  }

  @Override
  public void applyInOrder(List<SinkChange> changes, boolean commit, long changefeedCheckpointTs) {
    sink.applyInOrder(changes, commit, changefeedCheckpointTs);
  }

  @Override
  public void markDropped(long tableId, String tableName, long droppedTs) {
    sink.markDropped(tableId, tableName, droppedTs);
  }

  @Override
  public void recordSnapshot(long tableId, String tableName, dev.sluice.dispatcher.sink.TableSnapshot snapshot) {
    sink.recordSnapshot(tableId, tableName, snapshot);
  }

  @Override
  public void advance(long changefeedCheckpointTs) {
    sink.advance(changefeedCheckpointTs);
  }

  @Override
  public void close() {
    sink.close();
  }
}
