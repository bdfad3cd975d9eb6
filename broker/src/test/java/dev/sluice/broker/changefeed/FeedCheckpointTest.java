package dev.sluice.broker.changefeed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.SnapshotCursor;
import dev.sluice.dispatcher.changefeed.ApplyMode;
import dev.sluice.dispatcher.changefeed.ChangefeedStatus;
import dev.sluice.dispatcher.sink.SinkCheckpoint;
import dev.sluice.dispatcher.sink.TableSnapshot;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The progress the server keeps of a changefeed carries each table's snapshot (state, rows, cursor): through its
 * stored JSON, back into a sink's progress for a resume, and across merges of reports.
 */
class FeedCheckpointTest {

  private static final TableSnapshot HALFWAY = new TableSnapshot(TableSnapshot.State.RUNNING,
      new SnapshotCursor(List.of(), 17), 1200, 33);

  private static FeedCheckpoint.TableCheckpoint table(long id, Checkpoint applied, TableSnapshot s) {
    return new FeedCheckpoint.TableCheckpoint(id, "public.t" + id, applied, 0, s);
  }

  @Test
  void snapshotsSurviveTheStoredJsonAndTablesWithoutOneWriteNoSnapshotFields() {
    FeedCheckpoint c = new FeedCheckpoint(90, List.of(table(1, new Checkpoint(95, 96, 2), HALFWAY),
        table(2, Checkpoint.at(90), TableSnapshot.NONE),
        table(3, Checkpoint.at(91), new TableSnapshot(TableSnapshot.State.DONE, SnapshotCursor.start(), 250, 0))));

    JsonObject json = c.toJson();

    assertThat(FeedCheckpoint.fromJson(new JsonObject(json.encode()))).isEqualTo(c);
    JsonObject first = json.getJsonArray("tables").getJsonObject(0);
    assertThat(first.getString("snapshot_state")).isEqualTo("running");
    assertThat(first.getLong("snapshot_rows")).isEqualTo(1200);
    assertThat(first.getLong("snapshot_since_ts")).isEqualTo(33);
    assertThat(first.getString("snapshot_cursor")).isEqualTo(HALFWAY.cursorText());
    assertThat(json.getJsonArray("tables").getJsonObject(1).fieldNames()).noneMatch(f -> f.startsWith("snapshot_"));
  }

  /** A record written before snapshots were kept reads with none, as does a state this version does not know. */
  @Test
  void aRecordWithoutSnapshotFieldsReadsAsNone() {
    FeedCheckpoint old = FeedCheckpoint.fromJson(new JsonObject("""
        {"checkpoint_ts": 90, "tables": [{"table_id": 1, "table": "public.t1", "checkpoint_ts": 95,
          "cursor_commit_ts": 96, "next_row_seq": 2, "dropped_ts": 0},
         {"table_id": 2, "table": "public.t2", "checkpoint_ts": 90, "snapshot_state": "resting"}]}"""));

    assertThat(old.tables()).extracting(FeedCheckpoint.TableCheckpoint::snapshot)
        .containsExactly(TableSnapshot.NONE, TableSnapshot.NONE);
    assertThat(old.tables().get(0).applied()).isEqualTo(new Checkpoint(95, 96, 2));
  }

  @Test
  void aSinksSnapshotsAreKeptAndHandedBackForAResume() {
    SinkCheckpoint sink = new SinkCheckpoint(90, java.util.Map.of(
        1L, new SinkCheckpoint.TableProgress("public.t1", Checkpoint.at(95), 7, 0, HALFWAY),
        2L, new SinkCheckpoint.TableProgress("public.t2", Checkpoint.at(90), 0)));

    FeedCheckpoint kept = FeedCheckpoint.of(sink);

    assertThat(kept.tables()).extracting(FeedCheckpoint.TableCheckpoint::snapshot)
        .containsExactly(HALFWAY, TableSnapshot.NONE);
    SinkCheckpoint back = kept.toSinkCheckpoint();
    assertThat(back.tables().get(1L).snapshot()).isEqualTo(HALFWAY);
    assertThat(back.tables().get(2L)).isEqualTo(new SinkCheckpoint.TableProgress("public.t2", Checkpoint.at(90), 0));
  }

