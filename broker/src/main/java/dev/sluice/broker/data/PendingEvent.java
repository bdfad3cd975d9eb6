package dev.sluice.broker.data;

/**
 * One data event of a scan before it gets its seq: the payload of a {@code DataEvent} already in wire
 * form, so numbering and batching never re-encode it.
 *
 * @param field    the DataEvent field number of the payload: 2 (dml), 3 (ddl) or 4 (sync_point)
 * @param payload  the encoded DmlBatch / DdlEvent / SyncPoint
 * @param commitTs the commit ts the event belongs to
 */
record PendingEvent(int field, byte[] payload, long commitTs) {

  static final int DML = 2;
  static final int DDL = 3;
  static final int SYNC_POINT = 4;
}
