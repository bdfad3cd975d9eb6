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
 */
public record ChangefeedSnapshot(ChangefeedRecord record, ChangefeedStatus live) {

  /** The best known checkpoint ts: the live one while running, else the recorded one. */
  public long checkpointTs() {
    return live == null ? record.checkpoint().ts() : Math.max(live.checkpointTs(), record.checkpoint().ts());
  }
}
