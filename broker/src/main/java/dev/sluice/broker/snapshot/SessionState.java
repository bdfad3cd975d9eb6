package dev.sluice.broker.snapshot;

/**
 * Where one snapshot stands on the reader side.
 *
 * <pre>
 * QUEUED ──reader──► READING ──chunk handed over──► DELIVERING ──delivered / reread──► QUEUED
 *                        │ transient error                                      └─ last chunk delivered ─► COMPLETE
 *                        └──► BACKING_OFF ──timer──► QUEUED
 * any ──table gone──► TABLE_DROPPED    any ──refused──► FAILED    any ──cancel / epoch gone──► CANCELLED
 * </pre>
 */
public enum SessionState {
  /** Waiting for a reader (or for room in the memory budget). */
  QUEUED,
  /** A reader writes its watermarks and reads its next chunk. */
  READING,
  /** A chunk was handed to the stream; the next is read once it was delivered. */
  DELIVERING,
  /** The upstream could not be read; tried again after a backoff. */
  BACKING_OFF,
  /** Every row was read and delivered. */
  COMPLETE,
  /** The table was dropped while it was read. */
  TABLE_DROPPED,
  /** The upstream refused the read. */
  FAILED,
  /** Stopped: cancelled, its epoch ended, or the broker stopped. */
  CANCELLED;

  /** True for the states a session never leaves. */
  public boolean isFinal() {
    return this == COMPLETE || this == TABLE_DROPPED || this == FAILED || this == CANCELLED;
  }
}
