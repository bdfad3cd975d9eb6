package dev.sluice.schema;

import static dev.sluice.schema.Tables.change;
import static dev.sluice.schema.Tables.create;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store's behaviour on small, hand-written histories; the error cases are in SchemaStoreErrorsTest. */
class RocksSchemaStoreTest {

  @TempDir
  Path dir;

  private final MeterRegistry registry = new SimpleMeterRegistry();
  private RocksSchemaStore store;

  @BeforeEach
  void open() {
    store = RocksSchemaStore.open(SchemaStoreConfig.at(dir), registry);
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void tableInfoAtReturnsTheNewestVersionAtOrBelowTheTs() {
    DdlEvent v1 = create(1000, 7, "orders");
    DdlEvent v2 = change(2000, DdlType.ADD_COLUMN, Tables.withColumn(v1.tableInfoAfter(), "note"));
    store.apply(v1);
    store.apply(v2);

    assertThat(store.tableInfoAt(7, 1000)).isEqualTo(v1.tableInfoAfter());
    assertThat(store.tableInfoAt(7, 1999)).isEqualTo(v1.tableInfoAfter());
    assertThat(store.tableInfoAt(7, 2000)).isEqualTo(v2.tableInfoAfter());
    assertThat(store.tableInfoAt(7, Long.MAX_VALUE)).isEqualTo(v2.tableInfoAfter());
    assertThat(store.lastDdlTs()).isEqualTo(2000);
  }

  @Test
  void renameKeepsTheIdAndMovesTheName() {
    DdlEvent created = create(1000, 7, "orders");
    store.apply(created);
    store.apply(change(2000, DdlType.RENAME_TABLE, Tables.renamed(created.tableInfoAfter(), "orders_old")));

    assertThat(store.tableInfoAt(7, 2000).tableName()).isEqualTo("orders_old");
    assertThat(store.tableByName("public", "orders", 1500).tableId()).isEqualTo(7);
    assertThat(store.tableByName("public", "orders_old", 2000).tableId()).isEqualTo(7);
    assertThatThrownBy(() -> store.tableByName("public", "orders", 2000)).isInstanceOf(UnknownTableException.class);
  }

  @Test
  void recreatedTableGetsItsOwnHistoryUnderTheOldName() {
    DdlEvent first = create(1000, 7, "orders");
    store.apply(first);
    store.apply(change(2000, DdlType.DROP_TABLE, first.tableInfoAfter()));
    store.apply(create(3000, 8, "orders", "note"));

    assertThat(store.tableByName("public", "orders", 1500).tableId()).isEqualTo(7);
    assertThat(store.tableByName("public", "orders", 3000).tableId()).isEqualTo(8);
    assertThat(store.tableByName("public", "orders", 0).tableId()).isEqualTo(8);
    assertThatThrownBy(() -> store.tableByName("public", "orders", 2500)).isInstanceOf(UnknownTableException.class);
    assertThat(store.tablesAt(1500)).extracting(TableInfo::tableId).containsExactly(7L);
    assertThat(store.tablesAt(2500)).isEmpty();
    assertThat(store.tablesAt(3000)).extracting(TableInfo::tableId).containsExactly(8L);
  }

  @Test
  void truncateMakesANewVersionWithTheSameColumnsAndAnEvent() {
    DdlEvent created = create(1000, 7, "orders", "note");
    DdlEvent truncate = change(2000, DdlType.TRUNCATE_TABLE, created.tableInfoAfter());
    store.apply(created);
    store.apply(truncate);
    store.advanceResolvedTs(2000);

    assertThat(store.tableInfoAt(7, 2000).version()).isEqualTo(2000);
    assertThat(store.tableInfoAt(7, 2000).columns()).isEqualTo(created.tableInfoAfter().columns());
    assertThat(store.ddlEvents(7, 1000, 2000)).containsExactly(truncate);
  }

  @Test
  void ddlEventsStopAtTheResolvedTs() {
    DdlEvent v1 = create(1000, 7, "orders");
    DdlEvent v2 = change(2000, DdlType.ADD_COLUMN, Tables.withColumn(v1.tableInfoAfter(), "a"));
    DdlEvent v3 = change(3000, DdlType.ADD_COLUMN, Tables.withColumn(v2.tableInfoAfter(), "b"));
    DdlEvent other = create(2500, 9, "items");
    store.apply(v1);
    store.apply(v2);
    store.apply(other);
    store.apply(v3);
    store.advanceResolvedTs(2999);

    assertThat(store.ddlEvents(7, 0, Long.MAX_VALUE)).containsExactly(v1, v2);
    assertThat(store.ddlEvents(7, 1000, 2000)).containsExactly(v2);
    assertThat(store.ddlEvents(7, 2000, 2999)).isEmpty();
    assertThat(store.ddlEvents(404, 0, Long.MAX_VALUE)).isEmpty();
    assertThat(store.allDdlEvents(0, Long.MAX_VALUE)).containsExactly(v1, v2, other);
    store.advanceResolvedTs(3000);
    assertThat(store.ddlEvents(7, 2000, 3000)).containsExactly(v3);
    assertThat(store.allDdlEvents(2000, 3000)).containsExactly(other, v3);
  }

  @Test
  void resolvedTsNeverMovesBackwards() {
    store.advanceResolvedTs(500);
    store.advanceResolvedTs(400);
    assertThat(store.resolvedTs()).isEqualTo(500);
  }

  @Test
  void reopenedStoreHoldsTheSameHistory() {
    DdlEvent v1 = create(1000, 7, "orders");
    DdlEvent v2 = change(2000, DdlType.RENAME_TABLE, Tables.renamed(v1.tableInfoAfter(), "orders2"));
    DdlEvent drop = change(3000, DdlType.DROP_TABLE, v2.tableInfoAfter());
    store.apply(v1);
    store.apply(v2);
    store.apply(drop);
    store.advanceResolvedTs(3500);
    store.close();

    store = RocksSchemaStore.open(SchemaStoreConfig.at(dir), registry);
    assertThat(store.lastDdlTs()).isEqualTo(3000);
    assertThat(store.resolvedTs()).isEqualTo(3500);
    assertThat(store.tableInfoAt(7, 2500)).isEqualTo(v2.tableInfoAfter());
    assertThat(store.tableByName("public", "orders", 1000)).isEqualTo(v1.tableInfoAfter());
    assertThat(store.allDdlEvents(0, Long.MAX_VALUE)).containsExactly(v1, v2, drop);
    assertThatThrownBy(() -> store.tableInfoAt(7, 3000)).isInstanceOf(TableDroppedException.class);
  }

  @Test
  void gcKeepsTheVersionInForceAtTheGcPointAndDropsOlderOnes() {
    DdlEvent v1 = create(1000, 7, "orders");
    DdlEvent v2 = change(2000, DdlType.ADD_COLUMN, Tables.withColumn(v1.tableInfoAfter(), "a"));
    DdlEvent v3 = change(3000, DdlType.ADD_COLUMN, Tables.withColumn(v2.tableInfoAfter(), "b"));
    store.apply(v1);
    store.apply(v2);
    store.apply(v3);
    store.advanceResolvedTs(4000);
    store.gc(2500);

    assertThat(store.gcTs()).isEqualTo(2500);
    assertThat(store.tableInfoAt(7, 2500)).isEqualTo(v2.tableInfoAfter());
    assertThat(store.tableInfoAt(7, 3000)).isEqualTo(v3.tableInfoAfter());
    assertThat(store.ddlEvents(7, 2500, 4000)).containsExactly(v3);
    assertThat(gauge("sluice.schema.versions")).isEqualTo(2);
    store.close();

    store = RocksSchemaStore.open(SchemaStoreConfig.at(dir), registry);
    assertThat(store.gcTs()).isEqualTo(2500);
    assertThat(store.tableInfoAt(7, 2500)).isEqualTo(v2.tableInfoAfter());
    assertThat(store.allDdlEvents(2500, 4000)).containsExactly(v3);
    assertThat(gauge("sluice.schema.versions")).isEqualTo(2);
  }

  @Test
  void gcIsClampedToTheResolvedTsAndNeverMovesBackwards() {
    store.apply(create(1000, 7, "orders"));
    store.advanceResolvedTs(1500);
    store.gc(5000);
    assertThat(store.gcTs()).isEqualTo(1500);
    store.gc(1200);
    assertThat(store.gcTs()).isEqualTo(1500);
  }

  @Test
  void uncachedStoreReadsEveryLookupFromRocksDb() {
    store.close();
    store = RocksSchemaStore.open(SchemaStoreConfig.at(dir).withCacheMaxEntries(0), registry);
    DdlEvent v1 = create(1000, 7, "orders");
    store.apply(v1);

    assertThat(store.tableInfoAt(7, 1000)).isEqualTo(v1.tableInfoAfter());
    assertThat(store.tableInfoAt(7, 1000)).isEqualTo(v1.tableInfoAfter());
    assertThat(cacheGets("hit")).isZero();
    assertThat(cacheGets("miss")).isEqualTo(2);
  }

  @Test
  void metricsCountDdlsCacheHitsAndMissesAndShowTheTs() {
    store.apply(create(1000, 7, "orders"));
    store.apply(create(1100, 8, "items"));
    store.advanceResolvedTs(1200);
    store.tableInfoAt(7, 1000);
    store.tableInfoAt(7, 1100);
    store.tableInfoAt(7, 1200);

    assertThat(registry.get("sluice.schema.ddl.applied").counter().count()).isEqualTo(2);
    assertThat(registry.get("sluice.schema.apply.duration").timer().count()).isEqualTo(2);
    assertThat(gauge("sluice.schema.resolved.ts")).isEqualTo(1200);
    assertThat(gauge("sluice.schema.last.ddl.ts")).isEqualTo(1100);
    assertThat(gauge("sluice.schema.versions")).isEqualTo(2);
    assertThat(gauge("sluice.schema.tables")).isEqualTo(2);
    assertThat(cacheGets("miss")).isEqualTo(1);
    assertThat(cacheGets("hit")).isEqualTo(2);
  }

  @Test
  void closeRemovesTheMetersSoAReopenedStoreOwnsThem() {
    store.close();
    assertThat(registry.find("sluice.schema.resolved.ts").gauges()).isEmpty();
    assertThat(registry.find("cache.gets").tag("cache", "schema_table_info").meters()).isEmpty();

    store = RocksSchemaStore.open(SchemaStoreConfig.at(dir), registry);
    store.advanceResolvedTs(77);
    assertThat(gauge("sluice.schema.resolved.ts")).isEqualTo(77);
  }

  @Test
  void resultListsAreUnmodifiable() {
    store.apply(create(1000, 7, "orders"));
    store.advanceResolvedTs(1000);
    List<DdlEvent> events = store.ddlEvents(7, 0, 1000);
    assertThatThrownBy(() -> events.add(events.get(0))).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> store.tablesAt(1000).clear()).isInstanceOf(UnsupportedOperationException.class);
  }

  private double gauge(String name) {
    return registry.get(name).gauge().value();
  }

  private double cacheGets(String result) {
    return registry.get("cache.gets").tag("cache", "schema_table_info").tag("result", result)
        .functionCounter().count();
  }
}
