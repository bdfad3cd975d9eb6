package dev.sluice.schema.bench;

import dev.sluice.api.v1.ValueKind;
import dev.sluice.schema.ColumnInfo;
import dev.sluice.schema.DdlEvent;
import dev.sluice.schema.DdlType;
import dev.sluice.schema.RocksSchemaStore;
import dev.sluice.schema.SchemaStoreConfig;
import dev.sluice.schema.TableInfo;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * How long does the broker wait for the schema store? {@code tableInfoAt} (every handshake and every
 * scanned transaction) on a cache hit and on a miss (RocksDB read + protobuf decode), and
 * {@code ddlEvents} over a range holding 0, 1 or 8 events (every scan task asks; most ranges are empty).
 * The store holds {@value #TABLES} tables with {@value #VERSIONS} versions each, 8 columns wide; lookups
 * cycle through {@value #LOOKUPS} precomputed random (table, ts) pairs. Target: a cache hit under 100 ns
 * median.
 *
 * <p>Run from the repository root (or {@code scripts/bench-schema-store.sh}, which also writes the
 * figures into {@code docs/BENCHMARKS.md}):
 * <pre>
 * mvn -B -q -pl schema-store -am test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
 * java -cp "schema-store/target/test-classes:schema-store/target/classes:$(cat schema-store/target/bench.cp)" \
 *     org.openjdk.jmh.Main SchemaStoreBenchmark -f 1 -wi 3 -w 2s -i 5 -r 3s -prof gc
 * </pre>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
@State(Scope.Benchmark)
public class SchemaStoreBenchmark {

  static final int TABLES = 1_000;
  static final int VERSIONS = 8;
  static final int LOOKUPS = 1 << 10;
  private static final int EXTRA_COLUMNS = 7;

  private Path root;
  private RocksSchemaStore cached;
  private RocksSchemaStore uncached;
  /** versionTs[t][v]: commit ts of version v of table t + 1. */
  private long[][] versionTs;
  private final long[] lookupTable = new long[LOOKUPS];
  private final long[] lookupTs = new long[LOOKUPS];

  /** Where the next lookup starts; per thread so threads do not share a counter. */
  @State(Scope.Thread)
  public static class Cursor {
    int next;

    int advance() {
      next = (next + 1) & (LOOKUPS - 1);
      return next;
    }
  }

  /** A ddlEvents range per lookup table holding exactly {@link #eventsInRange} of its events. */
  @State(Scope.Benchmark)
  public static class Ranges {
    @Param({"0", "1", "8"})
    int eventsInRange;
    final long[] from = new long[LOOKUPS];
    final long[] to = new long[LOOKUPS];

    @Setup(Level.Trial)
    public void setUp(SchemaStoreBenchmark bench) {
      for (int i = 0; i < LOOKUPS; i++) {
        long[] versions = bench.versionTs[(int) bench.lookupTable[i] - 1];
        long last = versions[VERSIONS - 1];
        switch (eventsInRange) {
          case 0 -> { from[i] = last; to[i] = last + TABLES; }
          case 1 -> { from[i] = versions[VERSIONS - 2]; to[i] = last; }
          default -> { from[i] = 0; to[i] = Long.MAX_VALUE; }
        }
      }
    }
  }

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    root = Files.createTempDirectory("schema-bench-");
    cached = RocksSchemaStore.open(SchemaStoreConfig.at(root.resolve("cached"))
        .withCacheMaxEntries(TABLES * VERSIONS).withSyncWrites(false), new SimpleMeterRegistry());
    uncached = RocksSchemaStore.open(SchemaStoreConfig.at(root.resolve("uncached"))
        .withCacheMaxEntries(0).withSyncWrites(false), new SimpleMeterRegistry());
    versionTs = new long[TABLES][VERSIONS];
    long ts = 1_000;
    for (int v = 0; v < VERSIONS; v++) {
      for (int t = 0; t < TABLES; t++) {
        ts += 10;
        versionTs[t][v] = ts;
        DdlEvent ddl = ddl(t + 1, v, ts);
        cached.apply(ddl);
        uncached.apply(ddl);
      }
    }
    cached.advanceResolvedTs(ts);
    uncached.advanceResolvedTs(ts);
    Random random = new Random(42);
    for (int i = 0; i < LOOKUPS; i++) {
      int t = random.nextInt(TABLES);
      lookupTable[i] = t + 1;
      lookupTs[i] = versionTs[t][0] + (long) (random.nextDouble() * (ts - versionTs[t][0]));
      cached.tableInfoAt(lookupTable[i], lookupTs[i]);   // warm: every lookup below hits
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    cached.close();
    uncached.close();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  @Benchmark
  public TableInfo tableInfoAtCacheHit(Cursor cursor) {
    int i = cursor.advance();
    return cached.tableInfoAt(lookupTable[i], lookupTs[i]);
  }

  @Benchmark
  public TableInfo tableInfoAtCacheMiss(Cursor cursor) {
    int i = cursor.advance();
    return uncached.tableInfoAt(lookupTable[i], lookupTs[i]);
  }

  @Benchmark
  public List<DdlEvent> ddlEvents(Cursor cursor, Ranges ranges) {
    int i = cursor.advance();
    return cached.ddlEvents(lookupTable[i], ranges.from[i], ranges.to[i]);
  }

  private static DdlEvent ddl(long tableId, int version, long ts) {
    List<ColumnInfo> columns = new ArrayList<>();
    columns.add(ColumnInfo.of("id", "bigint", ValueKind.VALUE_KIND_INT64, false));
    for (int c = 0; c < EXTRA_COLUMNS + version; c++) {
      columns.add(new ColumnInfo("column_" + c, "character varying(64)", ValueKind.VALUE_KIND_STRING, true,
          "''::character varying", ValueKind.VALUE_KIND_UNSPECIFIED));
    }
    TableInfo info = new TableInfo(tableId, "public", "table_" + tableId, columns, List.of("id"), ts);
    DdlType type = version == 0 ? DdlType.CREATE_TABLE : DdlType.ADD_COLUMN;
    return new DdlEvent(ts, type, "ALTER TABLE public.table_" + tableId + " ADD column_" + version + " varchar(64)",
        info, "postgresql");
  }
}
