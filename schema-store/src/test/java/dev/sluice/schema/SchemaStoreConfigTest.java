package dev.sluice.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class SchemaStoreConfigTest {

  @Test
  void atUsesTheDefaults() {
    SchemaStoreConfig config = SchemaStoreConfig.at(Path.of("data/schema"));
    assertThat(config.cacheMaxEntries()).isEqualTo(SchemaStoreConfig.DEFAULT_CACHE_MAX_ENTRIES);
    assertThat(config.syncWrites()).isEqualTo(SchemaStoreConfig.DEFAULT_SYNC_WRITES).isTrue();
  }

  @Test
  void withersChangeOneSetting() {
    SchemaStoreConfig config = SchemaStoreConfig.at(Path.of("d")).withCacheMaxEntries(0).withSyncWrites(false);
    assertThat(config).isEqualTo(new SchemaStoreConfig(Path.of("d"), 0, false));
  }

  @Test
  void negativeCacheSizeIsRejectedWithKeyAndValue() {
    assertThatThrownBy(() -> SchemaStoreConfig.at(Path.of("d")).withCacheMaxEntries(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("schema-store cacheMaxEntries must be >= 0, got -1");
  }

  @Test
  void missingDirectoryIsRejected() {
    assertThatThrownBy(() -> SchemaStoreConfig.at(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("schema-store dataDir must be set");
  }
}
