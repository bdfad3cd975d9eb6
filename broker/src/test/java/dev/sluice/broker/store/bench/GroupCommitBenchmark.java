package dev.sluice.broker.store.bench;

import dev.sluice.broker.store.EventStoreConfig;
import dev.sluice.broker.store.RocksEventStore;
import dev.sluice.broker.store.SourcePosition;
import dev.sluice.broker.store.StoreBatch;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Why group commit: rows/s of the event store when each synced batch carries 1, 10 or 100
 * transactions of 10 rows (~100-byte RowChange values), against the same batches written without
 * sync. The {@code rows} counter is the figure; the primary score is synced batches per second.
 *
 * <pre>
 * scripts/bench-event-store.sh      # or, after test-compile:
 * java -cp broker/target/test-classes:broker/target/classes:$(cat cp.txt) org.openjdk.jmh.Main GroupCommitBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class GroupCommitBenchmark {

  private static final int ROWS_PER_TXN = 10;
  private static final int DISTINCT_ROWS = 1024;

  @Param({"1", "10", "100"})
  public int txnsPerBatch;

  private Path dir;
  private RocksEventStore store;
  private BenchmarkRows.Row[] rows;
  private long commitTs;

  /** Rows written, reported by JMH as a rate next to the batch rate. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Written {
    public long rows;
  }

  @Setup(Level.Trial)
  public void open() throws IOException {
    dir = Files.createTempDirectory("bench-group-commit");
    store = RocksEventStore.open(EventStoreConfig.defaults(dir), new SimpleMeterRegistry());
    rows = new BenchmarkRows.Row[DISTINCT_ROWS];
    for (int i = 0; i < DISTINCT_ROWS; i++) {
      rows[i] = BenchmarkRows.row(i, i % ROWS_PER_TXN);
    }
  }

  @TearDown(Level.Trial)
  public void close() throws IOException {
    store.close();
    ScanData.deleteTree(dir);
  }

  @Benchmark
  public void syncedBatch(Written written) {
    writeBatch(true, written);
  }

  @Benchmark
  public void unsyncedBatch(Written written) {
    writeBatch(false, written);
  }

  private void writeBatch(boolean sync, Written written) {
    StoreBatch batch = store.newBatch();
    for (int t = 0; t < txnsPerBatch; t++) {
      commitTs += 100;
      for (int seq = 0; seq < ROWS_PER_TXN; seq++) {
        BenchmarkRows.Row row = rows[(int) ((commitTs + seq) % DISTINCT_ROWS)];
        batch.putRow(1 + (commitTs / 100) % 8, commitTs, seq, row.keyHash(), row.bytes());
      }
      batch.putTimeMark(commitTs, commitTs);
      batch.setPosition(new SourcePosition(commitTs, commitTs + 50));
      batch.setResolvedTs(commitTs);
    }
    store.write(batch, sync);
    written.rows += (long) txnsPerBatch * ROWS_PER_TXN;
  }
}
