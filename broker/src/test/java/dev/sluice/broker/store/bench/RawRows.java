package dev.sluice.broker.store.bench;

import dev.sluice.broker.store.EventStoreConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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

/**
 * The event store's RocksDB opened directly, without the store: the peer of the scan benchmark and
 * the tool that compacts its data. The column family names are the store's layout (StoreDb).
 *
 * <pre>{@code
 * try (RawRows raw = RawRows.open(ScanData.config(dir, LZ4))) { RocksIterator it = raw.db().newIterator(raw.rows()); }
 * }</pre>
 */
final class RawRows implements AutoCloseable {

  private static final List<String> FAMILIES = List.of("default", "rows", "meta", "time_marks");

  private final LRUCache cache;
  private final ColumnFamilyOptions familyOptions;
  private final DBOptions options;
  private final List<ColumnFamilyHandle> handles;
  private final RocksDB db;

  private RawRows(LRUCache cache, ColumnFamilyOptions familyOptions, DBOptions options,
      List<ColumnFamilyHandle> handles, RocksDB db) {
    this.cache = cache;
    this.familyOptions = familyOptions;
    this.options = options;
    this.handles = handles;
    this.db = db;
  }

  /** Opens with the store's rows settings, so a compaction writes the files the store would. */
  static RawRows open(EventStoreConfig config) throws RocksDBException {
    RocksDB.loadLibrary();
    LRUCache cache = new LRUCache(config.blockCacheBytes());
    ColumnFamilyOptions familyOptions = new ColumnFamilyOptions()
        .setCompressionType(compression(config.rowsCompression()))
        .setLevelCompactionDynamicLevelBytes(true)
        .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache)
            .setBlockSize(config.blockSizeBytes()));
    DBOptions options = new DBOptions();
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    for (String name : FAMILIES) {
      descriptors.add(new ColumnFamilyDescriptor(name.getBytes(StandardCharsets.US_ASCII), familyOptions));
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    RocksDB db = RocksDB.open(options, config.dataDir().toString(), descriptors, handles);
    return new RawRows(cache, familyOptions, options, handles, db);
  }

  private static CompressionType compression(EventStoreConfig.Compression compression) {
    return switch (compression) {
      case NONE -> CompressionType.NO_COMPRESSION;
      case LZ4 -> CompressionType.LZ4_COMPRESSION;
      case SNAPPY -> CompressionType.SNAPPY_COMPRESSION;
      case ZSTD -> CompressionType.ZSTD_COMPRESSION;
    };
  }

  RocksDB db() {
    return db;
  }

  ColumnFamilyHandle rows() {
    return handles.get(1);
  }

  /** Flushes and compacts the rows column family into its bottom level. */
  void compact() throws RocksDBException {
    db.compactRange(rows());
  }

  @Override
  public void close() {
    handles.forEach(ColumnFamilyHandle::close);
    db.close();
    options.close();
    familyOptions.close();
    cache.close();
  }
}
