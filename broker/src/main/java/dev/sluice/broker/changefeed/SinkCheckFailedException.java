package dev.sluice.broker.changefeed;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.RequestRejectedException;

/**
 * The sink of a changefeed being created or updated does not work now (unreachable, refused
 * credentials, unknown database, a file that cannot be written): the request is refused with what
 * failed, redacted, instead of a changefeed that goes FAILED later. The admin API answers 400
 * {@code SINK_CHECK_FAILED}; {@code ?validate=false} skips the check.
 *
 * <pre>{@code
 * catch (SinkCheckFailedException e) { System.err.println(e.getMessage()); }   // ... Connection refused ...
 * }</pre>
 */
public final class SinkCheckFailedException extends RequestRejectedException {

  /** The code the admin API answers with. */
  public static final String CODE = "SINK_CHECK_FAILED";

  public SinkCheckFailedException(SinkUri sink, String problem, Throwable cause) {
    super(ErrorCode.INVALID_REQUEST, "sink_uri " + sink.redacted() + " does not work: " + problem + "; fix the sink"
        + " or the URI, or skip this check with ?validate=false (CLI: --no-validate): the changefeed then retries"
        + " until the sink works", cause);
  }
}
