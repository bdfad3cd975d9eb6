package dev.sluice.broker.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class EventStoreConfigTest {

  private static final EventStoreConfig DEFAULTS = EventStoreConfig.defaults(Path.of("data/store"));

  @Test
  void defaultsAreTheDocumentedConstants() {
    assertThat(DEFAULTS.rowsCompression()).isEqualTo(EventStoreConfig.DEFAULT_ROWS_COMPRESSION);
    assertThat(DEFAULTS.blockCacheBytes()).isEqualTo(256L << 20);
    assertThat(DEFAULTS.writeBufferBytes()).isEqualTo(64L << 20);
    assertThat(DEFAULTS.maxWriteBuffers()).isEqualTo(EventStoreConfig.DEFAULT_MAX_WRITE_BUFFERS);
    assertThat(DEFAULTS.blockSizeBytes()).isEqualTo(16 << 10);
    assertThat(DEFAULTS.backgroundJobs()).isEqualTo(EventStoreConfig.DEFAULT_BACKGROUND_JOBS);
    assertThat(DEFAULTS.walDir()).isNull();
    assertThat(DEFAULTS.effectiveWalDir()).isEqualTo(DEFAULTS.dataDir());
  }

  @Test
  void walDirIsKeptByTheOtherWithers() {
    EventStoreConfig config = DEFAULTS.withWalDir(Path.of("/mnt/wal")).withBlockCacheBytes(8L << 20)
        .withDataDir(Path.of("data/other")).withRowsCompression(EventStoreConfig.Compression.ZSTD);

    assertThat(config.walDir()).isEqualTo(Path.of("/mnt/wal"));
    assertThat(config.effectiveWalDir()).isEqualTo(Path.of("/mnt/wal"));
  }

  @Test
  void walDirMustNotBeTheDataDirHoweverSpelled() {
    for (Path same : List.of(Path.of("data/store"), Path.of("data/./store/"), Path.of("data/x/../store"),
        Path.of("data/store").toAbsolutePath())) {
      assertThatThrownBy(() -> DEFAULTS.withWalDir(same)).as("%s", same)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("store.walDir must be a directory other than store.dataDir, got " + same
              + " (store.dataDir data/store); leave walDir unset to keep the WAL in the data directory");
    }
    assertThatThrownBy(() -> DEFAULTS.withWalDir(Path.of("/mnt/wal")).withDataDir(Path.of("/mnt/wal/")))
        .hasMessageContaining("store.walDir must be a directory other than store.dataDir");
  }

  static Stream<Arguments> invalidValues() {
    return Stream.of(
        Arguments.of((UnaryOperator<EventStoreConfig>) c -> c.withBlockCacheBytes(1000),
            "store.blockCacheBytes must be >= 1048576 (1 MiB), got 1000"),
        Arguments.of((UnaryOperator<EventStoreConfig>) c -> c.withWriteBufferBytes(2L << 30),
            "store.writeBufferBytes must be in [1 MiB, 1 GiB], got 2147483648"),
        Arguments.of((UnaryOperator<EventStoreConfig>) c -> c.withBlockSizeBytes(512),
            "store.blockSizeBytes must be in [1024, 1048576], got 512"),
        Arguments.of((UnaryOperator<EventStoreConfig>) c -> new EventStoreConfig(c.dataDir(), c.rowsCompression(),
            c.blockCacheBytes(), c.writeBufferBytes(), 1, c.blockSizeBytes(), c.backgroundJobs()),
            "store.maxWriteBuffers must be in [2, 16], got 1"),
        Arguments.of((UnaryOperator<EventStoreConfig>) c -> new EventStoreConfig(c.dataDir(), c.rowsCompression(),
            c.blockCacheBytes(), c.writeBufferBytes(), c.maxWriteBuffers(), c.blockSizeBytes(), 0),
            "store.backgroundJobs must be in [1, 32], got 0"),
        Arguments.of((UnaryOperator<EventStoreConfig>) c -> c.withRowsCompression(null),
            "store.rowsCompression must be set"));
  }

  @ParameterizedTest
  @MethodSource("invalidValues")
  void invalidValueIsRejectedNamingKeyAndValue(UnaryOperator<EventStoreConfig> change, String message) {
    assertThatThrownBy(() -> change.apply(DEFAULTS)).hasMessage(message);
  }

  @Test
  void everyCompressionOpensAStore(@org.junit.jupiter.api.io.TempDir Path dir) {
    for (EventStoreConfig.Compression c : EventStoreConfig.Compression.values()) {
      EventStoreConfig config = EventStoreConfig.defaults(dir.resolve(c.name())).withRowsCompression(c);
      try (RocksEventStore store = RocksEventStore.open(config, new io.micrometer.core.instrument.simple.SimpleMeterRegistry())) {
        StoreBatch batch = store.newBatch();
        batch.putRow(1, 1, 0, 0, new byte[] {1});
        store.write(batch, false);
        assertThat(store.lastCommitTs(1)).isEqualTo(1);
      }
    }
  }
}
