package dev.sluice.broker.changefeed;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

/**
 * The hosted changefeeds' records, in a small RocksDB of their own under
 * {@code <dataDir>/changefeeds}: key = the changefeed id (UTF-8), value = the record as JSON with a
 * format number ({@link ChangefeedRecord#FORMAT}). Records are never deleted: a removed id keeps its
 * last generation so a re-create gets a higher one.
 *
 * <p>State changes are written with {@code sync} (fsync of the WAL before the call returns); the
 * periodic checkpoint reports are not (the sinks hold the authoritative checkpoint). Thread-safe.
 *
 * <p>The records hold sink URIs with their credentials, so the directory is {@code 0700} and its
 * files {@code 0600} ({@link OwnerOnlyFiles}), tightened again after every write and at close.
 *
 * <pre>{@code
 * try (ChangefeedStore store = ChangefeedStore.open(dataDir.resolve("changefeeds"))) {
 *   store.put(record, true);
 *   store.get("orders").ifPresent(r -> System.out.println(r.state()));
 * }
 * }</pre>
 */
public final class ChangefeedStore implements AutoCloseable {

  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ChangefeedStore.class);

  private final Path dir;
  private final Options options;
  private final RocksDB db;
  private final WriteOptions syncWrite = new WriteOptions().setSync(true);
  private final WriteOptions asyncWrite = new WriteOptions();

  private ChangefeedStore(Path dir, Options options, RocksDB db) {
    this.dir = dir;
    this.options = options;
    this.db = db;
  }

  /** Opens (or creates) the store in {@code dir}. */
  public static ChangefeedStore open(Path dir) {
    RocksDB.loadLibrary();
    Options options = new Options().setCreateIfMissing(true).setKeepLogFileNum(2);
    try {
      OwnerOnlyFiles.createDirectory(dir);
      ChangefeedStore store = new ChangefeedStore(dir, options, RocksDB.open(options, dir.toString()));
      OwnerOnlyFiles.restrict(dir);
      return store;
    } catch (IOException | RocksDBException | java.io.UncheckedIOException e) {
      options.close();
      throw new ChangefeedStoreException(dir, "open", e);
    }
  }

  /** The record of {@code id}, if it was ever created. */
  public Optional<ChangefeedRecord> get(String id) {
    try {
      byte[] v = db.get(key(id));
      return v == null ? Optional.empty() : Optional.of(decode(v));
    } catch (RocksDBException e) {
      throw new ChangefeedStoreException(dir, "read changefeed " + id, e);
    }
  }

  /** Every record (REMOVED ones included), ordered by id. */
  public List<ChangefeedRecord> all() {
    List<ChangefeedRecord> out = new ArrayList<>();
    try (RocksIterator it = db.newIterator()) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        out.add(decode(it.value()));
      }
      it.status();
    } catch (RocksDBException e) {
      throw new ChangefeedStoreException(dir, "list changefeeds", e);
    }
    return out;
  }

  /** Writes {@code record}; with {@code sync} it is durable when this returns. */
  public void put(ChangefeedRecord record, boolean sync) {
    try {
      db.put(sync ? syncWrite : asyncWrite, key(record.id()),
          record.toJson().encode().getBytes(StandardCharsets.UTF_8));
    } catch (RocksDBException e) {
      throw new ChangefeedStoreException(dir, "write changefeed " + record.id() + " (" + record.state() + ")", e);
    }
    tighten();   // a write may have started a new WAL or SST file
  }

  private static byte[] key(String id) {
    return id.getBytes(StandardCharsets.UTF_8);
  }

  private ChangefeedRecord decode(byte[] v) {
    return ChangefeedRecord.fromJson(new JsonObject(new String(v, StandardCharsets.UTF_8)));
  }

  @Override
  public void close() {
    db.close();
    syncWrite.close();
    asyncWrite.close();
    options.close();
    tighten();   // what the close flushed
  }

  private void tighten() {
    try {
      OwnerOnlyFiles.restrict(dir);
    } catch (java.io.UncheckedIOException e) {
      log.atWarn().addKeyValue("dir", dir).log(e.getMessage());   // the write itself is durable
    }
  }
}
