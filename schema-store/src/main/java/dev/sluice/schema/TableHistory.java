package dev.sluice.schema;

import java.util.Arrays;

/**
 * Everything the readers need to know about one table id, except the version bodies (those live in
 * RocksDB behind the cache): the sorted version positions with their names and cache keys, the positions
 * of the table's DDL events still in the log, and the drop.
 *
 * <p>A position is {@code (commit ts, row seq)}: one transaction may change a table several times, each
 * change at its own row seq, so versions and DDL events are sorted by commit ts, then row seq. Lookups "at
 * ts" see everything of the transactions at or below ts (the last version of a ts); lookups "before a
 * position" see the versions strictly before it (a resume cursor inside a transaction).
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
  private final long[] versionSeqs;
  private final TableVersion[] keys;
  private final TableName[] names;
  private final long[] ddlTs;
  private final long[] ddlSeqs;
  private final long dropTs;
  private final long dropSeq;
  private final TableName droppedName;

  private TableHistory(long tableId, long[] versions, long[] versionSeqs, TableVersion[] keys, TableName[] names,
      long[] ddlTs, long[] ddlSeqs, long dropTs, long dropSeq, TableName droppedName) {
    this.tableId = tableId;
    this.versions = versions;
    this.versionSeqs = versionSeqs;
    this.keys = keys;
    this.names = names;
    this.ddlTs = ddlTs;
    this.ddlSeqs = ddlSeqs;
    this.dropTs = dropTs;
    this.dropSeq = dropSeq;
    this.droppedName = droppedName;
  }

  /** A history with no versions and no DDL events yet; only for building. */
  static TableHistory empty(long tableId) {
    return new TableHistory(tableId, NO_TS, NO_TS, new TableVersion[0], new TableName[0], NO_TS, NO_TS, NOT_DROPPED,
        0, null);
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

  /** Position of the newest version with commit ts {@code <= ts} (the last one of that ts), or {@code -1}. */
  int floor(long ts) {
    return upperBound(versions, ts) - 1;
  }

  /** Position of the newest version strictly before {@code (ts, rowSeq)}, or {@code -1}. */
  int floorBefore(long ts, long rowSeq) {
    int i = upperBound(versions, ts) - 1;
    while (i >= 0 && versions[i] == ts && versionSeqs[i] >= rowSeq) {
      i--;
    }
    return i;
  }

  /** Whether the table existed and was not dropped at {@code ts}. */
  boolean isAliveAt(long ts) {
    return !isDroppedAt(ts) && floor(ts) >= 0;
  }

  /** Whether the table was dropped at or before {@code ts}. */
  boolean isDroppedAt(long ts) {
    return isDropped() && ts >= dropTs;
  }

  /** Whether the table was dropped strictly before {@code (ts, rowSeq)}. */
  boolean isDroppedBefore(long ts, long rowSeq) {
    return isDropped() && (dropTs < ts || (dropTs == ts && dropSeq < rowSeq));
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

  /**
   * Positions of this table's DDL events with commit ts in {@code (fromExclusive, toInclusive]}, ascending,
   * as {@code [ts0, rowSeq0, ts1, rowSeq1, ...]}.
   */
  long[] ddlPositionsBetween(long fromExclusive, long toInclusive) {
    int lo = upperBound(ddlTs, fromExclusive);
    int hi = upperBound(ddlTs, toInclusive);
    if (lo >= hi) {
      return NO_TS;
    }
    long[] out = new long[2 * (hi - lo)];
    for (int i = lo; i < hi; i++) {
      out[2 * (i - lo)] = ddlTs[i];
      out[2 * (i - lo) + 1] = ddlSeqs[i];
    }
    return out;
  }

  /** Whether any of this table's DDL events lies in {@code (fromExclusive, toInclusive]}; allocation-free. */
  boolean hasDdlBetween(long fromExclusive, long toInclusive) {
    return upperBound(ddlTs, fromExclusive) < upperBound(ddlTs, toInclusive);
  }

  /** Commit ts of the newest DDL event still in the log, or {@code -1}. */
  long lastDdlTs() {
    return ddlTs.length == 0 ? -1 : ddlTs[ddlTs.length - 1];
  }

  /** Whether the newest DDL event still in the log is at or after {@code (ts, rowSeq)}. */
  boolean hasDdlAtOrAfter(long ts, long rowSeq) {
    int n = ddlTs.length;
    return n > 0 && (ddlTs[n - 1] > ts || (ddlTs[n - 1] == ts && ddlSeqs[n - 1] >= rowSeq));
  }

  int ddlCount() {
    return ddlTs.length;
  }

  /** This history plus one version; its position must be above every kept version's. */
  TableHistory withVersion(TableInfo info) {
    int n = versions.length;
    long[] v = Arrays.copyOf(versions, n + 1);
    long[] vs = Arrays.copyOf(versionSeqs, n + 1);
    TableVersion[] k = Arrays.copyOf(keys, n + 1);
    TableName[] nm = Arrays.copyOf(names, n + 1);
    v[n] = info.version();
    vs[n] = info.versionRowSeq();
    k[n] = new TableVersion(tableId, info.version(), info.versionRowSeq());
    TableName name = TableName.of(info);
    nm[n] = n > 0 && nm[n - 1].equals(name) ? nm[n - 1] : name;   // share the instance while unchanged
    return new TableHistory(tableId, v, vs, k, nm, ddlTs, ddlSeqs, dropTs, dropSeq, droppedName);
  }

  /** This history plus one DDL event at {@code (commitTs, rowSeq)}, above every kept one. */
  TableHistory withDdl(long commitTs, long rowSeq) {
    long[] d = Arrays.copyOf(ddlTs, ddlTs.length + 1);
    long[] ds = Arrays.copyOf(ddlSeqs, ddlSeqs.length + 1);
    d[ddlTs.length] = commitTs;
    ds[ddlSeqs.length] = rowSeq;
    return new TableHistory(tableId, versions, versionSeqs, keys, names, d, ds, dropTs, dropSeq, droppedName);
  }

  TableHistory withDrop(long commitTs, long rowSeq, TableName name) {
    return new TableHistory(tableId, versions, versionSeqs, keys, names, ddlTs, ddlSeqs, commitTs, rowSeq, name);
  }

  /**
   * This history after GC at {@code gcTs}: only the newest version {@code <= gcTs} and the later ones,
   * only DDL events above {@code gcTs}; a table dropped at or before {@code gcTs} keeps nothing but its
   * drop. Returns {@code this} when nothing changes.
   */
  TableHistory collectedAt(long gcTs) {
    if (isDroppedAt(gcTs)) {
      return versions.length == 0 && ddlTs.length == 0 ? this : stripped();
    }
    int keepFrom = Math.max(floor(gcTs), 0);
    int ddlFrom = upperBound(ddlTs, gcTs);
    if (keepFrom == 0 && ddlFrom == 0) {
      return this;
    }
    return new TableHistory(tableId, Arrays.copyOfRange(versions, keepFrom, versions.length),
        Arrays.copyOfRange(versionSeqs, keepFrom, versionSeqs.length), Arrays.copyOfRange(keys, keepFrom, keys.length),
        Arrays.copyOfRange(names, keepFrom, names.length), Arrays.copyOfRange(ddlTs, ddlFrom, ddlTs.length),
        Arrays.copyOfRange(ddlSeqs, ddlFrom, ddlSeqs.length), dropTs, dropSeq, droppedName);
  }

  /** The versions {@link #collectedAt} removes, for deleting them from disk and the cache. */
  TableVersion[] versionsRemovedAt(long gcTs) {
    int keepFrom = isDroppedAt(gcTs) ? versions.length : Math.max(floor(gcTs), 0);
    return Arrays.copyOfRange(keys, 0, keepFrom);
  }

  private TableHistory stripped() {
    return new TableHistory(tableId, NO_TS, NO_TS, new TableVersion[0], new TableName[0], NO_TS, NO_TS, dropTs,
        dropSeq, droppedName);
  }

  /** First position whose value is above {@code ts} ({@code sorted} may repeat values). */
  private static int upperBound(long[] sorted, long ts) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] <= ts) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
