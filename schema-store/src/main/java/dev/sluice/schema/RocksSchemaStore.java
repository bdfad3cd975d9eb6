package dev.sluice.schema;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link SchemaStore} on its own RocksDB directory, with an in-memory index for the readers and a
 * Caffeine cache of version bodies.
 *
 * <pre>{@code
 * try (RocksSchemaStore store = RocksSchemaStore.open(SchemaStoreConfig.at(dir), registry)) {
 *   store.apply(new DdlEvent(1000, DdlType.CREATE_TABLE, "CREATE TABLE orders ...", ordersV1, "postgresql"));
 *   store.advanceResolvedTs(1500);
 *   TableInfo atHandshake = store.tableInfoAt(ordersV1.tableId(), 1200);
 * }
 * }</pre>
 *
 * <p><b>Layout.</b> RocksDB holds the truth ({@link SchemaDb}, {@link SchemaKeys}): every kept version
 * as {@code sluice.v1.TableInfo}, the DDL log as {@code sluice.v1.DdlEvent}, and the metadata. Memory
 * holds the {@link SchemaIndex} (per table the version ts, names, DDL ts and drop; no bodies), rebuilt
 * on open, and the {@link TableInfoCache} of bodies keyed by (table, version). A lookup is a map get, a
 * binary search and a cache get; only a cache miss reads RocksDB. {@code ddlEvents} answers an empty
 * range from the index alone and reads RocksDB only for the events it returns.
 *
 * <p><b>Threads.</b> One writer (the capture) calls {@link #apply}, {@link #advanceResolvedTs} and
 * {@link #gc}; they also synchronise on one lock, so a second writer is safe but gains nothing. Any
 * number of readers (control plane, data plane) call the other methods concurrently, without locks:
 * the index publishes immutable per-table histories through concurrent maps and the ts scalars are
 * volatile. The resolved ts is published after the DDLs below it, so {@code ddlEvents} (bounded by the
 * resolved ts) never misses an event it should return. Answers for a ts above the resolved ts are
 * provisional: a later {@code apply} at or below that ts may change them.
 *
 * <p><b>Durability.</b> {@code apply} writes one batch (its DDLs, versions or drop tombstones, last DDL ts) with
 * {@code sync} when {@link SchemaStoreConfig#syncWrites()}; once it returns the DDL survives a process
 * kill and an OS crash, and a torn batch is dropped whole by RocksDB's WAL recovery. GC is one synced
 * batch too. The resolved ts is written <em>unsynced</em>, deliberately: it advances with every
 * upstream commit, so an fsync each would dominate the capture; it reaches the OS at once (a process
 * kill loses nothing) and an OS crash can only make it go back, never ahead of the DDLs, because the
 * WAL is sequential and every later synced apply flushes it. After such a restart the capture
 * re-advances it from its own position; readers merely wait a little longer. {@link #close} flushes it.
 *
 * <p><b>GC.</b> {@link #gc} keeps the newest version at or below the GC point of each live table and
 * everything above it, deletes the DDL events at or below it (no valid query can return them), and
 * forgets tables dropped at or below it except a small drop tombstone, so {@code tableInfoAt} still
 * names the drop. The GC point is clamped to the resolved ts: history above it is not final. Queries
 * whose ts (or {@code fromExclusive}) is below the GC point fail with {@link BelowGcPointException}.
 */
public final class RocksSchemaStore implements SchemaStore {

  private static final Logger log = LoggerFactory.getLogger(RocksSchemaStore.class);

  private final SchemaDb db;
  private final SchemaIndex index;
  private final TableInfoCache cache;
  private final SchemaStoreMetrics metrics;
  private final Object writeLock = new Object();
  private volatile long lastDdlTs;
  private volatile long resolvedTs;
  private volatile long gcTs;
  private volatile boolean closed;

  private RocksSchemaStore(SchemaStoreConfig config, MeterRegistry registry, SchemaDb db, SchemaIndex index,
      SchemaDb.Meta meta) {
    this.db = db;
    this.index = index;
    this.lastDdlTs = meta.lastDdlTs();
    this.resolvedTs = meta.resolvedTs();
    this.gcTs = meta.gcTs();
    this.cache = new TableInfoCache(config.cacheMaxEntries(), db::readVersion);
    this.metrics = new SchemaStoreMetrics(registry, this, index, cache.caffeine());
  }

  /**
   * Opens the store in {@code config.dataDir()}, creating it when missing, and rebuilds the index.
   *
   * @throws SchemaStoreUnavailableException when RocksDB cannot open the directory (e.g. locked)
   * @throws SchemaStoreCorruptException     when the stored data cannot be read
   */
  public static RocksSchemaStore open(SchemaStoreConfig config, MeterRegistry registry) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(registry, "registry");
    long start = System.nanoTime();
    SchemaDb db = SchemaDb.open(config.dataDir(), config.syncWrites());
    try {
      SchemaIndex index = new SchemaIndex();
      db.restoreInto(index);
      RocksSchemaStore store = new RocksSchemaStore(config, registry, db, index, db.readMeta());
      log.atInfo().setMessage("schema store opened").addKeyValue("dataDir", db.dir())
          .addKeyValue("tables", index.tableCount()).addKeyValue("versions", index.versionCount())
          .addKeyValue("lastDdlTs", store.lastDdlTs).addKeyValue("resolvedTs", store.resolvedTs)
          .addKeyValue("gcTs", store.gcTs).addKeyValue("openMs", (System.nanoTime() - start) / 1_000_000).log();
      return store;
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
  }

  @Override
  public void apply(DdlEvent ddl) {
    apply(List.of(Objects.requireNonNull(ddl, "ddl")));
  }

  @Override
  public void apply(List<DdlEvent> ddls) {
    Objects.requireNonNull(ddls, "ddls");
    if (ddls.isEmpty()) {
      return;
    }
    synchronized (writeLock) {
      checkOpen();
      long floor = Math.max(lastDdlTs, Math.max(resolvedTs, gcTs));
      if (ddls.get(0).commitTs() <= floor) {
        throw new DdlOutOfOrderException(ddls.get(0).commitTs(), floor);
      }
      for (int i = 1; i < ddls.size(); i++) {
        DdlEvent d = ddls.get(i);
        if (d.isBefore(ddls.get(i - 1).commitTs(), ddls.get(i - 1).rowSeq())) {
          throw new DdlOutOfOrderException(d.commitTs(), d.rowSeq(), ddls.get(i - 1).commitTs(), ddls.get(i - 1).rowSeq());
        }
      }
      index.check(ddls);
      long start = System.nanoTime();
      db.writeDdls(ddls);
      ddls.forEach(index::apply);
      lastDdlTs = ddls.get(ddls.size() - 1).commitTs();
      metrics.onApplied(ddls.size(), System.nanoTime() - start);
    }
    for (DdlEvent ddl : ddls) {
      log.atDebug().setMessage("DDL applied").addKeyValue("tableId", ddl.tableId())
          .addKeyValue("commitTs", ddl.commitTs()).addKeyValue("ddlType", ddl.type()).log();
    }
  }

  @Override
  public long lastDdlTs() {
    return lastDdlTs;
  }

  @Override
  public void advanceResolvedTs(long ts) {
    synchronized (writeLock) {
      checkOpen();
      if (ts <= resolvedTs) {
        return;
      }
      db.writeResolvedTs(ts);
      resolvedTs = ts;
    }
  }

  @Override
  public long resolvedTs() {
    return resolvedTs;
  }

  @Override
  public TableInfo tableInfoAt(long tableId, long ts) {
    // the hot path: every handshake and scanned transaction; the rare outcomes are out of line
    if (closed || ts < gcTs) {
      throw rejected(ts);
    }
    TableHistory h = index.history(tableId);
    int i = h == null || h.isDroppedAt(ts) ? -1 : h.floor(ts);
    if (i < 0) {
      throw notThere(tableId, ts, h);
    }
    return load(h.key(i), ts);
  }

  @Override
  public TableInfo tableInfoBefore(long tableId, long ts, long rowSeq) {
    if (closed || ts < gcTs) {
      throw rejected(ts);
    }
    if (ts == gcTs && rowSeq != Long.MAX_VALUE) {
      throw rejected(ts - 1);   // a GC at ts kept only the last version of ts: what came before is gone
    }
    TableHistory h = index.history(tableId);
    int i = h == null || h.isDroppedBefore(ts, rowSeq) ? -1 : h.floorBefore(ts, rowSeq);
    if (i < 0) {
      throw notThere(tableId, ts, h);
    }
    return load(h.key(i), ts);
  }

  @Override
  public TableInfo tableByName(String schemaName, String tableName, long ts) {
    checkOpen();
    long at = ts == 0 ? Long.MAX_VALUE : ts;
    checkAboveGc(at);
    TableVersion key = index.byName(new TableName(schemaName, tableName), at);
    if (key == null) {
      throw new UnknownTableException(schemaName + "." + tableName, ts);
    }
    return load(key, at);
  }

  /**
   * {@inheritDoc} An unknown table has no events.
   *
   * @throws BelowGcPointException when {@code fromExclusive} is below the GC point: events in between
   *     are gone
   */
  @Override
  public List<DdlEvent> ddlEvents(long tableId, long fromExclusive, long toInclusive) {
    checkOpen();
    checkAboveGc(fromExclusive);
    long upTo = Math.min(toInclusive, resolvedTs);
    TableHistory h = index.history(tableId);
    if (h == null || !h.hasDdlBetween(fromExclusive, upTo)) {
      return List.of();
    }
    List<DdlEvent> events = db.readDdls(tableId, h.ddlPositionsBetween(fromExclusive, upTo));
    if (events.contains(null)) {
      checkAboveGc(fromExclusive);   // a GC ran meanwhile
      throw new SchemaStoreCorruptException(db.dir(), "the index lists DDL events of table " + tableId
          + " in (" + fromExclusive + ", " + upTo + "] that are not stored", null);
    }
    return Collections.unmodifiableList(events);
  }

  /**
   * {@inheritDoc}
   *
   * @throws BelowGcPointException when {@code fromExclusive} is below the GC point
   */
  @Override
  public List<DdlEvent> allDdlEvents(long fromExclusive, long toInclusive) {
    checkOpen();
    checkAboveGc(fromExclusive);
    long upTo = Math.min(toInclusive, resolvedTs);
    if (upTo <= fromExclusive) {
      return List.of();
    }
    List<DdlEvent> events = db.scanDdls(fromExclusive, upTo);
    checkAboveGc(fromExclusive);   // a GC racing with the scan may have cut its start
    return Collections.unmodifiableList(events);
  }

  /**
   * {@inheritDoc} Ordered by table id.
   *
   * @throws BelowGcPointException when {@code ts} is below the GC point
   */
  @Override
  public List<TableInfo> tablesAt(long ts) {
    checkOpen();
    checkAboveGc(ts);
    List<TableVersion> keys = index.aliveAt(ts);
    List<TableInfo> tables = new ArrayList<>(keys.size());
    for (TableVersion key : keys) {
      tables.add(load(key, ts));
    }
    return Collections.unmodifiableList(tables);
  }

  /** {@inheritDoc} The GC point becomes {@code min(ts, resolvedTs())}. */
  @Override
  public void gc(long ts) {
    synchronized (writeLock) {
      checkOpen();
      long target = Math.min(ts, resolvedTs);
      if (target <= gcTs) {
        return;
      }
      List<TableVersion> removed = index.removedAt(target);
      int tablesBefore = index.tableCount();
      gcTs = target;   // first: a reader racing with the delete then fails as below GC, not as corrupt
      db.writeGc(target, removed);
      index.collect(target);
      cache.invalidateAll(removed);
      log.atInfo().setMessage("schema store collected").addKeyValue("gcTs", target)
          .addKeyValue("versionsRemoved", removed.size()).addKeyValue("versionsKept", index.versionCount())
          .addKeyValue("tables", tablesBefore).log();
    }
  }

  @Override
  public long gcTs() {
    return gcTs;
  }

  @Override
  public void close() {
    synchronized (writeLock) {
      if (closed) {
        return;
      }
      closed = true;
    }
    metrics.close();
    db.close();
    log.atInfo().setMessage("schema store closed").addKeyValue("dataDir", db.dir())
        .addKeyValue("lastDdlTs", lastDdlTs).addKeyValue("resolvedTs", resolvedTs).log();
  }

  /** Why a lookup was refused before the index: the store is closed or the ts is below the GC point. */
  private RuntimeException rejected(long ts) {
    checkOpen();
    return new BelowGcPointException(ts, gcTs);
  }

  /** Why the table has no version at {@code ts}: never created, not yet created, or dropped. */
  private static RuntimeException notThere(long tableId, long ts, TableHistory h) {
    if (h != null && h.isDroppedAt(ts)) {
      return new TableDroppedException(tableId, h.droppedName().qualified(), ts, h.dropTs());
    }
    return new UnknownTableException(Long.toString(tableId), ts);
  }

  private TableInfo load(TableVersion key, long ts) {
    TableInfo info = cache.get(key);
    if (info == null) {
      checkAboveGc(ts);   // a GC removed it after the index lookup
      throw new SchemaStoreCorruptException(db.dir(), "table " + key.tableId() + " version " + key.version()
          + " is in the index but not stored", null);
    }
    return info;
  }

  private void checkAboveGc(long ts) {
    long gc = gcTs;
    if (ts < gc) {
      throw new BelowGcPointException(ts, gc);
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("schema store at " + db.dir() + " is closed");
    }
  }
}
