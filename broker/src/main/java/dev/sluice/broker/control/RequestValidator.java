package dev.sluice.broker.control;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.ProtocolInfo;
import dev.sluice.api.TableSpan;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.RequestRejectedException;
import dev.sluice.api.v1.DispatcherRequest;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.SnapshotRequest;
import dev.sluice.api.v1.Value;
import dev.sluice.broker.snapshot.SnapshotPosition;
import dev.sluice.schema.TableInfo;
import java.util.EnumSet;
import java.util.Set;

/**
 * Turns the fields of a {@link DispatcherRequest} into checked values, rejecting anything malformed
 * or unknown with a code and a sentence a person can act on. Pure: no state, no I/O.
 */
final class RequestValidator {

  /** Option keys a v1 broker understands; any other key is refused, never ignored. */
  static final Set<String> KNOWN_OPTIONS = Set.of();

  static final int MAX_CHANGEFEED_ID_LENGTH = 128;
  static final int MAX_SYNC_POINT_INTERVAL_S = 86_400;

  private RequestValidator() {}

  /** The checked registration a REGISTER asks for. */
  static DispatcherRegistration registration(DispatcherRequest r, Set<String> features) {
    DispatcherId id = DispatcherId.fromProto(r.getDispatcherId());
    String changefeed = r.getChangefeedId();
    if (changefeed.length() > MAX_CHANGEFEED_ID_LENGTH) {
      throw reject(ErrorCode.INVALID_REQUEST, "changefeed_id is " + changefeed.length()
          + " characters; at most " + MAX_CHANGEFEED_ID_LENGTH + " are allowed");
    }
    TableSpan span = span(r);
    for (String key : r.getOptionsMap().keySet()) {
      if (!KNOWN_OPTIONS.contains(key)) {
        throw reject(ErrorCode.UNKNOWN_FIELD, "unknown option '" + key + "'; this broker knows "
            + (KNOWN_OPTIONS.isEmpty() ? "no options" : KNOWN_OPTIONS.toString()));
      }
    }
    Set<RowOp> ignored = EnumSet.noneOf(RowOp.class);
    if (r.hasFilter()) {
      for (RowOp op : r.getFilter().getIgnoreOpsList()) {
        if (op == RowOp.ROW_OP_UNSPECIFIED || op == RowOp.UNRECOGNIZED) {
          throw reject(ErrorCode.INVALID_REQUEST, "filter.ignore_ops holds an unknown operation " + op);
        }
        if (op == RowOp.ROW_OP_READ) {
          throw reject(ErrorCode.INVALID_REQUEST, "filter.ignore_ops holds ROW_OP_READ: READ rows come only from a"
              + " snapshot; leave out SnapshotRequest instead of filtering them");
        }
        ignored.add(op);
      }
      if (!ignored.isEmpty()) {
        requireFeature(features, ProtocolInfo.FEATURE_EVENT_FILTER, "filter.ignore_ops");
      }
    }
    int interval = r.hasSyncPoint() ? r.getSyncPoint().getIntervalS() : 0;
    long firstTs = r.hasSyncPoint() ? r.getSyncPoint().getFirstTs() : 0;
    if (interval < 0 || interval > MAX_SYNC_POINT_INTERVAL_S) {
      throw reject(ErrorCode.INVALID_REQUEST, "sync_point.interval_s must be in [0, "
          + MAX_SYNC_POINT_INTERVAL_S + "], got " + Integer.toUnsignedString(interval));
    }
    if (interval > 0) {
      requireFeature(features, ProtocolInfo.FEATURE_SYNC_POINT, "sync_point");
    }
    if (r.hasResumeCursor()) {
      throw reject(ErrorCode.INVALID_REQUEST, "resume_cursor is only valid on RESET");
    }
    return new DispatcherRegistration(id, changefeed, span, r.getStartTs(), ignored, interval, firstTs,
        features.contains(ProtocolInfo.FEATURE_FRAGMENTED_TXN), features.contains(ProtocolInfo.FEATURE_DDL_IN_TXN),
        features.contains(ProtocolInfo.FEATURE_COPY_TEXT));
  }

  /** Checks the span a request carries (REGISTER must carry one; RESET/REMOVE may omit it). */
  static TableSpan span(DispatcherRequest r) {
    if (!r.hasSpan()) {
      throw reject(ErrorCode.INVALID_SPAN, "span is missing; a REGISTER must name its table span");
    }
    try {
      return TableSpan.fromProto(r.getSpan());
    } catch (IllegalArgumentException e) {
      throw reject(ErrorCode.INVALID_SPAN, "invalid span: " + e.getMessage());
    }
  }

