package dev.sluice.schema;

import static dev.sluice.schema.Tables.change;
import static dev.sluice.schema.Tables.create;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * One transaction's DDLs in one apply: several tables share its commit ts (a transaction may change
 * any number of tables, while commit ts are only a few dozen apart), stored whole or not at all.
 */
class TransactionApplyTest {

  @TempDir
  Path dir;

  private RocksSchemaStore store;

  @BeforeEach
  void open() {
    store = RocksSchemaStore.open(SchemaStoreConfig.at(dir), new SimpleMeterRegistry());
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void manyTablesShareOneCommitTs() {
    List<DdlEvent> created = LongStream.rangeClosed(1, 100).mapToObj(id -> create(1000, id, "t" + id)).toList();
    store.apply(created);
    List<DdlEvent> truncated = created.stream()
        .map(c -> change(1040, DdlType.TRUNCATE_TABLE, c.tableInfoAfter())).toList();
    store.apply(truncated);
    store.advanceResolvedTs(1040);

    assertThat(store.lastDdlTs()).isEqualTo(1040);
    assertThat(store.tablesAt(1000)).hasSize(100);
    assertThat(store.tableInfoAt(42, 1039).version()).isEqualTo(1000);
    assertThat(store.tableInfoAt(42, 1040).version()).isEqualTo(1040);
    assertThat(store.ddlEvents(42, 0, 1040)).extracting(DdlEvent::type)
        .containsExactly(DdlType.CREATE_TABLE, DdlType.TRUNCATE_TABLE);
    assertThat(store.allDdlEvents(1000, 1040)).extracting(DdlEvent::tableId)
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 100).boxed().toList());

    store.close();
    store = RocksSchemaStore.open(SchemaStoreConfig.at(dir), new SimpleMeterRegistry());
    assertThat(store.ddlEvents(42, 0, 1040)).extracting(DdlEvent::commitTs).containsExactly(1000L, 1040L);
    assertThat(store.allDdlEvents(0, 1040)).hasSize(200);
  }

  @Test
  void aTableMayChangeTwiceInOneApplyAtTwoTs() {
    DdlEvent staging = create(1000, 7, "staging");
    store.apply(staging);
    store.apply(List.of(change(1039, DdlType.TRUNCATE_TABLE, staging.tableInfoAfter()),
        change(1040, DdlType.ADD_COLUMN, Tables.withColumn(staging.tableInfoAfter(), "b")),
        create(1040, 8, "other")));
    store.advanceResolvedTs(1040);

    assertThat(store.ddlEvents(7, 1000, 1040)).extracting(DdlEvent::type, DdlEvent::commitTs)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(DdlType.TRUNCATE_TABLE, 1039L),
            org.assertj.core.groups.Tuple.tuple(DdlType.ADD_COLUMN, 1040L));
  }

  @Test
  void laterDdlsAreCheckedAgainstTheEarlierOnesOfTheSameApply() {
    DdlEvent old = create(1000, 7, "orders");
    store.apply(old);
    store.apply(List.of(change(2000, DdlType.DROP_TABLE, old.tableInfoAfter()), create(2000, 8, "orders")));

    assertThat(store.tableByName("public", "orders", 2000).tableId()).isEqualTo(8);
    assertThatThrownBy(() -> store.apply(List.of(create(3000, 9, "items"), create(3000, 10, "items"))))
        .isInstanceOf(InvalidDdlException.class)
        .hasMessageContaining("on table public.items (id 10) is invalid: the name public.items is held by the live table id 9");
  }

  @Test
  void aTableHasAtMostOneDdlPerTs() {
    DdlEvent t = create(1000, 7, "orders");
    store.apply(t);
    assertThatThrownBy(() -> store.apply(List.of(change(2000, DdlType.TRUNCATE_TABLE, t.tableInfoAfter()),
        change(2000, DdlType.ADD_COLUMN, Tables.withColumn(t.tableInfoAfter(), "b")))))
        .isInstanceOf(InvalidDdlException.class)
        .hasMessageContaining("is invalid: the same apply has a DDL of this table at ts 2000; "
            + "a table has at most one DDL per commit ts");
    assertThat(store.lastDdlTs()).isEqualTo(1000);
  }

  @Test
  void anInvalidDdlLeavesTheWholeApplyUnapplied() {
    assertThatThrownBy(() -> store.apply(List.of(create(1000, 7, "orders"),
        change(1000, DdlType.ADD_COLUMN, Tables.table(8, "unknown", 0, "a")))))
        .isInstanceOf(InvalidDdlException.class);
    assertThat(store.lastDdlTs()).isZero();
    assertThatThrownBy(() -> store.tableInfoAt(7, 1000)).isInstanceOf(UnknownTableException.class);

    store.close();
    store = RocksSchemaStore.open(SchemaStoreConfig.at(dir), new SimpleMeterRegistry());
    assertThat(store.tablesAt(Long.MAX_VALUE)).isEmpty();
  }

  @Test
  void anApplyGoingDownInTsIsOutOfOrder() {
    assertThatThrownBy(() -> store.apply(List.of(create(2000, 7, "orders"), create(1999, 8, "items"))))
        .isInstanceOf(DdlOutOfOrderException.class)
        .hasMessageStartingWith("DDL at commit ts 1999 is not above the last applied ts 2000;");
    assertThat(store.lastDdlTs()).isZero();
  }

  @Test
  void aStoreWithTheFormerTsOnlyDdlKeysIsUpgradedOnOpen() throws Exception {
    DdlEvent orders = create(1000, 7, "orders");
    store.apply(orders);
    store.apply(change(2000, DdlType.ADD_COLUMN, Tables.withColumn(orders.tableInfoAfter(), "note")));
    store.advanceResolvedTs(2000);
    store.close();
    downgradeToTsOnlyDdlKeys(dir);

    store = RocksSchemaStore.open(SchemaStoreConfig.at(dir), new SimpleMeterRegistry());
    assertThat(store.ddlEvents(7, 0, 2000)).extracting(DdlEvent::commitTs).containsExactly(1000L, 2000L);
    assertThat(store.allDdlEvents(0, 2000)).hasSize(2);
    store.apply(List.of(create(3000, 8, "a"), create(3000, 9, "b")));
    store.close();
    store = RocksSchemaStore.open(SchemaStoreConfig.at(dir), new SimpleMeterRegistry());
    assertThat(store.ddlEvents(7, 0, 2000)).hasSize(2);
  }

  /** Rewrites the store as format 1 wrote it: DDL keys are the commit ts alone. */
  private static void downgradeToTsOnlyDdlKeys(Path path) throws Exception {
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    for (String cf : List.of("default", SchemaDb.CF_VERSIONS, SchemaDb.CF_DDL, SchemaDb.CF_META)) {
      descriptors.add(new ColumnFamilyDescriptor(cf.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (DBOptions options = new DBOptions();
        RocksDB db = RocksDB.open(options, path.toString(), descriptors, handles);
        WriteBatch batch = new WriteBatch(); WriteOptions write = new WriteOptions()) {
      try (RocksIterator it = db.newIterator(handles.get(2))) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          batch.delete(handles.get(2), it.key());
          batch.put(handles.get(2), java.util.Arrays.copyOf(it.key(), 8), it.value());
        }
      }
      batch.put(handles.get(3), SchemaKeys.FORMAT_VERSION, ByteBuffer.allocate(4).putInt(1).array());
      db.write(write, batch);
      handles.forEach(ColumnFamilyHandle::close);
    }
  }
}
