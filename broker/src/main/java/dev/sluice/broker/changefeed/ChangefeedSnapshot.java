package dev.sluice.broker.changefeed;

import dev.sluice.dispatcher.changefeed.ChangefeedStatus;

/**
 * A changefeed as the API shows it: its record and, while its runtime runs, the runtime's live status
 * (per-table state, checkpoint, resolved ts).
 *
 * <pre>{@code
 * ChangefeedSnapshot s = supervisor.get("orders").join();
 * long lagTs = clock.resolvedTs() - s.checkpointTs();
 * }</pre>
 *
 * @param record the persisted record
 * @param live   the runtime's status, or null when no runtime runs
 * @param gcHold how its checkpoint holds the broker's GC
 */
public record ChangefeedSnapshot(ChangefeedRecord record, ChangefeedStatus live, GcHolds.Hold gcHold) {

  /** The best known checkpoint ts: the later of the live one (while running) and the recorded one (at least the start ts). */
  public long checkpointTs() {
    return live == null ? record.checkpointTs() : Math.max(live.checkpointTs(), record.checkpointTs());
  }
}
