package dev.sluice.broker.changefeed;

/**
 * Whether a create or update checks its new sink before anything is recorded
 * ({@link SinkConnector#check}); the admin API's {@code ?validate=false} is {@link #SKIP}.
 *
 * <pre>{@code
 * supervisor.create("orders", spec, false, SinkCheck.CHECK);   // 400 SINK_CHECK_FAILED if it cannot work
 * }</pre>
 */
public enum SinkCheck {
  /** Check the sink; refuse the request when it does not work. */
  CHECK,
  /** Record the changefeed as it is; a sink that does not work makes it FAILED and retried. */
  SKIP
}
