package dev.sluice.dispatcher.collector;

import static dev.sluice.dispatcher.collector.DispatcherEffect.DELIVER;
import static dev.sluice.dispatcher.collector.DispatcherEffect.NOTIFY_ERROR;
import static dev.sluice.dispatcher.collector.DispatcherEffect.SCHEDULE_PROCEED;
import static dev.sluice.dispatcher.collector.DispatcherEffect.SCHEDULE_RETRY;
import static dev.sluice.dispatcher.collector.DispatcherEffect.SEND_REGISTER;
import static dev.sluice.dispatcher.collector.DispatcherEffect.SEND_REMOVE;
import static dev.sluice.dispatcher.collector.DispatcherEffect.SEND_RESET;
import static dev.sluice.dispatcher.collector.DispatcherState.READY;
import static dev.sluice.dispatcher.collector.DispatcherState.REGISTERING;
import static dev.sluice.dispatcher.collector.DispatcherState.REMOVED;
import static dev.sluice.dispatcher.collector.DispatcherState.RESETTING;
import static dev.sluice.dispatcher.collector.DispatcherState.STREAMING;
import static dev.sluice.dispatcher.collector.Transition.ignore;
import static dev.sluice.dispatcher.collector.Transition.to;

/**
 * The dispatcher state machine of PROTOCOL.md as one total, pure function. No I/O, no clock, no
 * logging: the collector executes the effects and logs each transition.
 *
 * <p>Rules the table encodes:
 * <ul>
 *   <li>A new stream (welcomed, same or new incarnation) means the broker has no state for the
 *       dispatcher on it: every live state re-registers.</li>
 *   <li>An ack answers the outstanding request and its verdict wins over what the state believed:
 *       NOT_FOUND re-registers, a transient rejection backs off, a permanent one ends the dispatcher
 *       with an error, STALE on a RESET resets again with a higher epoch, STALE on a REGISTER means
 *       the id is tombstoned and ends the dispatcher with an error.</li>
 *   <li>Events while no epoch is live (REGISTERING, READY) are stale. In RESETTING anything but the
 *       handshake of the current epoch breaks the "handshake first" rule and resets again; in
 *       STREAMING a second handshake does the same.</li>
 *   <li>REMOVED absorbs everything.</li>
 * </ul>
 *
 * <pre>{@code
 * Transition t = DispatcherTransitions.apply(DispatcherState.RESETTING, DispatcherInput.HANDSHAKE);
 * // -> STREAMING [DELIVER]
 * }</pre>
 */
final class DispatcherTransitions {

  private DispatcherTransitions() {}

  /** The next state and effects for {@code input} in state {@code from}. */
  public static Transition apply(DispatcherState from, DispatcherInput input) {
    return switch (from) {
      case REGISTERING -> switch (input) {
        case CONNECTED, BROKER_RESTARTED, PROCEED -> to(REGISTERING, SEND_REGISTER);
        case DISCONNECTED, ACK_ACCEPTED, HEARTBEAT_REMOVED -> ignore(REGISTERING);
        case READY -> to(READY, SCHEDULE_PROCEED);
        case ACK_STALE, ACK_REJECTED -> to(REMOVED, NOTIFY_ERROR);
        case ACK_NOT_FOUND, ACK_RETRYABLE -> to(REGISTERING, SCHEDULE_RETRY);
        case HANDSHAKE, EVENTS, RESOLVED, STALE_EPOCH, SEQUENCE_VIOLATION -> ignore(REGISTERING);
        case CLOSE -> to(REMOVED, SEND_REMOVE);
        case LISTENER_FAILED -> to(REMOVED, SEND_REMOVE, NOTIFY_ERROR);
        case RESET_REQUESTED -> ignore(REGISTERING);
      };
      case READY -> switch (input) {
        case CONNECTED, BROKER_RESTARTED, ACK_NOT_FOUND, HEARTBEAT_REMOVED -> to(REGISTERING, SEND_REGISTER);
        case DISCONNECTED -> to(REGISTERING);
        case READY, ACK_ACCEPTED -> ignore(READY);
        case PROCEED -> to(RESETTING, SEND_RESET);
        case ACK_STALE, ACK_REJECTED -> to(REMOVED, NOTIFY_ERROR);
        case ACK_RETRYABLE -> to(REGISTERING, SCHEDULE_RETRY);
        case HANDSHAKE, EVENTS, RESOLVED, STALE_EPOCH, SEQUENCE_VIOLATION -> ignore(READY);
        case CLOSE -> to(REMOVED, SEND_REMOVE);
        case LISTENER_FAILED -> to(REMOVED, SEND_REMOVE, NOTIFY_ERROR);
        case RESET_REQUESTED -> ignore(READY);
      };
      case RESETTING -> switch (input) {
        case CONNECTED, BROKER_RESTARTED, ACK_NOT_FOUND, HEARTBEAT_REMOVED -> to(REGISTERING, SEND_REGISTER);
        case DISCONNECTED -> to(REGISTERING);
        case READY, PROCEED, ACK_ACCEPTED, STALE_EPOCH -> ignore(RESETTING);
        case ACK_STALE, EVENTS, RESOLVED, SEQUENCE_VIOLATION -> to(RESETTING, SEND_RESET);
        case ACK_REJECTED -> to(REMOVED, SEND_REMOVE, NOTIFY_ERROR);
        case ACK_RETRYABLE -> to(READY, SCHEDULE_RETRY);
        case HANDSHAKE -> to(STREAMING, DELIVER);
        case CLOSE -> to(REMOVED, SEND_REMOVE);
        case LISTENER_FAILED -> to(REMOVED, SEND_REMOVE, NOTIFY_ERROR);
        case RESET_REQUESTED -> ignore(RESETTING);
      };
      case STREAMING -> switch (input) {
        case CONNECTED, BROKER_RESTARTED, ACK_NOT_FOUND, HEARTBEAT_REMOVED -> to(REGISTERING, SEND_REGISTER);
        case DISCONNECTED -> to(REGISTERING);
        case READY, PROCEED, ACK_ACCEPTED, STALE_EPOCH -> ignore(STREAMING);
        case ACK_STALE, HANDSHAKE, SEQUENCE_VIOLATION -> to(RESETTING, SEND_RESET);
        case ACK_REJECTED -> to(REMOVED, SEND_REMOVE, NOTIFY_ERROR);
        case ACK_RETRYABLE -> to(READY, SCHEDULE_RETRY);
        case EVENTS, RESOLVED -> to(STREAMING, DELIVER);
        case CLOSE -> to(REMOVED, SEND_REMOVE);
        case LISTENER_FAILED -> to(REMOVED, SEND_REMOVE, NOTIFY_ERROR);
        case RESET_REQUESTED -> to(RESETTING, SEND_RESET);
      };
      case REMOVED -> switch (input) {
        case CONNECTED, BROKER_RESTARTED, DISCONNECTED, READY, PROCEED, ACK_ACCEPTED, ACK_STALE,
            ACK_NOT_FOUND, ACK_REJECTED, ACK_RETRYABLE, HANDSHAKE, EVENTS, RESOLVED, STALE_EPOCH,
            SEQUENCE_VIOLATION, HEARTBEAT_REMOVED, CLOSE, LISTENER_FAILED, RESET_REQUESTED -> ignore(REMOVED);
      };
    };
  }
}
