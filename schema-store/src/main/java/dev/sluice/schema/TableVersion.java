package dev.sluice.schema;

/**
 * Cache key of one stored table version. The index pre-allocates one per version so that a cache hit
 * allocates no key. A plain class with a precomputed hash rather than a record: a record's generated
 * {@code hashCode}/{@code equals} go through method handles, which the JIT does not always inline on
 * the cache's hot path.
 */
final class TableVersion {

  private final long tableId;
  private final long version;
  private final long rowSeq;
  private final int hash;
  /** The body while the cache holds this version (set after a cache get, cleared when the cache removes it). */
  private volatile TableInfo body;

  TableVersion(long tableId, long version, long rowSeq) {
    this.tableId = tableId;
    this.version = version;
    this.rowSeq = rowSeq;
    this.hash = 31 * (31 * Long.hashCode(tableId) + Long.hashCode(version)) + Long.hashCode(rowSeq);
  }

  long tableId() {
    return tableId;
  }

  /** A version at row seq 0 of its transaction. */
  TableVersion(long tableId, long version) {
    this(tableId, version, 0);
  }

  /** Commit ts of the DDL that produced the version. */
  long version() {
    return version;
  }

  /** Row seq of that DDL inside its transaction. */
  long rowSeq() {
    return rowSeq;
  }

  /** The cached body, or null when the cache does not hold this version. */
  TableInfo cachedBody() {
    return body;
  }

  void pin(TableInfo info) {
    body = info;
  }

  /** Clears the body; clearing a pin that was still valid costs only a cache get on the next hit. */
  void unpin() {
    body = null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TableVersion v && v.tableId == tableId && v.version == version && v.rowSeq == rowSeq;
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return "TableVersion[" + tableId + "@" + version + (rowSeq == 0 ? "" : "/" + rowSeq) + "]";
  }
}
