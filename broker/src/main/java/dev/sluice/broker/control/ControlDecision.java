package dev.sluice.broker.control;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.v1.AckStatus;
import java.util.Optional;

/**
 * The outcome the rules give for one request before any I/O: the ack it gets unless an effect fails
 * (an effect that fails turns the ack into REJECTED with the effect's error code).
 *
 * @param status the ack status
 * @param code   the rejection code when status is REJECTED, else empty
 * @param effect what to execute, empty when nothing changes
 */
public record ControlDecision(AckStatus status, Optional<ErrorCode> code, Optional<ControlEffect> effect) {

  static ControlDecision accept(ControlEffect effect) {
    return new ControlDecision(AckStatus.ACK_STATUS_ACCEPTED, Optional.empty(), Optional.of(effect));
  }

  static ControlDecision reject(ErrorCode code) {
    return new ControlDecision(AckStatus.ACK_STATUS_REJECTED, Optional.of(code), Optional.empty());
  }

  static ControlDecision stale() {
    return new ControlDecision(AckStatus.ACK_STATUS_STALE, Optional.empty(), Optional.empty());
  }

  static ControlDecision notFound() {
    return new ControlDecision(AckStatus.ACK_STATUS_NOT_FOUND, Optional.empty(), Optional.empty());
  }

  @Override
  public String toString() {
    return status.name().substring("ACK_STATUS_".length()) + code.map(c -> "(" + c + ")").orElse("")
        + effect.map(e -> " -> " + e).orElse("");
  }
}
