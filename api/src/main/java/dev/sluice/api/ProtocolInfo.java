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
  /**
   * DDL events arrive at their place inside their transaction: a transaction whose rows in the span
   * surround a DDL comes as DmlBatch parts split at it (see {@code DmlBatch} in events.proto). Without
   * it, every DDL of a transaction comes before the transaction's rows.
   */
  public static final String FEATURE_DDL_IN_TXN = "ddl-in-txn";
  /**
   * Snapshots of existing rows: SnapshotRequest on REGISTER and RESET, ROW_OP_READ rows in DmlBatches
   * carrying SnapshotProgress, and SnapshotDone (docs/EVENT-SERVICE.md "Snapshots"). A stream asking for a
   * snapshot needs {@link #FEATURE_FRAGMENTED_TXN} too: a chunk's rows come as the parts of one batch.
   */
  public static final String FEATURE_SNAPSHOT = "snapshot";
  /**
   * A snapshot chunk's READ rows of a PostgreSQL table with a key may come as {@code CopyRows}: the upstream's
   * COPY text lines, with the codec of each column, instead of RowChanges (docs/EVENT-SERVICE.md "READ rows as
   * COPY text"). A PostgreSQL target loads them as they are; any reader makes the same Values of them
   * ({@code dev.sluice.api.pgtext.CopyText}). Without it, every READ row is a RowChange.
   */
  public static final String FEATURE_COPY_TEXT = "copy-text";

  /** Every feature a v1 broker implements. */
  public static final Set<String> BROKER_FEATURES = Set.of(
      FEATURE_FRAGMENTED_TXN, FEATURE_RESOLVED_BATCH, FEATURE_SYNC_POINT,
      FEATURE_RESUME_CURSOR, FEATURE_CREDITS, FEATURE_EVENT_FILTER, FEATURE_DDL_IN_TXN, FEATURE_SNAPSHOT,
      FEATURE_COPY_TEXT);

  /**
   * Features a v1 broker applies on every stream whether the collector asked for them or not (its Welcome
   * lists them): a dispatcher is scanned only for reported credit, watermarks come only in ResolvedBatch.
   */
  public static final Set<String> BROKER_ALWAYS_IN_FORCE = Set.of(FEATURE_CREDITS, FEATURE_RESOLVED_BATCH);

  private ProtocolInfo() {}
}
