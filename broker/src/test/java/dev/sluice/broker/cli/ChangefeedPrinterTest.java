package dev.sluice.broker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** The one-line snapshot progress of {@code sluice changefeed get}, live and as last stored. */
class ChangefeedPrinterTest {

  @Test
  void aLiveSnapshotDrawsItsBarRateAndEta() {
    JsonObject live = new JsonObject().put("table", "public.items").put("state", "running").put("rows_done", 1200)
        .put("rows_estimated", 3000).put("percent", 40.0).put("rows_per_s", 400.0).put("eta_s", 5).put("reason", null);

    assertThat(ChangefeedPrinter.snapshotLine(live))
        .isEqualTo("snapshot running [########------------]  40.0%  1,200 of 3,000 rows  400 rows/s  ETA 5s");
  }

  /** A stopped changefeed's view has no estimate, rate or ETA (null): the rows done alone, and why it stands. */
  @Test
  void aStoredSnapshotShowsItsRowsAlone() {
    JsonObject stored = new JsonObject().put("table", "public.items").put("state", "paused").put("rows_done", 1200)
        .put("rows_estimated", null).put("percent", null).put("rows_per_s", null).put("eta_s", null)
        .put("reason", "the changefeed is paused: resuming it continues the snapshot");

    assertThat(ChangefeedPrinter.snapshotLine(stored))
        .isEqualTo("snapshot paused 1,200 rows (the changefeed is paused: resuming it continues the snapshot)");
  }
}
