package dev.sluice.dispatcher.collector;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.v1.DataEvent;
import dev.sluice.api.v1.DispatcherCredit;
import dev.sluice.api.v1.DispatcherHeartbeat;
import dev.sluice.api.v1.DmlBatch;
import dev.sluice.api.v1.EventBatch;
import dev.sluice.api.v1.Handshake;
import dev.sluice.api.v1.Resolved;
import dev.sluice.api.v1.ResumeCursor;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.SnapshotOutcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving end of one dispatcher's epochs: the local epoch, where the current epoch stands (seq, commit
 * ts, an open transaction), and what was queued for the listener. It checks a handshake, event batch or resolved
 * ts of the live epoch against PROTOCOL.md's receiver rules ({@link ReceiverRules} for the data events), applies
 * what passed, and reports the epoch's position in heartbeats and credits. {@link DispatcherSession} decides
 * whether an epoch is live, and when a new one starts.
 *
 * <pre>{@code
 * Checkpoint from = receiver.startEpoch();                           // epoch + 1, before the RESET is sent
 * String violation = receiver.eventsViolation(batch, false, true);   // null: the batch follows the rules
 * if (violation == null) { receiver.applyEvents(batch); }            // queues what the listener has not seen
 * }</pre>
 *
 * <p>Invariants: the local epoch only grows, and is bumped before a RESET is sent; {@code lastSeq} is the seq of
 * the last accepted event of the current epoch (1 after the handshake); an offending batch is discarded whole (it
 * is checked in full before any of it is applied); nothing at or before the position already queued for the
 * listener is queued again (defensive dedup after a reset or failover, rows of a half-delivered transaction
 * included).
 *
 * <p>Concurrency: every method runs on the collector's context, except {@link #epoch()}, {@link #resolvedTs()},
 * {@link #eventsReceived()} and {@link #bytesReceived()}, which read volatiles.
 */
final class EpochReceiver {

  // the session's logger name: README's logging table and `sluice tail` name it
  private static final Logger LOG = LoggerFactory.getLogger(DispatcherSession.class);

  private final DispatcherId id;
  private final String changefeedId;
  private final DeliveryQueue queue;
  private final TxnAssembler assembler;
  private final WantedSnapshot wantedSnapshot;
  private final CollectorMetrics metrics;

  private volatile long epoch;
  private long lastSeq;
  private long epochStartTs;
  private volatile long epochHighTs;
  private long resumeCommitTs;
  private long lastEventTs;
  private long lastDmlTs;
  private int nextFragmentIndex;
  private TableInfo tableInfo = TableInfo.getDefaultInstance();
  private Checkpoint queuedPosition;
  /** Place of the last DDL queued for the listener: (ts, row seq); the start ts covers all of its ts. */
  private long lastDdlQueuedTs;
  private long lastDdlQueuedRowSeq = Long.MAX_VALUE;
  private volatile long resolvedTs;
  private long lastResolvedQueued;
  private long receivedBytesEpoch;
  private volatile long eventsReceived;
  private volatile long bytesReceived;

  /**
   * At epoch 0, with nothing queued after {@code start}.
   *
   * @param wantedSnapshot moved on by the snapshot chunks it queues, and ended by SnapshotDone
   */
  EpochReceiver(DispatcherId id, String changefeedId, Checkpoint start, DeliveryQueue queue, long maxTransactionBytes,
      WantedSnapshot wantedSnapshot, CollectorMetrics metrics) {
    this.id = id;
    this.changefeedId = changefeedId;
    this.queue = queue;
    this.assembler = new TxnAssembler(maxTransactionBytes);
    this.wantedSnapshot = wantedSnapshot;
    this.metrics = metrics;
    this.queuedPosition = start;
    this.lastDdlQueuedTs = start.ts();
    this.lastResolvedQueued = start.ts();
  }

  /** Starts over at {@code start} ("from now" was resolved, before the first REGISTER): nothing before it is queued. */
  void restartAt(Checkpoint start) {
    queuedPosition = start;
    lastDdlQueuedTs = start.ts();
    lastResolvedQueued = start.ts();
    queue.restartAt(start);
  }

  long epoch() {
    return epoch;
  }

  long resolvedTs() {
    return resolvedTs;
  }

  long eventsReceived() {
    return eventsReceived;
  }

  long bytesReceived() {
    return bytesReceived;
  }

  /** How far the listener's queue reaches: nothing at or before it is queued again. */
  Checkpoint queuedPosition() {
    return queuedPosition;
  }

  // ---- epochs --------------------------------------------------------------------------------

  /** A REGISTER is being sent: the epoch's seq starts over and a half-assembled transaction is dropped. */
  void abandonEpoch() {
    lastSeq = 0;
    assembler.clear();
  }

  /**
   * Bumps the epoch for a RESET about to be sent and starts it at the listener's acknowledged checkpoint.
   *
   * @return the checkpoint the new epoch starts from (its start ts and resume cursor)
   */
  Checkpoint startEpoch() {
    epoch = Math.addExact(epoch, 1);          // bump first: anything of the old epoch is stale from now on
    lastSeq = 0;
    assembler.clear();
    receivedBytesEpoch = 0;
    Checkpoint from = queue.acknowledged();
    epochStartTs = from.ts();
    epochHighTs = from.ts();
    lastEventTs = from.ts();
    lastDmlTs = from.ts();
    resumeCommitTs = from.hasCursor() ? from.cursorCommitTs() : 0;
    return from;
  }

  /** Whether a message of {@code messageEpoch} belongs to an older epoch than the local one. */
  boolean isStale(long messageEpoch) {
    return messageEpoch < epoch;
  }

  // ---- receiver rules (for a message of the live epoch or a later one) -----------------------

  /**
   * The rule the handshake {@code h} breaks, or null when it starts the epoch.
   *
   * @param streaming whether the epoch already streams (its handshake came)
   */
  String handshakeViolation(Handshake h, boolean streaming) {
    if (h.getEpoch() > epoch) {
      return "future_epoch";
    } else if (streaming) {
      return "repeated_handshake";
    } else if (h.getSeq() != 1) {
      return "handshake_seq";
    } else if (!h.hasTableInfo()) {
      return "handshake_without_table_info";
    } else if (h.getStartTs() != epochStartTs) {
      return "handshake_start_ts";
    }
    return null;
  }

  /**
   * The rule {@code batch} breaks first, or null when all of it can be applied.
   *
   * @param resetting whether the epoch still waits for its handshake
   * @param ddlInTxn  whether the stream negotiated ddl-in-txn
   */
  String eventsViolation(EventBatch batch, boolean resetting, boolean ddlInTxn) {
    return batch.getEpoch() > epoch ? "future_epoch"
        : resetting ? "missing_handshake"
        : ReceiverRules.firstViolation(batch, lastSeq, assembler.openCommitTs(), nextFragmentIndex, lastEventTs,
            lastDmlTs, resumeCommitTs, ddlInTxn, tableInfo.getColumnsCount());
  }

  /**
   * The rule the resolved ts {@code r} breaks, or null when it can be applied.
   *
   * @param resetting whether the epoch still waits for its handshake
   */
  String resolvedViolation(Resolved r, boolean resetting) {
    return r.getEpoch() > epoch ? "future_epoch"
        : resetting ? "missing_handshake"
        : r.getLastSeq() != lastSeq ? "wrong_last_seq"
        : assembler.openCommitTs() >= 0 ? "resolved_inside_transaction" : null;
  }

  // ---- applying what passed ------------------------------------------------------------------

  /** Applies a valid handshake: the epoch streams from seq 1 with its table info. */
  void applyHandshake(Handshake h) {
    lastSeq = 1;
    tableInfo = h.getTableInfo();
  }

  /** Applies a valid resolved ts: queued for the listener unless it is not past the last one queued. */
  void applyResolved(Resolved r) {
    long ts = r.getTs();
    epochHighTs = Math.max(epochHighTs, ts);
    resolvedTs = Math.max(resolvedTs, ts);
    if (ts > lastResolvedQueued) {
      lastResolvedQueued = ts;
      queuedPosition = queuedPosition.max(Checkpoint.at(ts));
      queue.offer(new Delivery.Resolved(ts));
    }
  }

  /** Applies a validated batch: updates the epoch position and queues what the listener has not seen. */
  void applyEvents(EventBatch batch) {
    for (DataEvent e : batch.getEventsList()) {
      int bytes = e.getSerializedSize();
      receivedBytesEpoch += bytes;
      bytesReceived += bytes;
      eventsReceived++;
      metrics.received(changefeedId, bytes);
      lastSeq = e.getSeq();
      switch (e.getPayloadCase()) {
        case DML -> {
          DmlBatch d = e.getDml();
          lastEventTs = d.getCommitTs();
          epochHighTs = Math.max(epochHighTs, d.getCommitTs());
          if (d.getLastFragment()) {
            lastDmlTs = d.getCommitTs();
          } else {
            nextFragmentIndex = d.getFragmentIndex() + 1;
          }
          for (TxnAssembler.Part part : assembler.add(d, tableInfo, queuedPosition)) {
            queuedPosition = queuedPosition.max(part.transaction().checkpoint());
            queue.offer(Delivery.transaction(part.transaction(), part.bytes()));
            if (part.transaction().snapshot() != null) {
              wantedSnapshot.chunkQueued(part.transaction().snapshot());   // a later epoch continues after it
            }
          }
        }
        case DDL -> {
          var ddl = e.getDdl();
          lastEventTs = ddl.getCommitTs();
          epochHighTs = Math.max(epochHighTs, ddl.getCommitTs());
          if (assembler.openCommitTs() == ddl.getCommitTs()) {
            // inside its transaction: the rows before it go first, as their own part
            for (TxnAssembler.Part part : assembler.partBeforeDdl()) {
              queuedPosition = queuedPosition.max(part.transaction().checkpoint());
              queue.offer(Delivery.transaction(part.transaction(), part.bytes()));
            }
          }
          TableInfo before = tableInfo;
          tableInfo = ddl.getTableInfoAfter();
          DdlChange change = new DdlChange(ddl.getCommitTs(), ddl.getDdlType(), ddl.getQuery(), ddl.getDialect(),
              before, ddl.getTableInfoAfter(), ddl.getRowSeq(), ddl.getVolatileDefaultColumnsList());
          boolean later = ddl.getCommitTs() > lastDdlQueuedTs
              || (ddl.getCommitTs() == lastDdlQueuedTs && ddl.getRowSeq() > lastDdlQueuedRowSeq);
          if (later && !queuedPosition.covers(ddl.getCommitTs(), ddl.getRowSeq())) {
            lastDdlQueuedTs = ddl.getCommitTs();
            lastDdlQueuedRowSeq = ddl.getRowSeq();
            queuedPosition = queuedPosition.max(change.position());
            queue.offer(Delivery.ddl(change, bytes));
          }
        }
        case SYNC_POINT -> {
          long ts = e.getSyncPoint().getTs();
          lastEventTs = ts;
          epochHighTs = Math.max(epochHighTs, ts);
          if (ts > queuedPosition.ts()) {
            queue.offer(Delivery.syncPoint(ts));
          }
        }
        case SNAPSHOT_DONE -> {
          SnapshotOutcome outcome = SnapshotOutcome.fromProto(e.getSnapshotDone());
          if (wantedSnapshot.end()) {   // ended: no later epoch asks for it again
            queue.offer(Delivery.snapshotDone(outcome, queuedPosition));
          }
          LOG.atInfo().addKeyValue("dispatcherId", id).addKeyValue("changefeedId", changefeedId)
              .addKeyValue("status", outcome.status()).addKeyValue("rows", outcome.rowsRead())
              .addKeyValue("chunks", outcome.chunks()).log("snapshot ended: " + outcome.reason());
        }
        case PAYLOAD_NOT_SET -> { }
      }
    }
  }

  // ---- reports -------------------------------------------------------------------------------

  /** This dispatcher's heartbeat; the checkpoint is clamped to what the current epoch delivered. */
  DispatcherHeartbeat heartbeat() {
    Checkpoint acked = queue.acknowledged();
    Checkpoint reported = acked.ts() > epochHighTs ? Checkpoint.at(epochHighTs) : acked;
    DispatcherHeartbeat.Builder b = DispatcherHeartbeat.newBuilder().setDispatcherId(id.toProto())
        .setEpoch(epoch).setCheckpointTs(reported.ts());
    if (reported.hasCursor()) {
      b.setCursor(ResumeCursor.newBuilder().setCommitTs(reported.cursorCommitTs()).setNextRowSeq(reported.nextRowSeq()));
    }
    return b.build();
  }

  DispatcherCredit credit() {
    return DispatcherCredit.newBuilder().setDispatcherId(id.toProto()).setEpoch(epoch)
        .setAvailableBytes(queue.freeBytes(assembler.bufferedBytes())).setReceivedBytes(receivedBytesEpoch).build();
  }

  /** Bytes held for the listener (queued plus a half-assembled transaction). */
  long heldBytes() {
    return queue.queuedBytes() + assembler.bufferedBytes();
  }
}
