package dev.sluice.dispatcher;

import dev.sluice.api.error.ErrorCode;
import java.time.Instant;
import java.util.Objects;

/**
 * A subscription entered {@code state} at {@code at}, for {@code reason}. For {@link SubscriptionState#RETRYING}
 * the reason is the trouble being retried ("cannot connect to broker 127.0.0.1:8300: connection refused",
 * "START_TS_AHEAD: start ts 900 is above this broker's resolved ts 800; retry shortly ..."), with its
 * {@code code} when the broker gave one.
 *
 * <pre>{@code
 * public void onStateChange(StateChange change) {
 *   log.info("subscription {}: {} ({})", change.state(), change.reason(), change.code());
 * }
 * }</pre>
 *
 * @param state  the state entered
 * @param reason why, as a sentence; never null
 * @param code   the broker's error code behind a RETRYING or FAILED state, or null
 * @param at     when the state was entered
 */
public record StateChange(SubscriptionState state, String reason, ErrorCode code, Instant at) {

  /** Checks that state, reason and time are given. */
  public StateChange {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(at, "at");
  }

  @Override
  public String toString() {
    return state + (code != null ? " [" + code + "]" : "") + ": " + reason;
  }
}
