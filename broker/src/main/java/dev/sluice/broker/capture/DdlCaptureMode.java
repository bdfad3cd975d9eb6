package dev.sluice.broker.capture;

/** How capture learns of schema changes. */
public enum DdlCaptureMode {
  /** Not decided yet (before the first connection). */
  UNKNOWN,
  /**
   * An event trigger records each DDL and the table's new definition into {@code sluice.ddl_capture},
   * replicated in the DDL's own transaction: exact commit ts, statement text, drops seen.
   */
  EVENT_TRIGGER,
  /**
   * No trigger (not permitted or disabled): a version is derived when a Relation message shows a
   * changed table, at the commit ts of the first transaction that writes the table after the change;
   * drops and statement text are not seen.
   */
  RELATION_MESSAGES
}
