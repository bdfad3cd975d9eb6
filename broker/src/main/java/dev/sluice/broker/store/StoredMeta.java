package dev.sluice.broker.store;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.FatalException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * The metadata {@link RocksEventStore} loads on open from its {@code meta} column family; writes the
 * layout version into a new store and refuses a store of another version.
 *
 * <pre>{@code
 * StoredMeta meta = StoredMeta.load(db, dataDir);
 * long resolved = meta.resolvedTs();
 * }</pre>
 *
 * @param position   where capture resumes, null for a new store
 * @param resolvedTs the persisted resolved ts, 0 for a new store
 * @param gcTs       the persisted GC ts, 0 when never collected
 * @param floorTs    where capture began ({@link EventStore#floorTs()}), 0 for a store that predates it
 * @param tableMaxTs newest commit ts stored per table
 */
record StoredMeta(SourcePosition position, long resolvedTs, long gcTs, long floorTs, Map<Long, Long> tableMaxTs) {

  /** Version of the key and value layout described in {@link EventKey}. */
  static final long FORMAT_VERSION = 1;

  static StoredMeta load(StoreDb db, Path dir) {
    try {
      checkFormat(db, dir);
      byte[] pos = db.rocks().get(db.meta(), EventKey.POSITION);
      byte[] resolved = db.rocks().get(db.meta(), EventKey.RESOLVED_TS);
      byte[] gc = db.rocks().get(db.meta(), EventKey.GC_TS);
      byte[] floor = db.rocks().get(db.meta(), EventKey.FLOOR_TS);
      Map<Long, Long> tables = new ConcurrentHashMap<>();
      try (RocksIterator it = db.rocks().newIterator(db.meta())) {
        for (it.seek(EventKey.TABLE_MAX_PREFIX); it.isValid(); it.next()) {
          byte[] key = it.key();
          if (!EventKey.isTableMax(key)) {
            break;
          }
          tables.put(EventKey.tableOfTableMax(key), EventKey.readLong(it.value(), 0));
        }
        it.status();
      }
      return new StoredMeta(pos == null ? null : EventKey.position(pos),
          resolved == null ? 0 : EventKey.readLong(resolved, 0), gc == null ? 0 : EventKey.readLong(gc, 0),
          floor == null ? 0 : EventKey.readLong(floor, 0), tables);
    } catch (RocksDBException e) {
      throw new StoreUnavailableException(dir, "read its metadata", e);
    }
  }

  private static void checkFormat(StoreDb db, Path dir) throws RocksDBException {
    byte[] stored = db.rocks().get(db.meta(), EventKey.FORMAT_VERSION);
    if (stored == null) {
      db.rocks().put(db.meta(), db.syncWrite(), EventKey.FORMAT_VERSION, EventKey.ts(FORMAT_VERSION));
      return;
    }
    long version = EventKey.readLong(stored, 0);
    if (version != FORMAT_VERSION) {
      throw new FatalException(ErrorCode.STORE_CORRUPT, "event store at " + dir + " has layout version "
          + version + " but this broker reads version " + FORMAT_VERSION
          + ": run the broker version that wrote it, or move the directory away to capture again");
    }
  }
}
