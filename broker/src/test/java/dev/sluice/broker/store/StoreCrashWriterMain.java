package dev.sluice.broker.store;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Child process of {@link RocksEventStoreCrashTest}: resumes after the stored position and writes
 * synced group-commit batches forever, printing {@code ACK n} after batch {@code n}'s write returned.
 * The parent kills it with SIGKILL at a random point.
 *
 * <pre>{@code
 * java -cp <test classpath> dev.sluice.broker.store.StoreCrashWriterMain <dataDir>
 * }</pre>
 */
public final class StoreCrashWriterMain {

  static final int TXNS_PER_BATCH = 3;
  static final long[] TABLES = {1, 2};

  private StoreCrashWriterMain() {}

  public static void main(String[] args) {
    RocksEventStore store = RocksEventStore.open(config(Path.of(args[0])), new SimpleMeterRegistry());
    long n = store.position().map(p -> batchOf(p.lastCommitTs()) + 1).orElse(1L);
    System.out.println("READY " + n);
    System.out.flush();
    for (;; n++) {
      StoreBatch batch = store.newBatch();
      for (int k = 1; k <= TXNS_PER_BATCH; k++) {
        long ts = commitTs(n, k);
        txnRows(n, k).forEach(r -> r.putInto(batch));
        batch.putTimeMark(ts, ts * 1_000);
        batch.setPosition(new SourcePosition(ts, restartPosition(ts)));
        batch.setResolvedTs(ts);
      }
      store.write(batch, true);
      System.out.println("ACK " + n);
      System.out.flush();
    }
  }

  static EventStoreConfig config(Path dir) {
    return EventStoreConfig.defaults(dir).withBlockCacheBytes(8L << 20).withWriteBufferBytes(4L << 20);
  }

  /** Commit ts of transaction {@code k} (1-based) of batch {@code n}. */
  static long commitTs(long n, int k) {
    return n * 100 + k;
  }

  static long batchOf(long commitTs) {
    return commitTs / 100;
  }

  static long restartPosition(long commitTs) {
    return commitTs * 7 + 3;
  }

  /** The rows of transaction {@code k} of batch {@code n}: a varying count per table, ~100-byte values. */
  static List<ScannedRow> txnRows(long n, int k) {
    long ts = commitTs(n, k);
    List<ScannedRow> rows = new ArrayList<>();
    long seq = 0;
    for (long table : TABLES) {
      long count = 1 + (n + k + table) % 4;
      for (long i = 0; i < count; i++) {
        String value = ScannedRow.valueOf(table, ts, seq) + "/" + "x".repeat(80);
        rows.add(new ScannedRow(table, ts, seq, (int) (ts * 31 + seq), value));
        seq++;
      }
    }
    return rows;
  }
}
