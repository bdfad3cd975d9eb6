package dev.sluice.broker.store.bench;

import dev.sluice.broker.store.EventStoreConfig;
import dev.sluice.broker.store.RocksEventStore;
import dev.sluice.broker.store.StoreBatch;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.rocksdb.RocksDBException;

/**
 * The data set of the scan benchmarks: {@link #ROWS} rows of table {@link #TABLE} (transactions of 10
 * rows) plus a quarter as many rows of another table written in between, fully compacted so scans
 * read SST blocks. Built once per compression under {@code java.io.tmpdir} and reused by later forks.
 *
 * <pre>{@code
 * Path dir = ScanData.prepare(EventStoreConfig.Compression.LZ4);
 * }</pre>
 */
final class ScanData {

  static final int ROWS = 1_000_000;
  static final long TABLE = 16_384;
  static final long OTHER_TABLE = 16_390;
  /** Smaller than the data: a catch-up scan reads blocks that are not cached, as it does in production. */
  static final long BLOCK_CACHE_BYTES = 16L << 20;
  private static final int ROWS_PER_TXN = 10;
  private static final int TXNS_PER_BATCH = 100;

  private ScanData() {}

  static EventStoreConfig config(Path dir, EventStoreConfig.Compression compression) {
    return EventStoreConfig.defaults(dir).withRowsCompression(compression).withBlockCacheBytes(BLOCK_CACHE_BYTES);
  }

  /** The data directory for {@code compression}, built when missing. */
  static Path prepare(EventStoreConfig.Compression compression) throws IOException, RocksDBException {
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "sluice-bench-scan", compression + "-" + ROWS);
    Path complete = dir.resolve("COMPLETE");
    if (Files.exists(complete)) {
      return dir;
    }
    deleteTree(dir);
    try (RocksEventStore store = RocksEventStore.open(config(dir, compression), new SimpleMeterRegistry())) {
      long commitTs = 1_000;
      long id = 0;
      while (id < ROWS) {
        StoreBatch batch = store.newBatch();
        for (int t = 0; t < TXNS_PER_BATCH && id < ROWS; t++) {
          commitTs += 100;
          for (int seq = 0; seq < ROWS_PER_TXN; seq++, id++) {
            BenchmarkRows.Row row = BenchmarkRows.row(id, seq);
            batch.putRow(TABLE, commitTs, seq, row.keyHash(), row.bytes());
            if (id % 4 == 0) {
              BenchmarkRows.Row other = BenchmarkRows.row(id + ROWS, seq + ROWS_PER_TXN);
              batch.putRow(OTHER_TABLE, commitTs, seq + ROWS_PER_TXN, other.keyHash(), other.bytes());
            }
          }
          batch.setResolvedTs(commitTs);
        }
        store.write(batch, false);
      }
    }
    try (RawRows raw = RawRows.open(config(dir, compression))) {
      raw.compact();
    }
    Files.createFile(complete);
    return dir;
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
