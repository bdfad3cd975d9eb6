package dev.sluice.schema;

import com.google.protobuf.InvalidProtocolBufferException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The schema store's RocksDB instance: three column families of its own ({@code schema_versions},
 * {@code schema_ddl}, {@code schema_meta}, layout in {@link SchemaKeys}) holding protobuf encodings.
 * Each {@code apply} and each GC is one {@link WriteBatch}, so it is stored whole or not at all; both
 * are written with the configured sync option. The resolved ts is written unsynced (see
 * {@link RocksSchemaStore}).
 *
 * <p><b>Concurrency.</b> RocksDB itself is thread-safe; the read-write lock only keeps {@link #close}
 * from freeing the native handles under a running call. Every call takes the read lock, close the write
 * lock. Failures of RocksDB become {@link SchemaStoreUnavailableException}, undecodable data
 * {@link SchemaStoreCorruptException}, here and nowhere else.
 */
final class SchemaDb implements AutoCloseable {

  static final String CF_VERSIONS = "schema_versions";
  static final String CF_DDL = "schema_ddl";
  static final String CF_META = "schema_meta";
  /**
   * Bumped on any incompatible change of {@link SchemaKeys}' layout; 2 added the table id to DDL keys, 3 the
   * row seq to DDL and version keys (several versions of one table at one commit ts).
   */
  static final int FORMAT_VERSION = 3;
  /** The layout whose DDL keys are the commit ts alone; {@link #open} rewrites it. */
  private static final int FORMAT_VERSION_TS_KEYS = 1;
  /** The layout without row seqs in the keys; {@link #open} rewrites it. */
  private static final int FORMAT_VERSION_NO_ROW_SEQ = 2;

  private static final Logger log = LoggerFactory.getLogger(SchemaDb.class);

  static {
    RocksDB.loadLibrary();
  }

  /** The persisted scalars, 0 when never written. */
  record Meta(long lastDdlTs, long resolvedTs, long gcTs) {
  }

  @FunctionalInterface
  private interface RocksCall<T> {
    T run() throws RocksDBException;
  }

  private final String dir;
  private final DBOptions dbOptions;
  private final ColumnFamilyOptions cfOptions;
  private final WriteOptions durableWrites;
  private final WriteOptions resolvedWrites;
  private final RocksDB db;
  private final List<ColumnFamilyHandle> handles;
  private final ColumnFamilyHandle versions;
  private final ColumnFamilyHandle ddl;
  private final ColumnFamilyHandle meta;
  private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
  private boolean closed;   // guarded by lifecycle

  private SchemaDb(String dir, DBOptions dbOptions, ColumnFamilyOptions cfOptions, RocksDB db,
      List<ColumnFamilyHandle> handles, boolean syncWrites) {
    this.dir = dir;
    this.dbOptions = dbOptions;
    this.cfOptions = cfOptions;
    this.db = db;
    this.handles = handles;
    this.versions = handles.get(1);
    this.ddl = handles.get(2);
    this.meta = handles.get(3);
    this.durableWrites = new WriteOptions().setSync(syncWrites);
    this.resolvedWrites = new WriteOptions().setSync(false);
  }

  /** Opens or creates the store in {@code dir}; refuses a directory that holds other column families. */
  static SchemaDb open(Path dirPath, boolean syncWrites) {
    String dir = dirPath.toAbsolutePath().toString();
    checkColumnFamilies(dir);
    DBOptions dbOptions = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
        .setInfoLogLevel(InfoLogLevel.WARN_LEVEL).setKeepLogFileNum(2);
    ColumnFamilyOptions cfOptions = new ColumnFamilyOptions();
    List<ColumnFamilyDescriptor> descriptors = List.of(
        new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions),
        new ColumnFamilyDescriptor(bytes(CF_VERSIONS), cfOptions),
        new ColumnFamilyDescriptor(bytes(CF_DDL), cfOptions),
        new ColumnFamilyDescriptor(bytes(CF_META), cfOptions));
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    RocksDB db;
    try {
      java.nio.file.Files.createDirectories(dirPath);
      db = RocksDB.open(dbOptions, dir, descriptors, handles);
    } catch (RocksDBException | java.io.IOException e) {
      cfOptions.close();
      dbOptions.close();
      throw new SchemaStoreUnavailableException(dir, "open", e);
    }
    SchemaDb store = new SchemaDb(dir, dbOptions, cfOptions, db, handles, syncWrites);
    try {
      store.checkFormat();
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
    return store;
  }

  String dir() {
    return dir;
  }

  Meta readMeta() {
    return read("read the metadata", () ->
        new Meta(readLong(SchemaKeys.LAST_DDL_TS), readLong(SchemaKeys.RESOLVED_TS), readLong(SchemaKeys.GC_TS)));
  }

  /** Feeds every stored version, DDL event and drop into an empty index. */
  void restoreInto(SchemaIndex index) {
    read("load the index", () -> {
      try (RocksIterator it = db.newIterator(versions)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          TableInfo info = decodeTableInfo(it.value(), "version");
          if (it.key().length != SchemaKeys.VERSION_KEY_BYTES || info.tableId() != SchemaKeys.versionTableId(it.key())
              || info.version() != SchemaKeys.versionTs(it.key())
              || info.versionRowSeq() != SchemaKeys.versionRowSeq(it.key())) {
            throw corrupt("version key " + Arrays.toString(it.key()) + " holds table " + info.tableId()
                + " version " + info.version(), null);
          }
          index.restoreVersion(info);
        }
        it.status();
      }
      try (RocksIterator it = db.newIterator(ddl)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          DdlEvent event = decodeDdl(it.value());
          index.restoreDdl(event.tableId(), event.commitTs(), event.rowSeq());
        }
        it.status();
      }
      try (RocksIterator it = db.newIterator(meta)) {
        for (it.seek(SchemaKeys.DROP_PREFIX); it.isValid() && SchemaKeys.isDrop(it.key()); it.next()) {
          TableInfo tombstone = decodeTableInfo(it.value(), "drop tombstone");
          index.restoreDrop(SchemaKeys.dropTableId(it.key()), tombstone.version(), tombstone.versionRowSeq(),
              TableName.of(tombstone));
        }
        it.status();
      }
      return null;
    });
  }

  /** The stored version, or null when there is none (never stored, or collected by GC). */
  TableInfo readVersion(TableVersion key) {
    byte[] value = read("read a table version",
        () -> db.get(versions, SchemaKeys.version(key.tableId(), key.version(), key.rowSeq())));
    return value == null ? null : decodeTableInfo(value, "version");
  }

  /**
   * The table's stored DDL events at these positions ({@code [ts0, rowSeq0, ts1, rowSeq1, ...]}), in the
   * given order; null where one is missing.
   */
  List<DdlEvent> readDdls(long tableId, long[] positions) {
    List<byte[]> keys = new ArrayList<>(positions.length / 2);
    List<ColumnFamilyHandle> cfs = new ArrayList<>(positions.length / 2);
    for (int i = 0; i < positions.length; i += 2) {
      keys.add(SchemaKeys.ddl(positions[i], positions[i + 1], tableId));
      cfs.add(ddl);
    }
    List<byte[]> values = read("read DDL events", () -> db.multiGetAsList(cfs, keys));
    List<DdlEvent> events = new ArrayList<>(values.size());
    for (byte[] value : values) {
      events.add(value == null ? null : decodeDdl(value));
    }
    return events;
  }

  /** DDL events with {@code fromExclusive < commitTs <= toInclusive}, by commit ts, row seq, then table id. */
  List<DdlEvent> scanDdls(long fromExclusive, long toInclusive) {
    return read("scan DDL events", () -> {
      List<DdlEvent> events = new ArrayList<>();
      try (RocksIterator it = db.newIterator(ddl)) {
        for (it.seek(SchemaKeys.ddlBound(fromExclusive + 1)); it.isValid() && SchemaKeys.ddlTs(it.key()) <= toInclusive;
            it.next()) {
          events.add(decodeDdl(it.value()));
        }
        it.status();
      }
      return events;
    });
  }

  /**
   * Stores DDLs in commit-ts order, their versions (or drop tombstones) and the last one's ts as the last
   * DDL ts in one batch: one transaction's DDLs are stored whole or not at all.
   */
  void writeDdls(List<DdlEvent> events) {
    long lastTs = events.get(events.size() - 1).commitTs();
    read("store the DDL at commit ts " + lastTs, () -> {
      try (WriteBatch batch = new WriteBatch()) {
        for (DdlEvent event : events) {
          TableInfo info = event.tableInfoAfter();
          batch.put(ddl, SchemaKeys.ddl(event.commitTs(), event.rowSeq(), info.tableId()), event.toProto().toByteArray());
          if (event.type() == DdlType.DROP_TABLE) {
            TableInfo tombstone = new TableInfo(info.tableId(), info.schemaName(), info.tableName(), List.of(),
                List.of(), event.commitTs(), event.rowSeq());
            batch.put(meta, SchemaKeys.drop(info.tableId()), tombstone.toProto().toByteArray());
          } else {
            batch.put(versions, SchemaKeys.version(info.tableId(), info.version(), info.versionRowSeq()),
                info.toProto().toByteArray());
          }
        }
        batch.put(meta, SchemaKeys.LAST_DDL_TS, SchemaKeys.longBytes(lastTs));
        db.write(durableWrites, batch);
      }
      return null;
    });
  }

  void writeResolvedTs(long ts) {
    read("store the resolved ts", () -> {
      db.put(meta, resolvedWrites, SchemaKeys.RESOLVED_TS, SchemaKeys.longBytes(ts));
      return null;
    });
  }

  /** Deletes the collected versions and every DDL event at or below {@code gcTs}, stores the GC ts. */
  void writeGc(long gcTs, List<TableVersion> removed) {
    read("store the GC at ts " + gcTs, () -> {
      try (WriteBatch batch = new WriteBatch()) {
        for (TableVersion v : removed) {
          batch.delete(versions, SchemaKeys.version(v.tableId(), v.version(), v.rowSeq()));
        }
        batch.deleteRange(ddl, SchemaKeys.ddlBound(0), SchemaKeys.ddlBound(gcTs + 1));
        batch.put(meta, SchemaKeys.GC_TS, SchemaKeys.longBytes(gcTs));
        db.write(durableWrites, batch);
      }
      return null;
    });
  }

  @Override
  public void close() {
    lifecycle.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      try {
        db.flushWal(true);   // the unsynced resolved ts survives a clean shutdown
      } catch (RocksDBException e) {
        // best effort: the resolved ts is re-derived by the capture after a restart
      }
      for (ColumnFamilyHandle h : handles) {
        h.close();
      }
      db.close();
      durableWrites.close();
      resolvedWrites.close();
      cfOptions.close();
      dbOptions.close();
    } finally {
      lifecycle.writeLock().unlock();
    }
  }

  private void checkFormat() {
    read("check the format version", () -> {
      byte[] stored = db.get(meta, SchemaKeys.FORMAT_VERSION);
      if (stored == null) {
        if (!isEmpty()) {
          throw corrupt("it holds data but no format version", null);
        }
        try (WriteOptions sync = new WriteOptions().setSync(true)) {
          db.put(meta, sync, SchemaKeys.FORMAT_VERSION, formatBytes(FORMAT_VERSION));
        }
      } else if (stored.length == 4 && java.nio.ByteBuffer.wrap(stored).getInt() == FORMAT_VERSION_TS_KEYS) {
        addRowSeqsToKeys(FORMAT_VERSION_TS_KEYS);
      } else if (stored.length == 4 && java.nio.ByteBuffer.wrap(stored).getInt() == FORMAT_VERSION_NO_ROW_SEQ) {
        addRowSeqsToKeys(FORMAT_VERSION_NO_ROW_SEQ);
      } else if (stored.length != 4 || java.nio.ByteBuffer.wrap(stored).getInt() != FORMAT_VERSION) {
        String found = stored.length == 4 ? Integer.toString(java.nio.ByteBuffer.wrap(stored).getInt()) : Arrays.toString(stored);
        throw corrupt("its format version is " + found + ", this build reads " + FORMAT_VERSION, null);
      }
      return null;
    });
  }

  /**
   * Rewrites the keys of a format-1 or format-2 store as format 3 in one batch, with the new format
   * version: DDL keys become (commit ts, row seq 0, table id), version keys (table id, version, row seq 0).
   * Row seq 0 is what those DDLs were: before every row of their transaction, one per table and ts.
   */
  private void addRowSeqsToKeys(int from) throws RocksDBException {
    int ddlRewritten = 0;
    int versionsRewritten = 0;
    try (WriteBatch batch = new WriteBatch(); WriteOptions sync = new WriteOptions().setSync(true)) {
      try (RocksIterator it = db.newIterator(ddl)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          if (it.key().length != SchemaKeys.DDL_KEY_BYTES) {
            batch.delete(ddl, it.key());
            batch.put(ddl, SchemaKeys.ddl(SchemaKeys.ddlTs(it.key()), 0, decodeDdl(it.value()).tableId()), it.value());
            ddlRewritten++;
          }
        }
        it.status();
      }
      try (RocksIterator it = db.newIterator(versions)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          if (it.key().length != SchemaKeys.VERSION_KEY_BYTES) {
            batch.delete(versions, it.key());
            batch.put(versions, SchemaKeys.version(SchemaKeys.versionTableId(it.key()), SchemaKeys.versionTs(it.key()), 0),
                it.value());
            versionsRewritten++;
          }
        }
        it.status();
      }
      batch.put(meta, SchemaKeys.FORMAT_VERSION, formatBytes(FORMAT_VERSION));
      db.write(sync, batch);
    }
    log.atInfo().addKeyValue("dataDir", dir).addKeyValue("fromFormat", from).addKeyValue("ddlEvents", ddlRewritten)
        .addKeyValue("versions", versionsRewritten).log("schema store upgraded to format " + FORMAT_VERSION);
  }

  private static byte[] formatBytes(int version) {
    return java.nio.ByteBuffer.allocate(4).putInt(version).array();
  }

  private boolean isEmpty() {
    for (ColumnFamilyHandle cf : List.of(versions, ddl, meta)) {
      try (RocksIterator it = db.newIterator(cf)) {
        it.seekToFirst();
        if (it.isValid()) {
          return false;
        }
      }
    }
    return true;
  }

  private long readLong(byte[] key) throws RocksDBException {
    byte[] value = db.get(meta, key);
    return value == null ? 0 : SchemaKeys.longValue(value);
  }

  private <T> T read(String operation, RocksCall<T> call) {
    lifecycle.readLock().lock();
    try {
      if (closed) {
        throw new IllegalStateException("schema store at " + dir + " is closed");
      }
      return call.run();
    } catch (RocksDBException e) {
      throw new SchemaStoreUnavailableException(dir, operation, e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  private TableInfo decodeTableInfo(byte[] value, String what) {
    try {
      return TableInfo.fromProto(dev.sluice.api.v1.TableInfo.parseFrom(value));
    } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
      throw corrupt("a stored " + what + " does not decode", e);
    }
  }

  private DdlEvent decodeDdl(byte[] value) {
    try {
      return DdlEvent.fromProto(dev.sluice.api.v1.DdlEvent.parseFrom(value));
    } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
      throw corrupt("a stored DDL event does not decode", e);
    }
  }

  private SchemaStoreCorruptException corrupt(String problem, Throwable cause) {
    return new SchemaStoreCorruptException(dir, problem, cause);
  }

  private static void checkColumnFamilies(String dir) {
    if (!java.nio.file.Files.exists(Path.of(dir, "CURRENT"))) {
      return;
    }
    List<String> existing = new ArrayList<>();
    try (Options options = new Options()) {
      for (byte[] name : RocksDB.listColumnFamilies(options, dir)) {
        existing.add(new String(name, StandardCharsets.UTF_8));
      }
    } catch (RocksDBException e) {
      throw new SchemaStoreUnavailableException(dir, "list its column families", e);
    }
    List<String> foreign = new ArrayList<>(existing);
    foreign.removeAll(List.of("default", CF_VERSIONS, CF_DDL, CF_META));
    if (!foreign.isEmpty()) {
      throw new SchemaStoreCorruptException(dir, "it holds column families " + foreign
          + " that are not the schema store's (is it the event store's directory?)", null);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
