package dev.sluice.broker.data;

import com.google.protobuf.CodedOutputStream;
import dev.sluice.api.DispatcherId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Writes {@code BrokerMessage{event_batch}} bytes directly from stored row bytes, so the hot path never
 * parses a stored {@code RowChange} or builds message objects, and copies each row once: the output is
 * byte-for-byte what protobuf-java would serialize for the same message (fields in number order,
 * defaults omitted), which the tests check by parsing it with the generated classes.
 */
final class WireEncoder {

  private static final int BROKER_MESSAGE_EVENT_BATCH = 5;
  private static final int EVENT_BATCH_DISPATCHER_ID = 1;
  private static final int EVENT_BATCH_EPOCH = 2;
  private static final int EVENT_BATCH_EVENTS = 3;
  private static final int DATA_EVENT_SEQ = 1;
  /**
   * Target size of one EventBatch message, and the largest fragment: under the 256 KiB default inbound
   * limit of common gRPC clients (Vert.x), with room for the envelope.
   */
  static final int EVENT_BATCH_BYTES = 192 * 1024;

  private WireEncoder() {}

  /** Serialized size of one {@code DataEvent} with this seq and payload: the unit credits count. */
  static int dataEventSize(long seq, PendingEvent e) {
    int payload = e.payloadSize();
    return CodedOutputStream.computeUInt64Size(DATA_EVENT_SEQ, seq)
        + CodedOutputStream.computeTagSize(e.field()) + CodedOutputStream.computeUInt32SizeNoTag(payload) + payload;
  }

  /**
   * A {@code BrokerMessage} carrying one {@code EventBatch} of {@code events.subList(from, to)}, numbered
   * from {@code firstSeq}.
   */
  static byte[] eventBatch(DispatcherId id, long epoch, List<PendingEvent> events, int from, int to, long firstSeq) {
    int idSize = (id.high() != 0 ? CodedOutputStream.computeFixed64Size(1, id.high()) : 0)
        + (id.low() != 0 ? CodedOutputStream.computeFixed64Size(2, id.low()) : 0);
    int batchSize = CodedOutputStream.computeTagSize(EVENT_BATCH_DISPATCHER_ID)
        + CodedOutputStream.computeUInt32SizeNoTag(idSize) + idSize;
    if (epoch != 0) {
      batchSize += CodedOutputStream.computeUInt64Size(EVENT_BATCH_EPOCH, epoch);
    }
    for (int i = from; i < to; i++) {
      int ev = dataEventSize(firstSeq + (i - from), events.get(i));
      batchSize += CodedOutputStream.computeTagSize(EVENT_BATCH_EVENTS) + CodedOutputStream.computeUInt32SizeNoTag(ev) + ev;
    }
    int total = CodedOutputStream.computeTagSize(BROKER_MESSAGE_EVENT_BATCH)
        + CodedOutputStream.computeUInt32SizeNoTag(batchSize) + batchSize;
    byte[] out = new byte[total];
    CodedOutputStream c = CodedOutputStream.newInstance(out);
    try {
      c.writeTag(BROKER_MESSAGE_EVENT_BATCH, 2);
      c.writeUInt32NoTag(batchSize);
      c.writeTag(EVENT_BATCH_DISPATCHER_ID, 2);
      c.writeUInt32NoTag(idSize);
      if (id.high() != 0) {
        c.writeFixed64(1, id.high());
      }
      if (id.low() != 0) {
        c.writeFixed64(2, id.low());
      }
      if (epoch != 0) {
        c.writeUInt64(EVENT_BATCH_EPOCH, epoch);
      }
      for (int i = from; i < to; i++) {
        long seq = firstSeq + (i - from);
        PendingEvent e = events.get(i);
        c.writeTag(EVENT_BATCH_EVENTS, 2);
        c.writeUInt32NoTag(dataEventSize(seq, e));
        c.writeUInt64(DATA_EVENT_SEQ, seq);
        c.writeTag(e.field(), 2);
        c.writeUInt32NoTag(e.payloadSize());
        e.writePayload(c);
      }
      c.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
