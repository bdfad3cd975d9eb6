package dev.sluice.broker.capture;

/** Where capture is in its life. */
public enum CaptureState {
  /** Connecting, checking the upstream and preparing the slot for the first time. */
  STARTING,
  /** Reading the replication stream. */
  STREAMING,
  /** The upstream failed transiently (unreachable, slot busy); waiting for the next attempt. */
  RETRYING,
  /** Stopped on an error an operator must fix (see the status's last error); no retry. */
  FAILED,
  /** Closed. */
  STOPPED
}
