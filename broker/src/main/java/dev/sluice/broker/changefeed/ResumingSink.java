package dev.sluice.broker.changefeed;

import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.dispatcher.sink.Sink;
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
 * <p>The reported checkpoint is the one of the moment the runtime starts, and does not move after:
 * the runtime starts a table it discovers later from the later of its creation ts and
 * {@code checkpoint().forTable(id)}, which for a table without progress is the changefeed checkpoint.
 * That checkpoint may have passed the creation of a table not yet discovered (it is the minimum over
 * the tables known), and rows written between the CREATE and the discovery would be skipped; with the
 * start-time value a table created while the runtime runs starts from its creation ts. (Workaround
 * for the dispatcher library's ChangefeedRuntime; a crash inside that window can still skip them.)
 */
final class ResumingSink implements Sink {

  private final Sink sink;
  private final SinkCheckpoint atStart;

  ResumingSink(Sink sink, FeedCheckpoint kept) {
    this.sink = sink;
    this.atStart = merged(sink.checkpoint(), kept.toSinkCheckpoint());
  }

  /** The checkpoint when the runtime started (see the class comment for why it does not move). */
  @Override
  public SinkCheckpoint checkpoint() {
    return atStart;
  }

  private static SinkCheckpoint merged(SinkCheckpoint own, SinkCheckpoint kept) {
    Map<Long, SinkCheckpoint.TableProgress> tables = new HashMap<>(kept.tables());
    own.tables().forEach((id, p) -> tables.merge(id, p, (k, o) -> {
      Checkpoint later = o.applied().max(k.applied());
      return new SinkCheckpoint.TableProgress(o.tableName(), later, o.ddlTs());
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
  public void advance(long changefeedCheckpointTs) {
    sink.advance(changefeedCheckpointTs);
  }

  @Override
  public void close() {
    sink.close();
  }
}
