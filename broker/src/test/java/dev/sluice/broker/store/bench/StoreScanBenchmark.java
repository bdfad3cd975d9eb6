package dev.sluice.broker.store.bench;

import dev.sluice.api.TableSpan;
import dev.sluice.broker.store.EventStoreConfig;
import dev.sluice.broker.store.RocksEventStore;
import dev.sluice.broker.store.RowScan;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Catch-up scan speed of the event store, in rows per second: a whole-table {@code scan()} of
 * {@link ScanData#ROWS} rows, and a quarter-span scan of the same table (rows examined per second;
 * a quarter of them are returned). Compare with {@link RawScanBenchmark}, a bare RocksIterator over
 * the same data in the same run.
 *
 * <pre>
 * scripts/bench-event-store.sh      # runs this with RawScanBenchmark and GroupCommitBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(ScanData.ROWS)
public class StoreScanBenchmark {

  @Param({"LZ4", "NONE", "SNAPPY"})
  public EventStoreConfig.Compression compression;

  private RocksEventStore store;
  private TableSpan whole;
  private TableSpan quarter;

  @Setup(Level.Trial)
  public void open() throws Exception {
    store = RocksEventStore.open(ScanData.config(ScanData.prepare(compression), compression), new SimpleMeterRegistry());
    whole = TableSpan.wholeTable(ScanData.TABLE);
    quarter = whole.split(4).get(1);
  }

  @TearDown(Level.Trial)
  public void close() {
    store.close();
  }

  @Benchmark
  public long fullScan(Blackhole bh) {
    long rows = 0;
    try (RowScan scan = store.scan(whole, 0, store.resolvedTs(), null)) {
      while (scan.next()) {
        bh.consume(scan.commitTs());
        bh.consume(scan.rowSeq());
        bh.consume(scan.rowChange());
        rows++;
      }
    }
    return check(rows, ScanData.ROWS);
  }

  @Benchmark
  public long spanScan(Blackhole bh) {
    long rows = 0;
    try (RowScan scan = store.scan(quarter, 0, store.resolvedTs(), null)) {
      while (scan.next()) {
        bh.consume(scan.commitTs());
        bh.consume(scan.rowSeq());
        bh.consume(scan.rowChange());
        rows++;
      }
    }
    if (rows < ScanData.ROWS / 5 || rows > ScanData.ROWS / 3) {
      throw new IllegalStateException("quarter span returned " + rows + " of " + ScanData.ROWS + " rows");
    }
    return rows;
  }

  static long check(long rows, long expected) {
    if (rows != expected) {
      throw new IllegalStateException("scanned " + rows + " rows, expected " + expected);
    }
    return rows;
  }
}
