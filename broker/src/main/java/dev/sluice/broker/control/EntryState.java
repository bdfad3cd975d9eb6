package dev.sluice.broker.control;

/** What the control plane knows of a dispatcher id when a request for it arrives. */
public enum EntryState {
  /** Neither registered nor tombstoned. */
  UNKNOWN,
  /** Removed recently: a tombstone holds the epoch it was removed at. */
  TOMBSTONED,
  /** Registered (epoch 0) or streaming (epoch > 0) on the stream the request came from. */
  KNOWN,
  /**
   * Registered on another stream: the collector reconnected (possibly before the broker noticed the
   * old stream was gone) and now speaks for the dispatcher on this one.
   */
  KNOWN_ELSEWHERE
}
