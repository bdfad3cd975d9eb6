package dev.sluice.broker.changefeed;

/**
 * What an operator asks of a hosted changefeed's snapshots ({@code POST /api/v1/changefeeds/{id}/snapshot[/...]}).
 *
 * <pre>{@code
 * supervisor.snapshot("orders", SnapshotAction.START, List.of("public.orders"));   // read it again
 * }</pre>
 */
public enum SnapshotAction {
  /** Read the tables again from the start, live changes flowing on. */
  START,
  /** Pause the running snapshots. */
  PAUSE,
  /** Continue paused snapshots where they stopped. */
  RESUME,
  /** End running or paused snapshots for good. */
  CANCEL
}
