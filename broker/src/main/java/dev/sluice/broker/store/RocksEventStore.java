package dev.sluice.broker.store;

import dev.sluice.api.TableSpan;
import dev.sluice.api.error.FatalException;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link EventStore} on RocksDB.
 *
 * <p><b>Layout</b> (see {@link EventKey}). Column family {@code rows}: key {@code table_id | commit_ts |
 * row_seq | key_hash} (8+8+8+4 bytes, big-endian), value the {@code sluice.v1.RowChange} bytes exactly
 * as the capture gave them. The key hash sits in the key, after the unique {@code (commit_ts,
 * row_seq)}, so a span scan filters on the key alone and never reads or parses a value it skips.
 * {@code meta}: the source position, resolved ts, GC ts, a layout version and, per table, the newest
 * commit ts stored. {@code time_marks}: commit ts to upstream commit time.
 *
 * <p><b>Writes.</b> A {@link StoreBatch} is serialized on the Java heap in RocksDB's write-batch layout
 * and handed over in one JNI call; at write time the store appends the position, the resolved ts (only
 * when it advances) and the per-table newest commit ts (only when it grows) to the same atomic batch.
 * Group commit is the caller's: many transactions in one batch written with {@code sync}, one fsync
 * for all of them. A synced write of a batch with nothing in it syncs the write-ahead log, which makes
 * earlier unsynced writes durable too.
 *
 * <p><b>Visibility.</b> The store does not hide rows above the resolved ts: a scan returns every stored
 * row in {@code (from, to]}, including fragments of a transaction not yet committed when
 * {@code to > resolvedTs()}. Readers keep {@code to <= resolvedTs()}, as {@link EventStore} requires.
 * {@link #lastCommitTs} is updated before the resolved ts is published, so a reader that sees a new
 * resolved ts also sees the newest commit ts of every table written below it. It is kept in memory,
 * persisted in {@code meta} with each batch and survives GC (so it may name rows already deleted).
 *
 * <p><b>GC.</b> {@link #gc(long)} deletes, in one synced batch, the range below ts of every table that
 * may still have rows there, and the time marks below ts, and persists the GC ts. The new GC ts is
 * published before the delete and a scan checks it after opening its iterator (whose implicit snapshot
 * predates any later delete), so a scan either sees all rows it needs or is rejected. A GC ts above
 * the resolved ts is accepted (callers pass the minimum checkpoint, which never is); rows written
 * below the GC ts afterwards stay unreadable and go with the next GC. Then, outside the write lock,
 * it drops the SST files that held only deleted rows, so their disk space comes back at once.
 *
 * <p><b>Concurrency.</b> One writer thread calls {@link #write} and {@link #newBatch}; {@link #gc} may
 * come from another thread (both take one lock). Any number of reader threads call the read methods
 * concurrently; each {@link RowScan} belongs to one thread. {@link #close()} waits up to 10 s for open
 * scans to close and otherwise leaves the native handles open rather than crash a reader.
 *
 * <pre>{@code
 * try (RocksEventStore store = RocksEventStore.open(EventStoreConfig.defaults(dir), registry)) {
 *   StoreBatch b = store.newBatch();
 *   b.putRow(16384, commitTs, 0, keyHash, rowChangeBytes);
 *   b.setPosition(new SourcePosition(commitTs, endLsn));
 *   b.setResolvedTs(commitTs);
 *   store.write(b, true);
 *   try (RowScan scan = store.scan(TableSpan.wholeTable(16384), 0, store.resolvedTs(), null)) {
 *     while (scan.next()) { handle(scan.rowChange()); }
 *   }
 * }
 * }</pre>
 */
public final class RocksEventStore implements EventStore {

  private static final Logger log = LoggerFactory.getLogger(RocksEventStore.class);
  private static final long CLOSE_WAIT_MS = 10_000;

  private final Path dataDir;
  private final StoreDb db;
  /** Held while open when the WAL has a directory of its own; null otherwise. */
  private final WalDirLock walLock;
  private final int rowsCfId;
  private final int metaCfId;
  private final int timeMarksCfId;
  private final StoreMetrics metrics;
  private final ReentrantLock writeLock = new ReentrantLock();
  private final Map<Long, Long> tableMaxTs;
  private final List<ResolvedListener> listeners = new CopyOnWriteArrayList<>();
  private final AtomicInteger openScans = new AtomicInteger();
  private final Object scansClosed = new Object();

  private volatile long resolvedTs;
  private volatile long gcTs;
  private volatile long floorTs;
  private volatile SourcePosition position;
  private volatile boolean closed;
  /** The GC ts known to be persisted; touched under the write lock. */
  private long persistedGcTs;

  private RocksEventStore(Path dataDir, StoreDb db, StoredMeta meta, MeterRegistry registry, WalDirLock walLock) {
    this.dataDir = dataDir;
    this.db = db;
    this.walLock = walLock;
    this.rowsCfId = db.rows().getID();
    this.metaCfId = db.meta().getID();
    this.timeMarksCfId = db.timeMarks().getID();
    this.tableMaxTs = new ConcurrentHashMap<>(meta.tableMaxTs());
    this.resolvedTs = meta.resolvedTs();
    this.gcTs = meta.gcTs();
    this.persistedGcTs = meta.gcTs();
    this.floorTs = meta.floorTs();
    this.position = meta.position();
    this.metrics = new StoreMetrics(registry, this);
  }

  /**
   * Opens (or creates) the store in {@code config.dataDir()} (its WAL in {@code config.walDir()} when set)
   * and loads its metadata.
   *
   * @throws StoreUnavailableException when RocksDB cannot open the directory
   * @throws WalDirChangedException when WAL files with writes lie in a directory other than the WAL's
   * @throws FatalException with {@code STORE_CORRUPT} when the directory holds another layout version
   */
  public static RocksEventStore open(EventStoreConfig config, MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    Path dir = config.dataDir();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new StoreUnavailableException(dir, "create its directory", e);
    }
    WalDirLock walLock = null;
    if (config.walDir() != null) {
      try {
        Files.createDirectories(config.walDir());
      } catch (IOException e) {
        throw new StoreUnavailableException(dir, "create its WAL directory " + config.walDir(), e);
      }
      walLock = WalDirLock.acquire(config.walDir(), dir);
    }
    StoreDb db;
    try {
      WalDirCheck.require(config);
      db = StoreDb.open(config);
    } catch (IOException e) {
      closeQuietly(walLock);
      throw new StoreUnavailableException(dir, "look for WAL files outside " + config.effectiveWalDir(), e);
    } catch (RocksDBException e) {
      closeQuietly(walLock);
      throw new StoreUnavailableException(dir, "open RocksDB", e);
    } catch (RuntimeException e) {
      closeQuietly(walLock);
      throw e;
    }
    try {
      StoredMeta meta = StoredMeta.load(db, dir);
      RocksEventStore store = new RocksEventStore(dir, db, meta, registry, walLock);
      log.atInfo().addKeyValue("dataDir", dir).addKeyValue("walDir", config.effectiveWalDir())
          .addKeyValue("resolvedTs", meta.resolvedTs())
          .addKeyValue("gcTs", meta.gcTs()).addKeyValue("position", meta.position())
          .addKeyValue("tables", meta.tableMaxTs().size())
          .addKeyValue("rowsCompression", config.rowsCompression()).log("event store opened");
      return store;
    } catch (RuntimeException e) {
      db.close();
      closeQuietly(walLock);
      throw e;
    }
  }

  private static void closeQuietly(WalDirLock lock) {
    if (lock != null) {
      lock.close();
    }
  }

  @Override
  public StoreBatch newBatch() {
    return new RocksStoreBatch(this, rowsCfId, timeMarksCfId);
  }

  @Override
  public void write(StoreBatch batch, boolean sync) {
    RocksStoreBatch b = own(batch);
    writeLock.lock();
    try {
      ensureOpen();
      long advancedTo = b.resolvedTs() > resolvedTs ? b.resolvedTs() : 0;
      writeImage(b, sync, advancedTo);
      // publish the tables' newest rows before the resolved ts that makes them visible
      b.forEachTableMaxTs((table, max) -> tableMaxTs.merge(table, max, Math::max));
      if (b.position() != null) {
        position = b.position();
      }
      if (b.floorTs() > 0) {
        floorTs = b.floorTs();
      }
      if (advancedTo > 0) {
        resolvedTs = advancedTo;
        notifyResolved(advancedTo);
      }
    } finally {
      writeLock.unlock();
    }
  }

  @Override
  public void sync() {
    acquireScan();   // keeps RocksDB open; writes go on meanwhile (RocksDB syncs its WAL beside them)
    try {
      long start = System.nanoTime();
      db.rocks().syncWal();
      metrics.recordWrite(true, System.nanoTime() - start, 0, 0);
    } catch (RocksDBException e) {
      throw new StoreUnavailableException(dataDir, "sync the write-ahead log", e);
    } finally {
      releaseScan(0);
    }
  }

  private void writeImage(RocksStoreBatch b, boolean sync, long advancedTo) {
    WriteBatchImage image = b.image();
    long mark = image.mark();
    try {
      if (b.position() != null) {
        image.put(metaCfId, EventKey.POSITION, EventKey.position(b.position()));
      }
      if (advancedTo > 0) {
        image.put(metaCfId, EventKey.RESOLVED_TS, EventKey.ts(advancedTo));
      }
      if (b.floorTs() > 0) {
        image.put(metaCfId, EventKey.FLOOR_TS, EventKey.ts(b.floorTs()));
      }
      b.forEachTableMaxTs((table, max) -> {
        if (max > tableMaxTs.getOrDefault(table, 0L)) {
          image.put(metaCfId, EventKey.tableMax(table), EventKey.ts(max));
        }
      });
      long start = System.nanoTime();
      if (image.count() > 0) {
        try (WriteBatch wb = new WriteBatch(image.toByteArray())) {
          db.rocks().write(db.writeOptions(sync), wb);
        }
      } else if (sync) {
        db.rocks().syncWal();
      }
      metrics.recordWrite(sync, System.nanoTime() - start, b.rowCount(), b.rowBytes());
    } catch (RocksDBException e) {
      throw new StoreUnavailableException(dataDir, "write a batch of " + b.rowCount() + " rows"
          + (sync ? " with sync" : ""), e);
    } finally {
      image.rollback(mark);
    }
  }

  @Override
  public long resolvedTs() {
    return resolvedTs;
  }

  @Override
  public long gcTs() {
    return gcTs;
  }

  @Override
  public long floorTs() {
    return floorTs;
  }

  @Override
  public Optional<SourcePosition> position() {
    return Optional.ofNullable(position);
  }

  @Override
  public long lastCommitTs(long tableId) {
    return tableMaxTs.getOrDefault(tableId, 0L);
  }

  @Override
  public RowScan scan(TableSpan span, long fromExclusive, long toInclusive, ScanCursor cursor) {
    Objects.requireNonNull(span, "span");
    if (fromExclusive < 0) {
      throw new IllegalArgumentException("scan needs fromExclusive >= 0, got " + fromExclusive);
    }
    acquireScan();
    Slice upperBound = null;
    ReadOptions readOptions = null;
    RocksIterator iterator = null;
    try {
      long tableId = span.tableId();
      byte[] bound = rowUpperBound(tableId, toInclusive);
      readOptions = new ReadOptions();
      if (bound != null) {
        upperBound = new Slice(bound);
        readOptions.setIterateUpperBound(upperBound);
      }
      iterator = db.rocks().newIterator(db.rows(), readOptions);
      long gc = gcTs; // read after the iterator exists: see the GC paragraph of the class Javadoc
      if (fromExclusive < gc - 1) {
        throw new StartTsBelowGcException(span, fromExclusive, gc);
      }
      boolean empty = toInclusive <= fromExclusive;
      if (!empty) {
        iterator.seek(EventKey.rowSeek(tableId, fromExclusive + 1, 0));
      }
      return new RocksRowScan(dataDir, iterator, readOptions, upperBound, span, toInclusive, cursor, empty,
          this::releaseScan);
    } catch (RuntimeException e) {
      closeQuietly(iterator, readOptions, upperBound);
      releaseScan(0);
      throw e;
    }
  }

  @Override
  public List<TimeMark> timeMarks(long fromExclusive, long toInclusive) {
    return timeMarks(fromExclusive, toInclusive, Integer.MAX_VALUE);
  }

  @Override
  public List<TimeMark> timeMarks(long fromExclusive, long toInclusive, int limit) {
    List<TimeMark> marks = new ArrayList<>();
    if (toInclusive <= fromExclusive) {
      return marks;
    }
    acquireScan();
    try (RocksIterator it = db.rocks().newIterator(db.timeMarks())) {
      for (it.seek(EventKey.ts(Math.max(0, fromExclusive) + 1)); it.isValid(); it.next()) {
        long ts = EventKey.readLong(it.key(), 0);
        if (ts > toInclusive || marks.size() >= limit) {
          break;
        }
        marks.add(new TimeMark(ts, EventKey.readLong(it.value(), 0)));
      }
      it.status();
      return marks;
    } catch (RocksDBException e) {
      throw new StoreUnavailableException(dataDir, "read time marks in (" + fromExclusive + ", " + toInclusive
          + "]", e);
    } finally {
      releaseScan(0);
    }
  }

  @Override
  public Optional<TimeMark> timeMarkAtOrBefore(long ts) {
    if (ts < 0) {
      return Optional.empty();
    }
    acquireScan();
    try (RocksIterator it = db.rocks().newIterator(db.timeMarks())) {
      it.seekForPrev(EventKey.ts(ts));
      if (!it.isValid()) {
        it.status();
        return Optional.empty();
      }
      return Optional.of(new TimeMark(EventKey.readLong(it.key(), 0), EventKey.readLong(it.value(), 0)));
    } catch (RocksDBException e) {
      throw new StoreUnavailableException(dataDir, "read the time mark at or before " + ts, e);
    } finally {
      releaseScan(0);
    }
  }

  @Override
  public void addResolvedListener(ResolvedListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  @Override
  public void gc(long ts) {
    List<byte[]> ranges = new ArrayList<>();   // begin, end pairs of the deleted row ranges
    writeLock.lock();
    try {
      ensureOpen();
      if (ts <= persistedGcTs) {
        return;
      }
      if (ts > gcTs) {
        gcTs = ts; // publish before deleting: see the GC paragraph of the class Javadoc
      }
      try (WriteBatch wb = new WriteBatch()) {
        for (Map.Entry<Long, Long> table : tableMaxTs.entrySet()) {
          // a table whose newest row is below the last GC point has no rows left to delete
          if (table.getValue() >= persistedGcTs) {
            byte[] begin = EventKey.table(table.getKey());
            byte[] end = EventKey.rowTs(table.getKey(), ts);
            wb.deleteRange(db.rows(), begin, end);
            ranges.add(begin);
            ranges.add(end);
          }
        }
        wb.deleteRange(db.timeMarks(), EventKey.ts(0), EventKey.ts(ts));
        wb.put(db.meta(), EventKey.GC_TS, EventKey.ts(ts));
        db.rocks().write(db.syncWrite(), wb);
      } catch (RocksDBException e) {
        throw new StoreUnavailableException(dataDir, "delete rows below ts " + ts, e);
      }
      persistedGcTs = ts;
    } finally {
      writeLock.unlock();
    }
    long reclaimed = dropFilesIn(ranges);   // outside the lock: the capture writer need not wait for the MANIFEST
    log.atInfo().addKeyValue("dataDir", dataDir).addKeyValue("gcTs", ts).addKeyValue("tables", ranges.size() / 2)
        .addKeyValue("reclaimedBytes", reclaimed).log("event store garbage-collected rows below the GC ts");
  }

  /**
   * Drops the SST files that hold only rows of the deleted ranges, so their disk space comes back now
   * rather than when a compaction reaches them (a range tombstone alone frees nothing). Files that
   * straddle a range's end, and level-0 files, wait for compaction. Open scans keep the files they read.
   * Returns the drop in live SST bytes, an estimate when flushes or compactions run meanwhile.
   */
  private long dropFilesIn(List<byte[]> ranges) {
    if (ranges.isEmpty() || !tryAcquireScan()) {   // holding a scan slot keeps RocksDB open
      return 0;
    }
    try {
      long before = db.rowsProperty("rocksdb.live-sst-files-size");
      db.rocks().deleteFilesInRanges(db.rows(), ranges, false);
      long reclaimed = Math.max(0, before - db.rowsProperty("rocksdb.live-sst-files-size"));
      metrics.recordGcReclaimed(reclaimed);
      return reclaimed;
    } catch (RocksDBException e) {
      // the rows are deleted already; compaction reclaims their space later
      log.atWarn().addKeyValue("dataDir", dataDir).setCause(e).log("could not drop SST files of the GC'd ranges");
      return 0;
    } finally {
      releaseScan(0);
    }
  }

  /** A point-in-time summary for the admin API; RocksDB's figures are -1 once the store is closed. */
  public EventStoreStats stats() {
    long rows = -1;
    long liveBytes = -1;
    long memtableBytes = -1;
    if (tryAcquireScan()) { // keeps RocksDB open while its properties are read
      try {
        rows = db.rowsProperty("rocksdb.estimate-num-keys");
        liveBytes = db.property("rocksdb.live-sst-files-size");
        memtableBytes = db.property("rocksdb.cur-size-all-mem-tables");
      } finally {
        releaseScan(0);
      }
    }
    return new EventStoreStats(resolvedTs, gcTs, tableMaxTs.size(), rows, liveBytes, memtableBytes,
        openScans.get());
  }

  /** The directory of the store's files. */
  public Path dataDir() {
    return dataDir;
  }

  @Override
  public void close() {
    writeLock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      metrics.remove();
      if (!awaitScansClosed()) {
        log.atError().addKeyValue("dataDir", dataDir).addKeyValue("openScans", openScans.get())
            .log("event store closed with scans still open: RocksDB left open to keep their readers from crashing");
        return;
      }
      db.close();
      closeQuietly(walLock);   // after RocksDB let go of its WAL files
      log.atInfo().addKeyValue("dataDir", dataDir).addKeyValue("resolvedTs", resolvedTs)
          .log("event store closed");
    } finally {
      writeLock.unlock();
    }
  }

  private static byte[] rowUpperBound(long tableId, long toInclusive) {
    if (toInclusive < Long.MAX_VALUE) {
      return EventKey.rowTs(tableId, Math.max(0, toInclusive) + 1);
    }
    return tableId < Long.MAX_VALUE ? EventKey.table(tableId + 1) : null;
  }

  private RocksStoreBatch own(StoreBatch batch) {
    if (batch instanceof RocksStoreBatch) {
      RocksStoreBatch b = (RocksStoreBatch) batch;
      if (b.isFrom(this)) {
        return b;
      }
    }
    throw new IllegalArgumentException("batch was not made by this store's newBatch(): " + batch);
  }

  private void notifyResolved(long ts) {
    for (ResolvedListener listener : listeners) {
      try {
        listener.onResolved(ts);
      } catch (RuntimeException e) {
        // the write is durable already; one failing listener must not hide the advance from the others
        log.atWarn().addKeyValue("dataDir", dataDir).addKeyValue("resolvedTs", ts)
            .addKeyValue("listener", listener.getClass().getName()).setCause(e).log("resolved listener failed");
      }
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("event store at " + dataDir + " is closed");
    }
  }

  private void acquireScan() {
    if (!tryAcquireScan()) {
      throw new IllegalStateException("event store at " + dataDir + " is closed");
    }
  }

  /** Registers a reader of RocksDB unless the store is closed; {@link #close()} waits for readers. */
  private boolean tryAcquireScan() {
    openScans.incrementAndGet();
    if (closed) {
      releaseScan(0);
      return false;
    }
    return true;
  }

  private void releaseScan(long rows) {
    metrics.recordScan(rows);
    if (openScans.decrementAndGet() == 0 && closed) {
      synchronized (scansClosed) {
        scansClosed.notifyAll();
      }
    }
  }

  private boolean awaitScansClosed() {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MS);
    synchronized (scansClosed) {
      while (openScans.get() > 0) {
        long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (leftMs <= 0) {
          return false;
        }
        try {
          scansClosed.wait(leftMs);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
    return true;
  }

  private static void closeQuietly(AutoCloseable... natives) {
    for (AutoCloseable n : natives) {
      if (n != null) {
        try {
          n.close();
        } catch (Exception e) {
          // releasing natives of a scan that failed to start: the original failure is what matters
        }
      }
    }
  }
}
