package dev.sluice.api;

import java.util.Set;

/**
 * The protocol version and the named features a broker and a collector negotiate in Hello/Welcome.
 * A collector lists the features it cannot work without as required; a broker that lacks one
 * refuses the stream with {@code UNSUPPORTED_FEATURE} instead of silently downgrading.
 *
 * <pre>{@code
 * Hello hello = Hello.newBuilder()
 *     .setProtocolVersion(ProtocolInfo.VERSION)
 *     .addRequiredFeatures(ProtocolInfo.FEATURE_RESOLVED_BATCH)
 *     .build();
 * }</pre>
 */
public final class ProtocolInfo {

  /** The protocol version this code speaks. */
  public static final int VERSION = 1;

  /** Large transactions may arrive as several DmlBatch fragments. */
  public static final String FEATURE_FRAGMENTED_TXN = "fragmented-txn";
  /** Resolved watermarks arrive coalesced in ResolvedBatch. */
  public static final String FEATURE_RESOLVED_BATCH = "resolved-batch";
  /** SyncPoint events at a configured interval. */
  public static final String FEATURE_SYNC_POINT = "sync-point";
  /** RESET may carry a resume cursor inside a fragmented transaction. */
  public static final String FEATURE_RESUME_CURSOR = "resume-cursor";
  /** Byte credits through CreditReport. */
  public static final String FEATURE_CREDITS = "credits";
  /** EventFilter on DispatcherRequest. */
  public static final String FEATURE_EVENT_FILTER = "event-filter";

  /** Every feature a v1 broker implements. */
  public static final Set<String> BROKER_FEATURES = Set.of(
      FEATURE_FRAGMENTED_TXN, FEATURE_RESOLVED_BATCH, FEATURE_SYNC_POINT,
      FEATURE_RESUME_CURSOR, FEATURE_CREDITS, FEATURE_EVENT_FILTER);

  private ProtocolInfo() {}
}
