package dev.sluice.dispatcher.changefeed;

/**
 * Whether a changefeed first copies the rows its tables already hold.
 *
 * <pre>{@code
 * ChangefeedDefinition d = ChangefeedDefinition.of("cf1", TableFilter.of("public.*"), 0)
 *     .withInitialLoad(InitialLoad.NONE);   // changes after the start only
 * }</pre>
 */
public enum InitialLoad {
  /**
   * Each table that exists when the changefeed starts is read by an online snapshot (READ rows merged into
   * its changes), resumable from the sink's stored cursor; tables created later need none.
   */
  SNAPSHOT,
  /** Only the changes committed after the start ts; the rows the tables held are not copied. */
  NONE
}
