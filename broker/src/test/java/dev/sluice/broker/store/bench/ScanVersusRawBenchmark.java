package dev.sluice.broker.store.bench;

import dev.sluice.api.TableSpan;
import dev.sluice.broker.store.EventStoreConfig;
import dev.sluice.broker.store.RocksEventStore;
import dev.sluice.broker.store.RowScan;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/**
 * How close {@code scan()} comes to a bare RocksIterator over the same data. Each invocation scans the
 * whole table three times, in rotating order: through the store, through a raw iterator with a new
 * key and value array per row (the plain RocksJava reader), and through a raw iterator that reads the
 * key into one reused array (the least a reader handing out {@code byte[]} values must do). The raw
 * readers open a copy of the data (RocksDB locks a directory to one opener), with the same block
 * cache size. Pairing the three inside each invocation keeps the ratio honest on a shared, noisy
 * machine; the {@code *Nanos} counters give each reader's time, the script turns them into rows/s.
 *
 * <pre>
 * scripts/bench-event-store.sh
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(3 * ScanData.ROWS)
public class ScanVersusRawBenchmark {

  @Param({"LZ4", "NONE", "SNAPPY"})
  public EventStoreConfig.Compression compression;

  private Path copy;
  private RocksEventStore store;
  private RawRows raw;
  private TableSpan whole;
  private byte[] first;
  private Slice upperBound;
  private ReadOptions readOptions;
  private int invocation;

  /** Time spent in each reader, summed over an iteration. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class ReaderNanos {
    public long storeNanos;
    public long rawNewArraysNanos;
    public long rawReusedKeyNanos;
    /** Invocations: each reader scanned {@link ScanData#ROWS} rows this many times. */
    public long rounds;

    @Setup(Level.Iteration)
    public void reset() {
      rounds = 0;
      storeNanos = 0;
      rawNewArraysNanos = 0;
      rawReusedKeyNanos = 0;
    }
  }

  @Setup(Level.Trial)
  public void open() throws Exception {
    Path data = ScanData.prepare(compression);
    copy = data.resolveSibling(data.getFileName() + "-raw-copy");
    copyTree(data, copy);
    store = RocksEventStore.open(ScanData.config(data, compression), new SimpleMeterRegistry());
    raw = RawRows.open(ScanData.config(copy, compression));
    whole = TableSpan.wholeTable(ScanData.TABLE);
    first = ByteBuffer.allocate(8).putLong(ScanData.TABLE).array();
    upperBound = new Slice(ByteBuffer.allocate(8).putLong(ScanData.TABLE + 1).array());
    readOptions = new ReadOptions().setIterateUpperBound(upperBound);
  }

  @TearDown(Level.Trial)
  public void close() throws IOException {
    readOptions.close();
    upperBound.close();
    raw.close();
    store.close();
    ScanData.deleteTree(copy);
  }

  @Benchmark
  public void storeAndRawScans(ReaderNanos nanos, Blackhole bh) {
    int shift = invocation++ % 3;
    nanos.rounds++;
    for (int i = 0; i < 3; i++) {
      int reader = (i + shift) % 3;
      long start = System.nanoTime();
      if (reader == 0) {
        check(storeScan(bh));
        nanos.storeNanos += System.nanoTime() - start;
      } else if (reader == 1) {
        check(rawScanNewArrays(bh));
        nanos.rawNewArraysNanos += System.nanoTime() - start;
      } else {
        check(rawScanReusedKey(bh));
        nanos.rawReusedKeyNanos += System.nanoTime() - start;
      }
    }
  }

  private long storeScan(Blackhole bh) {
    long rows = 0;
    try (RowScan scan = store.scan(whole, 0, store.resolvedTs(), null)) {
      while (scan.next()) {
        bh.consume(scan.commitTs());
        bh.consume(scan.rowSeq());
        bh.consume(scan.keyHash());
        bh.consume(scan.rowChange());
        rows++;
      }
    }
    return rows;
  }

  private long rawScanNewArrays(Blackhole bh) {
    long rows = 0;
    try (RocksIterator it = raw.db().newIterator(raw.rows(), readOptions)) {
      for (it.seek(first); it.isValid(); it.next()) {
        bh.consume(it.key());
        bh.consume(it.value());
        rows++;
      }
    }
    return rows;
  }

  private long rawScanReusedKey(Blackhole bh) {
    long rows = 0;
    byte[] key = new byte[32];
    try (RocksIterator it = raw.db().newIterator(raw.rows(), readOptions)) {
      for (it.seek(first); it.isValid(); it.next()) {
        bh.consume(it.key(key));
        bh.consume(key);
        bh.consume(it.value());
        rows++;
      }
    }
    return rows;
  }

  private static void check(long rows) {
    StoreScanBenchmark.check(rows, ScanData.ROWS);
  }

  private static void copyTree(Path from, Path to) throws IOException {
    ScanData.deleteTree(to);
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : paths.toList()) {
        if (!p.getFileName().toString().equals("LOCK")) {
          Files.copy(p, to.resolve(from.relativize(p).toString()));
        }
      }
    }
  }
}
