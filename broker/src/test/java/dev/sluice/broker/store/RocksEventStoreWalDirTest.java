package dev.sluice.broker.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.api.TableSpan;
import dev.sluice.api.error.ErrorCode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocksEventStoreWalDirTest {

  @TempDir
  Path dir;

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private EventStoreConfig config(Path walDir) {
    return EventStoreConfig.defaults(dir.resolve("data")).withBlockCacheBytes(8L << 20)
        .withWriteBufferBytes(4L << 20).withWalDir(walDir);
  }

  /** Opens the store, writes one synced transaction at {@code commitTs} (not flushed to SST) and closes it. */
  private List<ScannedRow> writeAndClose(EventStoreConfig config, long commitTs) {
    try (RocksEventStore store = RocksEventStore.open(config, registry)) {
      return write(store, commitTs);
    }
  }

  private static List<ScannedRow> write(RocksEventStore store, long commitTs) {
    List<ScannedRow> rows = List.of(ScannedRow.of(1, commitTs, 0, 7), ScannedRow.of(1, commitTs, 1, 8));
    StoreBatch batch = store.newBatch();
    rows.forEach(r -> r.putInto(batch));
    batch.setPosition(new SourcePosition(commitTs, commitTs + 1));
    batch.setResolvedTs(commitTs);
    store.write(batch, true);
    return rows;
  }

  private List<ScannedRow> readAll(EventStoreConfig config) {
    try (RocksEventStore store = RocksEventStore.open(config, registry)) {
      return ScannedRow.drain(store.scan(TableSpan.wholeTable(1), 0, Long.MAX_VALUE, null));
    }
  }

  /** Non-empty {@code *.log} files of {@code d}: the WAL files holding writes. */
  private static List<String> walFiles(Path d) throws IOException {
    try (Stream<Path> files = Files.list(d)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".log"))
          .filter(p -> p.toFile().length() > 0).map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void syncedWritesGoToTheWalDirAndAReopenWithItSeesThem() throws IOException {
    Path walDir = dir.resolve("wal");   // missing: the store creates it
    EventStoreConfig config = config(walDir);
    List<ScannedRow> rows;
    try (RocksEventStore store = RocksEventStore.open(config, registry)) {
      rows = write(store, 10);
      assertThat(walFiles(walDir)).isNotEmpty();
      try (Stream<Path> files = Files.list(config.dataDir())) {
        assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".log"));
      }
    }

    assertThat(readAll(config)).containsExactlyElementsOf(rows);
  }

  @Test
  void settingAWalDirOverUnflushedWritesIsRefusedAndLosesNothing() throws IOException {
    EventStoreConfig before = config(null);
    List<ScannedRow> rows = writeAndClose(before, 10);
    Path walDir = dir.resolve("wal");

    WalDirChangedException e = catchThrowableOfType(() -> RocksEventStore.open(config(walDir), registry),
        WalDirChangedException.class);

    assertThat(e.code()).isEqualTo(ErrorCode.STORE_CORRUPT);
    assertThat(e.foundIn()).isEqualTo(before.dataDir());
    assertThat(e.walDir()).isEqualTo(walDir);
    assertThat(e).hasMessageContaining(before.dataDir().toString()).hasMessageContaining(walDir.toString())
        .hasMessageContaining("move the *.log files");
    assertThat(readAll(before)).as("the old setting still sees the writes").containsExactlyElementsOf(rows);
  }

  @Test
  void movingTheWalFilesIsTheWayToANewWalDir() throws IOException {
    EventStoreConfig before = config(null);
    List<ScannedRow> rows = writeAndClose(before, 10);
    Path walDir = Files.createDirectories(dir.resolve("wal"));

    for (String name : walFiles(before.dataDir())) {
      Files.move(before.dataDir().resolve(name), walDir.resolve(name));
    }

    assertThat(readAll(config(walDir))).containsExactlyElementsOf(rows);
  }

  @Test
  void unsettingOrChangingTheWalDirOverUnflushedWritesIsRefused() {
    Path walDir = dir.resolve("wal");
    List<ScannedRow> rows = writeAndClose(config(walDir), 10);
    Path other = dir.resolve("other-wal");

    WalDirChangedException unset = catchThrowableOfType(() -> RocksEventStore.open(config(null), registry),
        WalDirChangedException.class);
    WalDirChangedException changed = catchThrowableOfType(() -> RocksEventStore.open(config(other), registry),
        WalDirChangedException.class);

    assertThat(unset.foundIn()).isEqualTo(walDir.toAbsolutePath());
    assertThat(unset.walDir()).isEqualTo(config(null).dataDir());
    assertThat(unset).hasMessageContaining("set eventStore.walDir back to " + walDir.toAbsolutePath());
    assertThat(changed.foundIn()).isEqualTo(walDir.toAbsolutePath());
    assertThat(changed.walDir()).isEqualTo(other);
    assertThat(readAll(config(walDir))).containsExactlyElementsOf(rows);
  }

  @Test
  void aSecondStoreIsRefusedTheWalDirWhileTheFirstHasItOpen() {
    Path walDir = dir.resolve("wal");
    EventStoreConfig first = config(walDir);
    EventStoreConfig second = config(walDir).withDataDir(dir.resolve("data-2"));
    List<ScannedRow> rows;
    try (RocksEventStore store = RocksEventStore.open(first, registry)) {
      rows = write(store, 10);

      WalDirInUseException e = catchThrowableOfType(() -> RocksEventStore.open(second, registry),
          WalDirInUseException.class);

      assertThat(e.code()).isEqualTo(ErrorCode.STORE_CORRUPT);
      assertThat(e.walDir()).isEqualTo(walDir);
      assertThat(e).hasMessageContaining("another event store has it open")
          .hasMessageContaining(second.dataDir().toString());
      assertThat(ScannedRow.drain(store.scan(TableSpan.wholeTable(1), 0, Long.MAX_VALUE, null)))
          .containsExactlyElementsOf(rows);
    }
    assertThat(readAll(first)).containsExactlyElementsOf(rows);
  }

  @Test
  void aWalDirThatHoldsAnotherStoresWalIsRefusedAfterThatStoreClosed() {
    Path walDir = dir.resolve("wal");
    EventStoreConfig first = config(walDir);
    List<ScannedRow> rows = writeAndClose(first, 10);   // its last writes live only in walDir's *.log files
    EventStoreConfig second = config(walDir).withDataDir(dir.resolve("data-2"));

    WalDirInUseException e = catchThrowableOfType(() -> RocksEventStore.open(second, registry),
        WalDirInUseException.class);

    assertThat(e).hasMessageContaining("it holds the WAL of the event store at "
        + first.dataDir().toAbsolutePath().normalize());
    assertThat(readAll(first)).as("the owner still replays its writes").containsExactlyElementsOf(rows);
  }
}
