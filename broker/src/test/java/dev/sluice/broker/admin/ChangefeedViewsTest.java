package dev.sluice.broker.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.broker.changefeed.ChangefeedOptions;
import dev.sluice.broker.changefeed.ChangefeedRecord;
import dev.sluice.broker.changefeed.ChangefeedSnapshot;
import dev.sluice.broker.changefeed.ChangefeedSpec;
import dev.sluice.broker.changefeed.ChangefeedState;
import dev.sluice.broker.changefeed.FeedCheckpoint;
import dev.sluice.broker.changefeed.GcHolds;
import dev.sluice.broker.changefeed.SinkUri;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.SnapshotCursor;
import dev.sluice.dispatcher.changefeed.ApplyMode;
import dev.sluice.dispatcher.changefeed.ChangefeedStatus;
import dev.sluice.dispatcher.sink.TableSnapshot;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A changefeed's snapshot progress in the API: the runtime's figures while it runs ({@code as_of: live}), the
 * last stored ones while it does not ({@code as_of: stored}), a snapshot stored as running shown as the
 * changefeed's own state.
 */
class ChangefeedViewsTest {

  private static final FeedCheckpoint STORED = new FeedCheckpoint(90, List.of(
      table(1, "public.items", new TableSnapshot(TableSnapshot.State.RUNNING, new SnapshotCursor(List.of(), 9), 1200, 5)),
      table(2, "public.pairs", new TableSnapshot(TableSnapshot.State.DONE, SnapshotCursor.start(), 250, 5)),
      table(3, "public.later", TableSnapshot.NONE)));

  private static FeedCheckpoint.TableCheckpoint table(long id, String name, TableSnapshot s) {
    return new FeedCheckpoint.TableCheckpoint(id, name, Checkpoint.at(90), 0, s);
  }

  private static ChangefeedSnapshot stopped(ChangefeedState state, FeedCheckpoint c) {
    ChangefeedSpec spec = new ChangefeedSpec(List.of(), List.of("public.*"), List.of(), 42,
        SinkUri.parse("jsonl:file:/tmp/x.jsonl"), ChangefeedOptions.defaults());
    ChangefeedRecord r = new ChangefeedRecord("cf", 1, state, spec, c, false, null, 0, 0, null, 1, 2,
        ChangefeedRecord.GcMark.NONE, 0, 0);
    return new ChangefeedSnapshot(r, null, new GcHolds.Hold(GcHolds.Phase.NONE, 0, 0));
  }

  @ParameterizedTest(name = "{0}: a running one shows as {1}")
  @CsvSource({"PAUSED, paused", "FAILED, failed", "NORMAL, running"})
  void aStoppedChangefeedShowsItsStoredSnapshots(ChangefeedState state, String shown) {
    JsonObject s = ChangefeedViews.snapshot(stopped(state, STORED));

    assertThat(s.getString("as_of")).isEqualTo("stored");
    assertThat(s.getString("state")).isEqualTo(shown);   // the first in running, paused, failed, cancelled, done
    JsonArray tables = s.getJsonArray("tables");
    assertThat(tables).hasSize(2);
    JsonObject items = tables.getJsonObject(0);
    assertThat(items.getString("table")).isEqualTo("public.items");
    assertThat(items.getString("state")).isEqualTo(shown);
    assertThat(items.getLong("rows_done")).isEqualTo(1200);
    for (String unknown : List.of("rows_estimated", "percent", "rows_per_s", "eta_s")) {
      assertThat(items.containsKey(unknown)).as(unknown).isTrue();
      assertThat(items.getValue(unknown)).as(unknown).isNull();
    }
    assertThat(items.getString("reason")).satisfies(r -> {
      if (state == ChangefeedState.NORMAL) {
        assertThat(r).isNull();
      } else {
        assertThat(r).contains("the changefeed " + (state == ChangefeedState.PAUSED ? "is paused" : "failed"));
      }
    });
    JsonObject pairs = tables.getJsonObject(1);
    assertThat(pairs.getString("state")).isEqualTo("done");
    assertThat(pairs.getLong("rows_done")).isEqualTo(250);
    assertThat(pairs.getString("reason")).isNull();
  }

  @Test
  void aStoppedChangefeedWithoutSnapshotsShowsNone() {
    JsonObject s = ChangefeedViews.snapshot(stopped(ChangefeedState.PAUSED, FeedCheckpoint.NONE));

    assertThat(s).isEqualTo(new JsonObject().put("state", "none").put("as_of", "stored").put("tables",
        new JsonArray()));
  }

  @Test
  void aRunningChangefeedShowsTheRuntimesFigures() {
    ChangefeedSnapshot stopped = stopped(ChangefeedState.NORMAL, STORED);
    ChangefeedStatus live = new ChangefeedStatus("cf", ChangefeedStatus.State.RUNNING, 90, List.of(
        new ChangefeedStatus.TableStatus(1, "public.items", null, Checkpoint.at(95), 100, 5,
            ChangefeedStatus.TablePhase.FOLLOWING, null, new ChangefeedStatus.SnapshotStatus(
                TableSnapshot.State.RUNNING, 1500, 3000, 50.0, 400, 4L, null))),
        null, List.of(), ApplyMode.TRANSACTION, List.of());

    JsonObject s = ChangefeedViews.snapshot(new ChangefeedSnapshot(stopped.record(), live, stopped.gcHold()));

    assertThat(s.getString("as_of")).isEqualTo("live");
    assertThat(s.getString("state")).isEqualTo("running");
    assertThat(s.getJsonArray("tables")).hasSize(1);
    assertThat(s.getJsonArray("tables").getJsonObject(0).getLong("rows_estimated")).isEqualTo(3000);
  }
}
