package dev.sluice.broker.control;

/**
 * A dispatcher request classified against the current state of its id: the rows of PROTOCOL.md's
 * request table. Epoch comparisons use the entry's epoch (KNOWN) or the tombstone's (TOMBSTONED).
 */
public enum RequestKind {
  /** REGISTER at epoch 0 whose span, start ts and options equal the registered ones (or no entry). */
  REGISTER_SAME,
  /** REGISTER at epoch 0 that differs from the registered one. */
  REGISTER_DIFFERENT,
  /** REGISTER with an epoch above 0: streams only start by RESET. */
  REGISTER_POSITIVE_EPOCH,
  /** RESET with an epoch above the current (or tombstoned) one. */
  RESET_NEWER,
  /** RESET with an epoch at or below the current (or tombstoned) one. */
  RESET_NOT_NEWER,
  /** REMOVE with an epoch at or above the current one. */
  REMOVE_CURRENT_OR_NEWER,
  /** REMOVE with an epoch below the current one. */
  REMOVE_OLDER
}