  /** Checks that a RESET's optional span matches the registered one. */
  static void resetMatches(DispatcherRequest r, DispatcherRegistration reg) {
    if (r.hasSpan() && !span(r).equals(reg.span())) {
      throw reject(ErrorCode.INVALID_REQUEST, "RESET span " + span(r) + " differs from the registered span "
          + reg.span() + "; register a new dispatcher id for another span");
    }
  }

  /** The resume cursor of a RESET, or null; checked against the start ts. */
  static dev.sluice.broker.store.ScanCursor cursor(DispatcherRequest r, Set<String> features) {
    if (!r.hasResumeCursor()) {
      return null;
    }
    requireFeature(features, ProtocolInfo.FEATURE_RESUME_CURSOR, "resume_cursor");
    long commitTs = r.getResumeCursor().getCommitTs();
    long next = r.getResumeCursor().getNextRowSeq();
    if (commitTs <= r.getStartTs() || next < 0) {
      throw reject(ErrorCode.INVALID_REQUEST, "resume_cursor (" + commitTs + ", " + next
          + ") must point after start_ts " + r.getStartTs());
    }
    return new dev.sluice.broker.store.ScanCursor(commitTs, next);
  }

  /**
   * The snapshot position a REGISTER or RESET asks for, checked against the table it reads; null when the
   * request asks for none.
   *
   * @param available whether this broker can read its upstream for snapshots
   */
  static SnapshotPosition snapshot(DispatcherRequest r, Set<String> features, TableInfo table, boolean available) {
    if (!r.hasSnapshot()) {
      return null;
    }
    requireFeature(features, ProtocolInfo.FEATURE_SNAPSHOT, "snapshot");
    if (!features.contains(ProtocolInfo.FEATURE_FRAGMENTED_TXN)) {
      throw reject(ErrorCode.UNSUPPORTED_FEATURE, "snapshot needs the feature '" + ProtocolInfo.FEATURE_FRAGMENTED_TXN
          + "' too (a chunk's rows come as the parts of one DmlBatch), which this stream did not negotiate in Hello");
    }
    if (!available) {
      throw reject(ErrorCode.UNSUPPORTED_FEATURE, "this broker cannot read its upstream for snapshots (it serves"
          + " a store without a capture of its own); register the snapshot with a broker that captures the upstream");
    }
    SnapshotRequest s = r.getSnapshot();
    String name = table.qualifiedName();
    if (table.primaryKey().isEmpty()) {
      if (s.getAfterKeyCount() > 0) {
        throw reject(ErrorCode.INVALID_REQUEST, "snapshot.after_key is given, but " + name + " has no key: it is"
            + " read by heap block, resume it with snapshot.next_block");
      }
      return new SnapshotPosition(java.util.List.of(), s.getNextBlock());
    }
    if (s.getNextBlock() != 0) {
      throw reject(ErrorCode.INVALID_REQUEST, "snapshot.next_block is for tables without a key; " + name
          + " has the key " + table.primaryKey() + ": resume it with snapshot.after_key");
    }
    if (s.getAfterKeyCount() != 0 && s.getAfterKeyCount() != table.primaryKey().size()) {
      throw reject(ErrorCode.INVALID_REQUEST, "snapshot.after_key has " + s.getAfterKeyCount() + " values; the key of "
          + name + " has " + table.primaryKey().size() + " columns " + table.primaryKey());
    }
    for (int i = 0; i < s.getAfterKeyCount(); i++) {
      Value v = s.getAfterKey(i);
      if (v.getKindCase() == Value.KindCase.KIND_NOT_SET || v.hasNullValue() || v.hasUnavailable()) {
        throw reject(ErrorCode.INVALID_REQUEST, "snapshot.after_key[" + i + "] (" + table.primaryKey().get(i) + " of "
            + name + ") is " + v.getKindCase() + "; a key value is never null or unavailable");
      }
    }
    return SnapshotPosition.fromProto(s);
  }

  private static void requireFeature(Set<String> features, String feature, String field) {
    if (!features.contains(feature)) {
      throw reject(ErrorCode.UNSUPPORTED_FEATURE, field + " needs the feature '" + feature
          + "', which this stream did not negotiate in Hello");
    }
  }

  static RequestRejectedException reject(ErrorCode code, String reason) {
    return new RequestRejectedException(code, reason);
  }
}
