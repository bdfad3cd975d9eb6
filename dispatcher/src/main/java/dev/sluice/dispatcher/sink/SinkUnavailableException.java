package dev.sluice.dispatcher.sink;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.TransientException;

/**
 * The target could not be reached or dropped the connection; nothing of the failed call was kept.
 * Retry the same call after a backoff.
 *
 * <pre>{@code
 * catch (SinkUnavailableException e) { retryLater(); }
 * }</pre>
 */
public final class SinkUnavailableException extends TransientException {

  /** The target is unreachable; {@code message} names it (passwords masked), {@code cause} is the driver's. */
  public SinkUnavailableException(String message, Throwable cause) {
    super(ErrorCode.SINK_UNAVAILABLE, message, cause);
  }
}
