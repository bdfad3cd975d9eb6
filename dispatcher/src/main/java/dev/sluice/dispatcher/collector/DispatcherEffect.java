package dev.sluice.dispatcher.collector;

/**
 * What the collector does after a transition. Effects are data: {@link DispatcherTransitions} only
 * names them, and the collector executes them in list order.
 */
enum DispatcherEffect {
  /** Send REGISTER at epoch 0 with start ts = the checkpoint. */
  SEND_REGISTER,
  /** Bump the local epoch first, then send RESET with start ts = the checkpoint and the resume cursor. */
  SEND_RESET,
  /** Send REMOVE for the current epoch. */
  SEND_REMOVE,
  /** Hand the accepted message's content (table info, events, resolved ts) to the delivery queue. */
  DELIVER,
  /** Schedule {@link DispatcherInput#PROCEED} at once (the next turn of the collector). */
  SCHEDULE_PROCEED,
  /** Schedule {@link DispatcherInput#PROCEED} after the retry backoff. */
  SCHEDULE_RETRY,
  /** Tell the listener, once, that the subscription failed for good. */
  NOTIFY_ERROR
}