  /**
   * Positions do not order snapshots (the status's run ahead of the sink's, a re-snapshot starts from 0 rows): the
   * newer report's wins, and one without a snapshot never drops it.
   */
  @Test
  void aMergeKeepsTheNewerReportsSnapshotUnlessItHasNone() {
    TableSnapshot sampled = new TableSnapshot(TableSnapshot.State.RUNNING, SnapshotCursor.start(), 300, 0);
    FeedCheckpoint status = new FeedCheckpoint(90, List.of(table(1, Checkpoint.at(120), sampled)));
    FeedCheckpoint sink = new FeedCheckpoint(90, List.of(table(1, Checkpoint.at(95), HALFWAY)));
    FeedCheckpoint again = new FeedCheckpoint(90, List.of(table(1, Checkpoint.at(96), TableSnapshot.started(96))));
    FeedCheckpoint none = new FeedCheckpoint(99, List.of(table(1, Checkpoint.at(130), TableSnapshot.NONE)));

    FeedCheckpoint.TableCheckpoint stopped = status.max(sink).tables().get(0);
    assertThat(stopped.applied()).isEqualTo(Checkpoint.at(120));   // the later position
    assertThat(stopped.snapshot()).isEqualTo(HALFWAY);              // the sink's, reported last
    assertThat(sink.max(status).tables().get(0).snapshot()).isEqualTo(sampled);
    assertThat(sink.max(again).tables().get(0).snapshot()).isEqualTo(TableSnapshot.started(96));
    FeedCheckpoint.TableCheckpoint merged = sink.max(none).tables().get(0);
    assertThat(merged.applied()).isEqualTo(Checkpoint.at(130));
    assertThat(merged.snapshot()).as("a report without one never drops it").isEqualTo(HALFWAY);
  }

  @Test
  void theRuntimesStatusGivesEachTablesSnapshotCursorSoASinkWithoutProgressContinuesFromIt() {
    SnapshotCursor sampled = new SnapshotCursor(List.of(), 17);   // the sink's cursor as the runtime last sampled it
    ChangefeedStatus status = new ChangefeedStatus("cf", ChangefeedStatus.State.RUNNING, 90, List.of(
        new ChangefeedStatus.TableStatus(1, "public.t1", null, Checkpoint.at(95), 100, 5,
            ChangefeedStatus.TablePhase.FOLLOWING, null, new ChangefeedStatus.SnapshotStatus(
                TableSnapshot.State.RUNNING, 640, 3000, 21.3, 10.0, 236L, null, sampled))), null, List.of(),
        ApplyMode.TRANSACTION, List.of());

    TableSnapshot kept = HostedRuntime.fromStatus(status).tables().get(0).snapshot();

    assertThat(kept.cursor()).isEqualTo(sampled);
    assertThat(kept.resumes()).isTrue();
    assertThat(FeedCheckpoint.fromJson(HostedRuntime.fromStatus(status).toJson()).tables().get(0).snapshot().cursor())
        .as("kept across a broker restart").isEqualTo(sampled);
  }

  @Test
  void theRuntimesStatusGivesEachTablesSnapshotStateAndRows() {
    ChangefeedStatus status = new ChangefeedStatus("cf", ChangefeedStatus.State.RUNNING, 90, List.of(
        new ChangefeedStatus.TableStatus(1, "public.t1", null, Checkpoint.at(95), 100, 5,
            ChangefeedStatus.TablePhase.FOLLOWING, null, new ChangefeedStatus.SnapshotStatus(
                TableSnapshot.State.PAUSED, 640, 3000, 21.3, 0, null, null)),
        new ChangefeedStatus.TableStatus(2, "public.t2", null, Checkpoint.at(90), 100, 10,
            ChangefeedStatus.TablePhase.FOLLOWING, null)), null, List.of(), ApplyMode.TRANSACTION, List.of());

    FeedCheckpoint c = HostedRuntime.fromStatus(status);

    assertThat(c.tables()).extracting(FeedCheckpoint.TableCheckpoint::snapshot).containsExactly(
        new TableSnapshot(TableSnapshot.State.PAUSED, SnapshotCursor.start(), 640, 0), TableSnapshot.NONE);
  }
}
