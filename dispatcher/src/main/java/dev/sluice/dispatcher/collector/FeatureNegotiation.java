package dev.sluice.dispatcher.collector;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.ProtocolInfo;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.v1.Hello;
import dev.sluice.api.v1.Welcome;
import dev.sluice.dispatcher.BrokerRefusedException;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionRejectedException;
import java.util.List;
import java.util.Set;

/**
 * What the collector asks for in Hello and accepts in Welcome: protocol version 1, the features it
 * cannot work without (credits, resolved batches) and those it uses when offered. A subscription that
 * needs an optional feature the broker lacks is refused, never silently downgraded. Copy-text is only ever
 * a wish: no subscription needs it (a snapshot's READ rows come as RowChanges without it, and a line-backed
 * {@link dev.sluice.dispatcher.RowImage} reads like a typed one), so an older broker is used as it is.
 */
final class FeatureNegotiation {

  static final List<String> REQUIRED = List.of(ProtocolInfo.FEATURE_CREDITS, ProtocolInfo.FEATURE_RESOLVED_BATCH);
  static final List<String> OPTIONAL = List.of(ProtocolInfo.FEATURE_FRAGMENTED_TXN,
      ProtocolInfo.FEATURE_RESUME_CURSOR, ProtocolInfo.FEATURE_SYNC_POINT, ProtocolInfo.FEATURE_EVENT_FILTER,
      ProtocolInfo.FEATURE_DDL_IN_TXN, ProtocolInfo.FEATURE_SNAPSHOT, ProtocolInfo.FEATURE_COPY_TEXT);

  private FeatureNegotiation() {}

  static Hello hello(String collectorId) {
    return Hello.newBuilder().setCollectorId(collectorId).setProtocolVersion(ProtocolInfo.VERSION)
        .addAllRequiredFeatures(REQUIRED).addAllOptionalFeatures(OPTIONAL).build();
  }

  /** Null when {@code w} is acceptable, else why the broker at {@code broker} cannot be used. */
  static BrokerRefusedException refusal(Welcome w, String broker) {
    if (w.getProtocolVersion() != ProtocolInfo.VERSION) {
      return new BrokerRefusedException(ErrorCode.UNSUPPORTED_FEATURE, broker,
          "protocol version " + w.getProtocolVersion() + ", this client speaks " + ProtocolInfo.VERSION);
    }
    if (!w.getFeaturesList().containsAll(REQUIRED)) {
      return new BrokerRefusedException(ErrorCode.UNSUPPORTED_FEATURE, broker,
          "Welcome lacks required features " + REQUIRED + " (granted " + w.getFeaturesList() + ")");
    }
    return null;
  }

  /** Null when the broker offers what {@code sub} needs, else the rejection for its listener. */
  static SubscriptionRejectedException missingFor(DispatcherId id, Subscription sub, Set<String> granted,
      String brokerId) {
    String needed = !sub.ignoredOps().isEmpty() && !granted.contains(ProtocolInfo.FEATURE_EVENT_FILTER)
        ? ProtocolInfo.FEATURE_EVENT_FILTER
        : sub.syncPointInterval() != null && !granted.contains(ProtocolInfo.FEATURE_SYNC_POINT)
        ? ProtocolInfo.FEATURE_SYNC_POINT
        : sub.snapshot() != null && !granted.contains(ProtocolInfo.FEATURE_SNAPSHOT) ? ProtocolInfo.FEATURE_SNAPSHOT
        : sub.snapshot() != null && !granted.contains(ProtocolInfo.FEATURE_FRAGMENTED_TXN)
        ? ProtocolInfo.FEATURE_FRAGMENTED_TXN : null;
    return needed == null ? null : new SubscriptionRejectedException(ErrorCode.UNSUPPORTED_FEATURE, id,
        sub.target(), sub.startTs(), "the broker " + brokerId + " does not offer the feature \"" + needed
        + "\" this subscription needs");
  }
}
