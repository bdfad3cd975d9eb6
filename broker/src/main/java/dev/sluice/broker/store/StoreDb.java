package dev.sluice.broker.store;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * The open RocksDB instance of the event store: its column families ({@code rows}, {@code meta},
 * {@code time_marks}; {@code default} stays empty), write options and every native object behind
 * them, closed together in the order RocksDB requires. The WAL goes to {@code config.walDir()} when set;
 * {@link RocksEventStore#open} checks beforehand that no other directory holds WAL files with writes.
 *
 * <pre>{@code
 * try (StoreDb db = StoreDb.open(config)) { db.rocks().write(db.syncWrite(), batch); }
 * }</pre>
 */
final class StoreDb implements AutoCloseable {

  static final String ROWS = "rows";
  static final String META = "meta";
  static final String TIME_MARKS = "time_marks";
  private static final long SMALL_WRITE_BUFFER_BYTES = 8L << 20;

  private final RocksDB rocks;
  private final ColumnFamilyHandle rows;
  private final ColumnFamilyHandle meta;
  private final ColumnFamilyHandle timeMarks;
  private final WriteOptions syncWrite;
  private final WriteOptions asyncWrite;
  /** Natives to close, in closing order (handles, db, then the options they were built from). */
  private final List<AutoCloseable> natives;

  private StoreDb(RocksDB rocks, List<ColumnFamilyHandle> handles, WriteOptions syncWrite, WriteOptions asyncWrite,
      List<AutoCloseable> natives) {
    this.rocks = rocks;
    this.rows = handles.get(1);
    this.meta = handles.get(2);
    this.timeMarks = handles.get(3);
    this.syncWrite = syncWrite;
    this.asyncWrite = asyncWrite;
    this.natives = natives;
  }

  static StoreDb open(EventStoreConfig config) throws RocksDBException {
    RocksDB.loadLibrary();
    List<AutoCloseable> options = new ArrayList<>();
    try {
      LRUCache cache = add(options, new LRUCache(config.blockCacheBytes()));
      ColumnFamilyOptions rowsOptions = add(options, new ColumnFamilyOptions()
          .setCompressionType(compression(config.rowsCompression()))
          .setWriteBufferSize(config.writeBufferBytes())
          .setMaxWriteBufferNumber(config.maxWriteBuffers())
          .setLevelCompactionDynamicLevelBytes(true)
          .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache)
              .setBlockSize(config.blockSizeBytes())));
      ColumnFamilyOptions smallOptions = add(options, new ColumnFamilyOptions()
          .setWriteBufferSize(SMALL_WRITE_BUFFER_BYTES)
          .setCompressionType(CompressionType.LZ4_COMPRESSION)
          .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache)));
      DBOptions dbOptions = add(options, new DBOptions()
          .setCreateIfMissing(true)
          .setCreateMissingColumnFamilies(true)
          .setMaxBackgroundJobs(config.backgroundJobs())
          // the meta CF is tiny but written by every batch: cap the WAL so its memtable gets flushed
          .setMaxTotalWalSize(config.writeBufferBytes() * config.maxWriteBuffers())
          .setKeepLogFileNum(4)
          .setMaxLogFileSize(16L << 20));
      if (config.walDir() != null) {
        // absolute, so the OPTIONS file records where the WAL went whatever the working directory (WalDirCheck)
        dbOptions.setWalDir(config.walDir().toAbsolutePath().toString());
      }
      WriteOptions syncWrite = add(options, new WriteOptions().setSync(true));
      WriteOptions asyncWrite = add(options, new WriteOptions());
      List<ColumnFamilyDescriptor> descriptors = List.of(
          new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, smallOptions),
          new ColumnFamilyDescriptor(bytes(ROWS), rowsOptions),
          new ColumnFamilyDescriptor(bytes(META), smallOptions),
          new ColumnFamilyDescriptor(bytes(TIME_MARKS), smallOptions));
      List<ColumnFamilyHandle> handles = new ArrayList<>();
      RocksDB rocks = RocksDB.open(dbOptions, config.dataDir().toString(), descriptors, handles);
      List<AutoCloseable> natives = new ArrayList<>(handles);
      natives.add(rocks);
      Collections.reverse(options);
      natives.addAll(options);
      return new StoreDb(rocks, handles, syncWrite, asyncWrite, natives);
    } catch (RocksDBException | RuntimeException e) {
      Collections.reverse(options);
      closeAll(options);
      throw e;
    }
  }

  RocksDB rocks() {
    return rocks;
  }

  ColumnFamilyHandle rows() {
    return rows;
  }

  ColumnFamilyHandle meta() {
    return meta;
  }

  ColumnFamilyHandle timeMarks() {
    return timeMarks;
  }

  WriteOptions writeOptions(boolean sync) {
    return sync ? syncWrite : asyncWrite;
  }

  WriteOptions syncWrite() {
    return syncWrite;
  }

  /** A long-valued RocksDB property summed over the column families, -1 when unavailable. */
  long property(String name) {
    long sum = 0;
    try {
      for (ColumnFamilyHandle cf : List.of(rows, meta, timeMarks)) {
        sum += rocks.getLongProperty(cf, name);
      }
      return sum;
    } catch (RocksDBException e) {
      return -1;
    }
  }

  long rowsProperty(String name) {
    try {
      return rocks.getLongProperty(rows, name);
    } catch (RocksDBException e) {
      return -1;
    }
  }

  @Override
  public void close() {
    closeAll(natives);
  }

  static CompressionType compression(EventStoreConfig.Compression compression) {
    return switch (compression) {
      case NONE -> CompressionType.NO_COMPRESSION;
      case LZ4 -> CompressionType.LZ4_COMPRESSION;
      case SNAPPY -> CompressionType.SNAPPY_COMPRESSION;
      case ZSTD -> CompressionType.ZSTD_COMPRESSION;
    };
  }

  private static <T extends AutoCloseable> T add(List<AutoCloseable> list, T item) {
    list.add(item);
    return item;
  }

  private static void closeAll(List<AutoCloseable> items) {
    for (AutoCloseable item : items) {
      try {
        item.close();
      } catch (Exception e) {
        // closing natives of a store being shut down: nothing left to do with the failure
      }
    }
  }

  private static byte[] bytes(String name) {
    return name.getBytes(StandardCharsets.US_ASCII);
  }
}
