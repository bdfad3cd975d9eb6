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
  private final int hash;
  /** The body while the cache holds this version (set after a cache get, cleared when the cache removes it). */
  private volatile TableInfo body;

  TableVersion(long tableId, long version) {
    this.tableId = tableId;
    this.version = version;
    this.hash = 31 * Long.hashCode(tableId) + Long.hashCode(version);
  }

  long tableId() {
    return tableId;
  }

  /** Commit ts of the DDL that produced the version. */
  long version() {
    return version;
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
    return o instanceof TableVersion && ((TableVersion) o).tableId == tableId && ((TableVersion) o).version == version;
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return "TableVersion[" + tableId + "@" + version + "]";
  }
}
