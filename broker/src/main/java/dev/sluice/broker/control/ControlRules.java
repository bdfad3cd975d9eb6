package dev.sluice.broker.control;

import dev.sluice.api.error.ErrorCode;

/**
 * PROTOCOL.md's request table as one pure function from (state of the id, kind of request) to a
 * decision. No I/O, no clock, no logging: {@link ControlPlaneVerticle} classifies the request,
 * asks here, and executes the effect.
 *
 * <pre>{@code
 * ControlDecision d = ControlRules.decide(EntryState.KNOWN, RequestKind.RESET_NOT_NEWER);  // STALE
 * }</pre>
 */
public final class ControlRules {

  private ControlRules() {}

  /** The decision for a request of {@code kind} on an id in {@code state}. Total: every pair decided. */
  public static ControlDecision decide(EntryState state, RequestKind kind) {
    return switch (state) {
      case UNKNOWN -> switch (kind) {
        case REGISTER_SAME, REGISTER_DIFFERENT -> ControlDecision.accept(ControlEffect.REGISTER);
        case REGISTER_POSITIVE_EPOCH -> ControlDecision.reject(ErrorCode.BAD_EPOCH);
        case RESET_NEWER, RESET_NOT_NEWER -> ControlDecision.notFound();
        case REMOVE_CURRENT_OR_NEWER, REMOVE_OLDER -> ControlDecision.notFound();
      };
      // a tombstone turns late requests of the removed epoch (or older) into STALE
      case TOMBSTONED -> switch (kind) {
        case REGISTER_SAME, REGISTER_DIFFERENT -> ControlDecision.stale();
        case REGISTER_POSITIVE_EPOCH -> ControlDecision.reject(ErrorCode.BAD_EPOCH);
        case RESET_NEWER -> ControlDecision.notFound();
        case RESET_NOT_NEWER -> ControlDecision.stale();
        case REMOVE_CURRENT_OR_NEWER, REMOVE_OLDER -> ControlDecision.notFound();
      };
      case KNOWN -> switch (kind) {
        case REGISTER_SAME -> ControlDecision.accept(ControlEffect.RESEND_READY);
        case REGISTER_DIFFERENT -> ControlDecision.reject(ErrorCode.ID_IN_USE);
        case REGISTER_POSITIVE_EPOCH -> ControlDecision.reject(ErrorCode.BAD_EPOCH);
        case RESET_NEWER -> ControlDecision.accept(ControlEffect.RESET_EPOCH);
        case RESET_NOT_NEWER -> ControlDecision.stale();
        case REMOVE_CURRENT_OR_NEWER -> ControlDecision.accept(ControlEffect.REMOVE);
        case REMOVE_OLDER -> ControlDecision.stale();
      };
      // the collector moved streams: a REGISTER there wins, a RESET must wait for that REGISTER
      case KNOWN_ELSEWHERE -> switch (kind) {
        case REGISTER_SAME, REGISTER_DIFFERENT -> ControlDecision.accept(ControlEffect.TAKE_OVER);
        case REGISTER_POSITIVE_EPOCH -> ControlDecision.reject(ErrorCode.BAD_EPOCH);
        case RESET_NEWER, RESET_NOT_NEWER -> ControlDecision.notFound();
        case REMOVE_CURRENT_OR_NEWER -> ControlDecision.accept(ControlEffect.REMOVE);
        case REMOVE_OLDER -> ControlDecision.stale();
      };
    };
  }
}
