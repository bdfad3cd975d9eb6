package dev.sluice.broker.changefeed;

/**
 * Where a hosted changefeed stands. Transitions live in {@link ChangefeedTransitions} only; every
 * change is persisted (synced) before its effects run.
 *
 * <pre>{@code
 * if (record.state() == ChangefeedState.FAILED) System.out.println(record.lastError());
 * }</pre>
 */
public enum ChangefeedState {
  /** Running: a changefeed runtime on this broker applies changes to the sink. */
  NORMAL,
  /** Stopped by an operator; keeps its definition and checkpoint and waits for RESUME. */
  PAUSED,
  /** Stopped by an error; retried with backoff when the error was transient, otherwise waits for RESUME. */
  FAILED,
  /** Being deleted: the cleanup of one generation runs (and is retried) until it completes. */
  REMOVING,
  /**
   * Deleted (or never created): the record only keeps the id's last generation and, when deleted
   * with {@code keep_meta=true}, the kept checkpoint a re-create resumes from. Invisible to list/get.
   */
  REMOVED
}
