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

  /**
   * Why a request the rules answer without an effect got its ack (empty for one they accept): the words of
   * its own row, so a STALE REMOVE says its epoch is below the current one (REMOVE at the current epoch is
   * accepted), while a STALE RESET says its epoch is not above it.
   *
   * @param requestEpoch the request's epoch
   * @param currentEpoch the id's epoch: its registration's, or the removed epoch of its tombstone
   */
  public static String reason(EntryState state, RequestKind kind, long requestEpoch, long currentEpoch) {
    if (kind == RequestKind.REGISTER_POSITIVE_EPOCH) {
      return "REGISTER must carry epoch 0, got " + requestEpoch + "; streams start only by RESET with epoch > 0";
    }
    return switch (state) {
      case UNKNOWN -> switch (kind) {
        case RESET_NEWER, RESET_NOT_NEWER -> "no dispatcher with this id is registered; REGISTER it first";
        case REMOVE_CURRENT_OR_NEWER, REMOVE_OLDER -> "no dispatcher with this id is registered; nothing to remove";
        default -> "";
      };
      case TOMBSTONED -> switch (kind) {
        case REGISTER_SAME, REGISTER_DIFFERENT -> "this dispatcher id was removed at epoch " + currentEpoch
            + " a short while ago; use a new dispatcher id";
        case RESET_NEWER -> "no dispatcher with this id is registered (it was removed at epoch " + currentEpoch
            + "); REGISTER it first";
        case RESET_NOT_NEWER -> "epoch " + requestEpoch + " is not above epoch " + currentEpoch
            + ", at which this dispatcher was removed; use a new dispatcher id";
        case REMOVE_CURRENT_OR_NEWER, REMOVE_OLDER -> "this dispatcher was already removed at epoch " + currentEpoch;
        default -> "";
      };
      case KNOWN -> switch (kind) {
        case REGISTER_DIFFERENT -> "the dispatcher id is registered with another span, start ts or options;"
            + " remove it first or use a new id";
        case RESET_NOT_NEWER -> "epoch " + requestEpoch + " is not above the current epoch " + currentEpoch
            + "; a RESET must carry a higher epoch";
        case REMOVE_OLDER -> staleRemove(requestEpoch, currentEpoch);
        default -> "";
      };
      case KNOWN_ELSEWHERE -> switch (kind) {
        case RESET_NEWER, RESET_NOT_NEWER -> "the dispatcher is registered on another stream; REGISTER it on this"
            + " stream first";
        case REMOVE_OLDER -> staleRemove(requestEpoch, currentEpoch);
        default -> "";
      };
    };
  }

  private static String staleRemove(long requestEpoch, long currentEpoch) {
    return "epoch " + requestEpoch + " is below the current epoch " + currentEpoch
        + "; a REMOVE must carry the current epoch or a later one";
  }
}
