package dev.sluice.broker.capture;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.TransientException;

/** The upstream is unreachable or refused the session for now; capture retries with backoff. */
public final class UpstreamUnavailableException extends TransientException {

  UpstreamUnavailableException(String message, Throwable cause) {
    super(ErrorCode.UPSTREAM_UNAVAILABLE, message, cause);
  }
}
