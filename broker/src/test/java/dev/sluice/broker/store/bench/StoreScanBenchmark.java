package dev.sluice.broker.store.bench;

import dev.sluice.api.TableSpan;
import dev.sluice.broker.store.EventStoreConfig;
import dev.sluice.broker.store.RocksEventStore;
import dev.sluice.broker.store.RowScan;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * What span filtering costs: each invocation scans {@link ScanData#ROWS} rows of one table through
 * {@code scan()} twice, in alternating order: the whole table, and a quarter span (rows outside it are
 * skipped on the key's hash, their values never read). The {@code *Nanos} counters give each scan's
 * time; the script reports rows examined per second for both.
 *
 * <pre>
 * scripts/bench-event-store.sh      # runs this with ScanVersusRawBenchmark and GroupCommitBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(2 * ScanData.ROWS)
public class StoreScanBenchmark {

  @Param({"LZ4", "NONE", "SNAPPY"})
  public EventStoreConfig.Compression compression;

  private RocksEventStore store;
  private TableSpan whole;
  private TableSpan quarter;
  private int invocation;

  /** Time spent in each scan and the rows the span scan returned, summed over an iteration. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class ScanNanos {
    public long wholeNanos;
    public long spanNanos;
    public long spanRows;
    /** Invocations: each scan examined {@link ScanData#ROWS} rows this many times. */
    public long rounds;

    @Setup(Level.Iteration)
    public void reset() {
      wholeNanos = 0;
      spanNanos = 0;
      spanRows = 0;
      rounds = 0;
    }
  }

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
  public void wholeAndSpanScans(ScanNanos nanos, Blackhole bh) {
    boolean spanFirst = (invocation++ & 1) == 1;
    nanos.rounds++;
    for (int i = 0; i < 2; i++) {
      long start = System.nanoTime();
      if ((i == 0) == spanFirst) {
        long rows = scan(quarter, bh);
        nanos.spanNanos += System.nanoTime() - start;
        nanos.spanRows += rows;
        if (rows < ScanData.ROWS / 5 || rows > ScanData.ROWS / 3) {
          throw new IllegalStateException("quarter span returned " + rows + " of " + ScanData.ROWS + " rows");
        }
      } else {
        check(scan(whole, bh), ScanData.ROWS);
        nanos.wholeNanos += System.nanoTime() - start;
      }
    }
  }

  private long scan(TableSpan span, Blackhole bh) {
    long rows = 0;
    try (RowScan scan = store.scan(span, 0, store.resolvedTs(), null)) {
      while (scan.next()) {
        bh.consume(scan.commitTs());
        bh.consume(scan.rowSeq());
        bh.consume(scan.rowChange());
        rows++;
      }
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
