package dev.sluice.broker.capture;

/**
 * Receives the decoded messages of a pgoutput stream (protocol version 1) in stream order. Tuple
 * arguments are reused by the decoder: read them before returning.
 */
interface PgOutputHandler {

  /**
   * A transaction starts.
   *
   * @param finalLsn         LSN of its commit record: the transaction's commit ts
   * @param commitTimeMicros commit time, microseconds since 1970-01-01 UTC
   * @param xid              transaction id
   */
  void onBegin(long finalLsn, long commitTimeMicros, int xid);

  /**
   * The transaction ends.
   *
   * @param commitLsn        LSN of the commit record (equals Begin's final LSN)
   * @param endLsn           end of the commit record: where the stream resumes after this transaction
   * @param commitTimeMicros commit time, microseconds since 1970-01-01 UTC
   */
  void onCommit(long commitLsn, long endLsn, long commitTimeMicros);

  void onRelation(PgRelation relation);

  /** A non-built-in type used by a following Relation. */
  void onType(int oid, String namespace, String name);

  void onInsert(long relationOid, TupleData newTuple);

  /**
   * @param oldTuple  the old key ({@code oldKind == 'K'}) or whole old row ({@code 'O'}), or
   *                  {@code null} when the server sent none ({@code oldKind == 0})
   */
  void onUpdate(long relationOid, byte oldKind, TupleData oldTuple, TupleData newTuple);

  /** @param oldKind 'K' (key columns, others NULL) or 'O' (whole row, REPLICA IDENTITY FULL) */
  void onDelete(long relationOid, byte oldKind, TupleData oldTuple);

  void onTruncate(long[] relationOids, boolean cascade, boolean restartIdentity);

  /** A {@code pg_logical_emit_message}; transactional ones arrive between Begin and Commit. */
  void onMessage(boolean transactional, long lsn, String prefix, byte[] content);

  /** Replication origin of the transaction; capture ignores it. */
  default void onOrigin(long lsn, String name) {}
}
