package dev.sluice.broker.changefeed;

/**
 * What can happen to a changefeed: an operator's request, a runtime report, a timer or the end of a
 * cleanup. Payloads (the new definition, the error, the delete options) travel beside the input in
 * the supervisor's command; the decision depends on the kind only.
 *
 * <pre>{@code
 * ChangefeedTransition t = ChangefeedTransitions.apply(record.state(), ChangefeedInput.PAUSE);
 * }</pre>
 */
public enum ChangefeedInput {
  /** POST /changefeeds: create (or re-create a removed id). */
  CREATE,
  /** POST /changefeeds/{id}/pause. */
  PAUSE,
  /** POST /changefeeds/{id}/resume; also clears a FAILED changefeed's retry count. */
  RESUME,
  /** PATCH or PUT /changefeeds/{id}: a new definition. */
  UPDATE,
  /** The runtime stopped on an error worth retrying (the sink or the broker could not be reached). */
  FAIL_TRANSIENT,
  /** The runtime stopped on an error an operator must fix (UNSUPPORTED_DDL, SINK_FAILED, a rejected start). */
  FAIL_FATAL,
  /** A retry timer fired (a FAILED changefeed's restart, or a REMOVING changefeed's next cleanup attempt). */
  RETRY_DUE,
  /** DELETE /changefeeds/{id} (first request or a retry). */
  DELETE,
  /**
   * DELETE /changefeeds/{id}?purge=true: a delete that removes the checkpoint, and that also discards the
   * checkpoint a keep_meta delete kept (REMOVED: the sink's checkpoint rows go too).
   */
  PURGE,
  /** The cleanup of the generation being deleted completed. */
  CLEANUP_DONE,
  /** The cleanup of the generation being deleted failed; it is retried. */
  CLEANUP_FAILED
}
