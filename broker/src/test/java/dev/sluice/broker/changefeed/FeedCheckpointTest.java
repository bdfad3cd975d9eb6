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

  @Test
  void aMergeKeepsTheLaterPositionsSnapshotThenTheOneWithMoreRowsThenTheNewer() {
    TableSnapshot paused = HALFWAY.in(TableSnapshot.State.PAUSED);
    TableSnapshot more = new TableSnapshot(TableSnapshot.State.RUNNING, SnapshotCursor.start(), 1300, 0);
    FeedCheckpoint earlier = new FeedCheckpoint(90, List.of(table(1, Checkpoint.at(95), more)));
    FeedCheckpoint later = new FeedCheckpoint(90, List.of(table(1, Checkpoint.at(96), HALFWAY)));
    FeedCheckpoint samePlace = new FeedCheckpoint(90, List.of(table(1, Checkpoint.at(95), paused)));
    FeedCheckpoint none = new FeedCheckpoint(99, List.of(table(1, Checkpoint.at(99), TableSnapshot.NONE)));

    assertThat(earlier.max(later).tables().get(0).snapshot()).isEqualTo(HALFWAY);
    assertThat(later.max(earlier).tables().get(0).snapshot()).isEqualTo(HALFWAY);
    assertThat(earlier.max(samePlace).tables().get(0).snapshot()).isEqualTo(more);   // more rows
    assertThat(samePlace.max(earlier).tables().get(0).snapshot()).isEqualTo(more);
    FeedCheckpoint sameRows = new FeedCheckpoint(90, List.of(table(1, Checkpoint.at(95), HALFWAY)));
    assertThat(sameRows.max(samePlace).tables().get(0).snapshot()).isEqualTo(paused);   // equal rows: the newer
    assertThat(samePlace.max(sameRows).tables().get(0).snapshot()).isEqualTo(HALFWAY);
    FeedCheckpoint.TableCheckpoint merged = later.max(none).tables().get(0);
    assertThat(merged.applied()).isEqualTo(Checkpoint.at(99));
    assertThat(merged.snapshot()).as("a report without one never drops it").isEqualTo(HALFWAY);
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
