package dev.sluice.broker.snapshot;

/**
 * What a person sees of one snapshot on this broker ({@code GET /api/v1/snapshots}).
 *
 * @param dispatcherId   the dispatcher it reads for
 * @param epoch          the dispatcher's epoch it runs in
 * @param changefeedId   the dispatcher's changefeed, "" when none
 * @param table          "schema.table"
 * @param keyless        true when the table has no key and is read by heap block
 * @param state          where it stands
 * @param rowsRead       rows delivered so far in this epoch
 * @param rowsEstimate   the table's estimated rows when it began (pg_class.reltuples), 0 when unknown
 * @param chunks         chunks delivered
 * @param rereads        chunks read again (a schema change between their watermarks)
 * @param rowsPerSecond  rows delivered per second since it began
 * @param etaSeconds     seconds left at that rate, -1 when unknown
 * @param lastError      the last error, or null
 */
public record SessionView(String dispatcherId, long epoch, String changefeedId, String table, boolean keyless,
    SessionState state, long rowsRead, long rowsEstimate, long chunks, long rereads, double rowsPerSecond,
    long etaSeconds, String lastError) {

  /** Percent done by the estimate, capped at 99.9 until complete; -1 when there is no estimate. */
  public double percent() {
    if (state == SessionState.COMPLETE) {
      return 100;
    }
    if (rowsEstimate <= 0) {
      return -1;
    }
    return Math.min(99.9, 100.0 * rowsRead / rowsEstimate);
  }
}
