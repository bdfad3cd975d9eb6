package dev.sluice.broker.store;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/** A closed store's directory opened with plain RocksDB, for tests that inspect or alter what is on disk. */
final class RawStoreDb implements AutoCloseable {

  private final DBOptions options;
  private final List<ColumnFamilyHandle> handles;
  private final RocksDB db;

  RawStoreDb(Path dir) throws RocksDBException {
    List<ColumnFamilyDescriptor> families = new ArrayList<>();
    families.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY));
    for (String name : List.of(StoreDb.ROWS, StoreDb.META, StoreDb.TIME_MARKS)) {
      families.add(new ColumnFamilyDescriptor(name.getBytes(StandardCharsets.US_ASCII)));
    }
    options = new DBOptions();
    handles = new ArrayList<>();
    db = RocksDB.open(options, dir.toString(), families, handles);
  }

  /** Commit ts of every key in the rows column family, in key order. */
  List<Long> rowCommitTs() {
    List<Long> commitTs = new ArrayList<>();
    try (RocksIterator it = db.newIterator(handles.get(1))) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        commitTs.add(EventKey.commitTs(it.key()));
      }
    }
    return commitTs;
  }

  /** Flushes and compacts the rows in {@code [begin, end)} (null = open-ended) into the last level, as age would. */
  void compactRows(byte[] begin, byte[] end) throws RocksDBException {
    db.compactRange(handles.get(1), begin, end);
  }

  void putMeta(byte[] key, byte[] value) throws RocksDBException {
    db.put(handles.get(2), key, value);
  }

  @Override
  public void close() {
    handles.forEach(ColumnFamilyHandle::close); // before the database, as RocksDB requires
    db.close();
    options.close();
  }
}
