package dev.sluice.broker.control;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.v1.BrokerMessage;
import java.util.Set;

/**
 * The broker's end of one collector's Connect stream, as the control and data planes see it. It is
 * the single sequencing point of everything sent to the collector: control messages (acks, Ready,
 * Handshake) go out ahead of queued data, and data of an epoch older than the last handshake sent for
 * a dispatcher is dropped here, so no event of an old epoch ever follows a new handshake.
 *
 * <p><b>Threads.</b> Every method may be called from any thread; sends hop to the stream's context.
 *
 * <pre>{@code
 * link.sendControl(ackMessage);
 * link.sendHandshake(id, epoch, handshakeMessage);     // seq 1 of the new epoch
 * if (link.tryReserve(bytes)) { link.sendEvents(id, epoch, encodedBatch); }
 * link.sendResolved(id, epoch, ts, lastSeq);            // coalesced into ResolvedBatch
 * }</pre>
 */
public interface CollectorLink {

  /** Unique per stream for the broker's lifetime. */
  long id();

  /** The collector id from Hello. */
  String collectorId();

  /** Features in force on this stream. */
  Set<String> features();

  /** Who opened the stream: its table patterns bound what it may REGISTER and RESET. */
  dev.sluice.broker.security.Principal principal();

  /** Queues a control message ahead of all queued data. */
  void sendControl(BrokerMessage message);

  /**
   * Queues the handshake of {@code epoch} ahead of all queued data and makes {@code epoch} the only
   * epoch whose data this link still forwards for the dispatcher.
   */
  void sendHandshake(DispatcherId id, long epoch, BrokerMessage handshake);

  /**
   * Makes {@code epoch} the only epoch whose data this link forwards for the dispatcher, without a
   * handshake (a RESET that was rejected still cancels the old epoch).
   */
  void fence(DispatcherId id, long epoch);

  /** Forgets the dispatcher: its queued and future data and resolved events are dropped. */
  void forget(DispatcherId id);

  /**
   * Queues an encoded {@code BrokerMessage} carrying one EventBatch of the dispatcher. The bytes must
   * have been reserved with {@link #tryReserve}; they are released when written to the stream (or
   * dropped). Flushes the dispatcher's pending Resolved first, so watermarks keep their place.
   */
  void sendEvents(DispatcherId id, long epoch, byte[] encodedBrokerMessage);

  /** Records a watermark; sent coalesced in a ResolvedBatch within the flush interval. */
  void sendResolved(DispatcherId id, long epoch, long ts, long lastSeq);

  /** Reserves queue room for data; false when the link's queued-bytes quota would be exceeded. */
  boolean tryReserve(long bytes);

  /** Reserves room beyond the quota (a transaction larger than the scan budget); never fails. */
  void reserve(long bytes);

  /** Returns room reserved but not used. */
  void release(long bytes);

  /** The changefeed's shared byte credit on this stream. */
  ChangefeedCredit changefeedCredit(String changefeedId);

  boolean isClosed();
}
