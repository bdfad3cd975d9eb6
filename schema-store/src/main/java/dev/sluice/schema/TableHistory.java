package dev.sluice.schema;

import java.util.Arrays;

/**
 * Everything the readers need to know about one table id, except the version bodies (those live in
 * RocksDB behind the cache): the sorted version timestamps with their names and cache keys, the commit
 * ts of the table's DDL events still in the log, and the drop.
 *
 * <p>Immutable: the writer builds a new history for every change and publishes it by replacing the map
 * entry, so a reader always sees one consistent history. After GC has forgotten a dropped table, a
 * history with no versions stays behind as the drop tombstone.
 */
final class TableHistory {

  /** {@link #dropTs()} of a table that was not dropped. */
  static final long NOT_DROPPED = Long.MAX_VALUE;

  private static final long[] NO_TS = new long[0];

  private final long tableId;
  private final long[] versions;
  private final TableVersion[] keys;
  private final TableName[] names;
  private final long[] ddlTs;
  private final long dropTs;
  private final TableName droppedName;

  private TableHistory(long tableId, long[] versions, TableVersion[] keys, TableName[] names, long[] ddlTs,
      long dropTs, TableName droppedName) {
    this.tableId = tableId;
    this.versions = versions;
    this.keys = keys;
    this.names = names;
    this.ddlTs = ddlTs;
    this.dropTs = dropTs;
    this.droppedName = droppedName;
  }

  /** A history with no versions and no DDL events yet; only for building. */
  static TableHistory empty(long tableId) {
    return new TableHistory(tableId, NO_TS, new TableVersion[0], new TableName[0], NO_TS, NOT_DROPPED, null);
  }

  long tableId() {
    return tableId;
  }

  /** Commit ts of the DROP, or {@link #NOT_DROPPED}. */
  long dropTs() {
    return dropTs;
  }

  boolean isDropped() {
    return dropTs != NOT_DROPPED;
  }

  /** Name at the drop, for the error of a lookup at or after it; only when dropped. */
  TableName droppedName() {
    return droppedName;
  }

  int versionCount() {
    return versions.length;
  }

  /** Oldest kept version, or {@code -1} when none is kept. */
  long firstVersion() {
    return versions.length == 0 ? -1 : versions[0];
  }

  /** The name of the newest version; null when no version is kept. */
  TableName latestName() {
    return names.length == 0 ? null : names[names.length - 1];
  }

  /** Position of the newest version {@code <= ts}, or {@code -1}. */
  int floor(long ts) {
    int i = Arrays.binarySearch(versions, ts);
    return i >= 0 ? i : -i - 2;
  }

  /** Whether the table existed and was not dropped at {@code ts}. */
  boolean isAliveAt(long ts) {
    return !isDroppedAt(ts) && floor(ts) >= 0;
  }

  /** Whether the table was dropped at or before {@code ts}. */
  boolean isDroppedAt(long ts) {
    return isDropped() && ts >= dropTs;
  }

  TableVersion key(int position) {
    return keys[position];
  }

  TableName name(int position) {
    return names[position];
  }

  /** Whether any kept version has this name. */
  boolean everNamed(TableName name) {
    for (TableName n : names) {
      if (n.equals(name)) {
        return true;
      }
    }
    return false;
  }

  /** Commit ts of this table's DDL events in {@code (fromExclusive, toInclusive]}, ascending. */
  long[] ddlTsBetween(long fromExclusive, long toInclusive) {
    int lo = upperBound(ddlTs, fromExclusive);
    int hi = upperBound(ddlTs, toInclusive);
    return lo >= hi ? NO_TS : Arrays.copyOfRange(ddlTs, lo, hi);
  }

  /** Whether any of this table's DDL events lies in {@code (fromExclusive, toInclusive]}; allocation-free. */
  boolean hasDdlBetween(long fromExclusive, long toInclusive) {
    return upperBound(ddlTs, fromExclusive) < upperBound(ddlTs, toInclusive);
  }

  /** Commit ts of the newest DDL event still in the log, or {@code -1}. */
  long lastDdlTs() {
    return ddlTs.length == 0 ? -1 : ddlTs[ddlTs.length - 1];
  }

  int ddlCount() {
    return ddlTs.length;
  }

  /** This history plus one version; {@code info.version()} must be above every kept version. */
  TableHistory withVersion(TableInfo info) {
    int n = versions.length;
    long[] v = Arrays.copyOf(versions, n + 1);
    TableVersion[] k = Arrays.copyOf(keys, n + 1);
    TableName[] nm = Arrays.copyOf(names, n + 1);
    v[n] = info.version();
    k[n] = new TableVersion(tableId, info.version());
    TableName name = TableName.of(info);
    nm[n] = n > 0 && nm[n - 1].equals(name) ? nm[n - 1] : name;   // share the instance while unchanged
    return new TableHistory(tableId, v, k, nm, ddlTs, dropTs, droppedName);
  }

  /** This history plus one DDL event at {@code commitTs}, above every kept one. */
  TableHistory withDdl(long commitTs) {
    long[] d = Arrays.copyOf(ddlTs, ddlTs.length + 1);
    d[ddlTs.length] = commitTs;
    return new TableHistory(tableId, versions, keys, names, d, dropTs, droppedName);
  }

  TableHistory withDrop(long commitTs, TableName name) {
    return new TableHistory(tableId, versions, keys, names, ddlTs, commitTs, name);
  }

  /**
   * This history after GC at {@code gcTs}: only the newest version {@code <= gcTs} and the later ones,
   * only DDL events above {@code gcTs}; a table dropped at or before {@code gcTs} keeps nothing but its
   * drop. Returns {@code this} when nothing changes.
   */
  TableHistory collectedAt(long gcTs) {
    if (isDroppedAt(gcTs)) {
      return versions.length == 0 && ddlTs.length == 0 ? this : withDrop(dropTs, droppedName).stripped();
    }
    int keepFrom = Math.max(floor(gcTs), 0);
    int ddlFrom = upperBound(ddlTs, gcTs);
    if (keepFrom == 0 && ddlFrom == 0) {
      return this;
    }
    return new TableHistory(tableId, Arrays.copyOfRange(versions, keepFrom, versions.length),
        Arrays.copyOfRange(keys, keepFrom, keys.length), Arrays.copyOfRange(names, keepFrom, names.length),
        Arrays.copyOfRange(ddlTs, ddlFrom, ddlTs.length), dropTs, droppedName);
  }

  /** The versions {@link #collectedAt} removes, for deleting them from disk and the cache. */
  TableVersion[] versionsRemovedAt(long gcTs) {
    int keepFrom = isDroppedAt(gcTs) ? versions.length : Math.max(floor(gcTs), 0);
    return Arrays.copyOfRange(keys, 0, keepFrom);
  }

  private TableHistory stripped() {
    return new TableHistory(tableId, NO_TS, new TableVersion[0], new TableName[0], NO_TS, dropTs, droppedName);
  }

  /** First position whose value is above {@code ts}. */
  private static int upperBound(long[] sorted, long ts) {
    int i = Arrays.binarySearch(sorted, ts);
    return i >= 0 ? i + 1 : -i - 1;
  }
}
