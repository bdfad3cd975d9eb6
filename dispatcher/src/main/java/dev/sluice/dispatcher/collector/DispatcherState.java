package dev.sluice.dispatcher.collector;

/**
 * Where a dispatcher stands in its life with the broker (PROTOCOL.md, "Dispatcher (collector)
 * rules"). The normal path is {@code REGISTERING → READY → RESETTING → STREAMING}; any receiver-rule
 * violation goes back to {@code RESETTING}, a lost stream or an unknown id back to
 * {@code REGISTERING}, and {@code REMOVED} is the end. Transitions live in
 * {@link DispatcherTransitions} only.
 *
 * <pre>{@code
 * if (handle.state() == DispatcherState.STREAMING) { ... }
 * }</pre>
 */
enum DispatcherState {
  /** Sends REGISTER (epoch 0) once a stream is up and waits for the broker's Ready. */
  REGISTERING,
  /** Registered and Ready; sends the RESET that starts an epoch when it is due (at once, or after a backoff). */
  READY,
  /** A RESET of a new epoch is in flight; waits for its Handshake and drops every event of older epochs. */
  RESETTING,
  /** Accepts the current epoch's events in seq order and hands them to the listener. */
  STREAMING,
  /** Closed by the user or failed for good; absorbs every input. */
  REMOVED
}
