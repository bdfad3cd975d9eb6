package dev.sluice.broker.control;

/** What the control plane knows of a dispatcher id when a request for it arrives. */
public enum EntryState {
  /** Neither registered nor tombstoned. */
  UNKNOWN,
  /** Removed recently: a tombstone holds the epoch it was removed at. */
  TOMBSTONED,
  /** Registered (epoch 0) or streaming (epoch > 0). */
  KNOWN
}
