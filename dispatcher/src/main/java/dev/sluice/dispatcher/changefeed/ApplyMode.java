package dev.sluice.dispatcher.changefeed;

/**
 * How a changefeed applies its tables' changes to the sink.
 *
 * <pre>{@code
 * ChangefeedDefinition d = ChangefeedDefinition.of("cf1", TableFilter.of("public.*"), 0).withApplyMode(ApplyMode.TABLE);
 * }</pre>
 */
public enum ApplyMode {

  /**
   * Every upstream transaction whole, in commit-ts order across all tables, as one target transaction
   * with the changefeed checkpoint (several upstream transactions may share one target transaction; one
   * is never split, a transaction delivered in parts included): the target is at every instant the
   * upstream as of some commit ts, so invariants that span tables (a balance and its transfer log, a
   * parent and its children) hold whenever it is read. Rows wait until every table's stream has passed
   * their commit ts, so one slow or idle table's watermark sets the pace of all. The default.
   */
  TRANSACTION,

  /**
   * Each table on its own, as its stream arrives: a transaction that changed two tables reaches the target
   * as two parts at different moments, and the target is consistent across tables only at the changefeed
   * checkpoint. A table is never held back by another's watermark (schema changes still run in commit
   * order across tables, parents before children).
   */
  TABLE
}
