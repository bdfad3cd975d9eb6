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
  void aTableHasAtMostOneDdlPerPlaceInItsTransaction() {
    DdlEvent t = create(1000, 7, "orders");
    store.apply(t);
    assertThatThrownBy(() -> store.apply(List.of(change(2000, DdlType.TRUNCATE_TABLE, t.tableInfoAfter()),
        change(2000, DdlType.ADD_COLUMN, Tables.withColumn(t.tableInfoAfter(), "b")))))
        .isInstanceOf(InvalidDdlException.class)
        .hasMessageContaining("is invalid: the same apply has a DDL of this table at or after ts 2000 row seq 0; "
            + "a table's DDLs of one transaction go by ascending row seq");
    assertThat(store.lastDdlTs()).isEqualTo(1000);
  }

  /** Issue #16 (7): ADD COLUMN, rows, SET NOT NULL in one transaction are two versions at one commit ts. */
  @Test
  void oneTransactionChangingATableSeveralTimesKeepsEachVersionAtItsRowSeq() {
    DdlEvent t = create(1000, 7, "person");
    store.apply(t);
    TableInfo added = Tables.withColumn(t.tableInfoAfter(), "first_name");
    TableInfo notNull = new TableInfo(7, "public", "person", added.columns().stream().map(c -> c.name().equals(
        "first_name") ? new ColumnInfo(c.name(), c.sourceType(), c.kind(), false, null, c.elementKind()) : c).toList(),
        List.of("id"), 0);
    List<DdlEvent> migration = List.of(Tables.changeAt(2000, 0, DdlType.ADD_COLUMN, added),
        Tables.changeAt(2000, 3, DdlType.CREATE_TABLE, Tables.table(8, "audit", 2000)),
        Tables.changeAt(2000, 6, DdlType.ALTER_TABLE, notNull));
    store.apply(migration);
    store.advanceResolvedTs(2000);

    for (int reopen = 0; reopen < 2; reopen++) {
      assertThat(store.tableInfoAt(7, 2000)).isEqualTo(migration.get(2).tableInfoAfter());
      assertThat(store.tableInfoBefore(7, 2000, 0)).isEqualTo(t.tableInfoAfter());
      assertThat(store.tableInfoBefore(7, 2000, 1)).isEqualTo(migration.get(0).tableInfoAfter());
      assertThat(store.tableInfoBefore(7, 2000, 6)).isEqualTo(migration.get(0).tableInfoAfter());
      assertThat(store.tableInfoBefore(7, 2000, 7)).isEqualTo(migration.get(2).tableInfoAfter());
      assertThat(store.tableInfoBefore(7, 2000, Long.MAX_VALUE)).isEqualTo(store.tableInfoAt(7, 2000));
      assertThatThrownBy(() -> store.tableInfoBefore(8, 2000, 3)).isInstanceOf(UnknownTableException.class);
      assertThat(store.tableInfoBefore(8, 2000, 4).tableName()).isEqualTo("audit");
      assertThat(store.ddlEvents(7, 1000, 2000)).containsExactly(migration.get(0), migration.get(2));
      assertThat(store.allDdlEvents(1000, 2000)).containsExactlyElementsOf(migration);
      store.close();
      store = RocksSchemaStore.open(SchemaStoreConfig.at(dir), new SimpleMeterRegistry());
    }
    assertThatThrownBy(() -> store.apply(List.of(Tables.changeAt(3000, 5, DdlType.ADD_COLUMN, Tables.withColumn(
        notNull, "x")), Tables.changeAt(3000, 2, DdlType.ADD_COLUMN, Tables.withColumn(Tables.withColumn(notNull, "x"),
        "y"))))).isInstanceOf(DdlOutOfOrderException.class)
        .hasMessageContaining("DDL at commit ts 3000 row seq 2 comes after the DDL at 3000 row seq 5");
  }

  /** A table dropped and another created under its name in one transaction: the drop's place counts. */
  @Test
  void aDropInsideATransactionHidesTheTableOnlyFromItsPlaceOn() {
    DdlEvent t = create(1000, 7, "orders");
    store.apply(t);
    store.apply(List.of(Tables.changeAt(2000, 2, DdlType.DROP_TABLE, t.tableInfoAfter()),
        Tables.changeAt(2000, 3, DdlType.CREATE_TABLE, Tables.table(9, "orders", 2000, "v"))));
    assertThat(store.tableInfoBefore(7, 2000, 2)).isEqualTo(t.tableInfoAfter());
    assertThatThrownBy(() -> store.tableInfoBefore(7, 2000, 3)).isInstanceOf(TableDroppedException.class);
    assertThatThrownBy(() -> store.tableInfoAt(7, 2000)).isInstanceOf(TableDroppedException.class);
    assertThat(store.tableByName("public", "orders", 2000).tableId()).isEqualTo(9);
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
        .hasMessageStartingWith("DDL at commit ts 1999 row seq 0 comes after the DDL at 2000 row seq 0 in one apply");
    assertThat(store.lastDdlTs()).isZero();
  }

  @Test
  void aStoreWithTheFormerTsOnlyDdlKeysIsUpgradedOnOpen() throws Exception {
    upgradesFrom(1);
  }

  /** A store written by the version before row seqs (format 2) opens, its DDLs at row seq 0. */
  @Test
  void aStoreWithoutRowSeqsInItsKeysIsUpgradedOnOpen() throws Exception {
    upgradesFrom(2);
  }

  private void upgradesFrom(int format) throws Exception {
    DdlEvent orders = create(1000, 7, "orders");
    store.apply(orders);
    store.apply(change(2000, DdlType.ADD_COLUMN, Tables.withColumn(orders.tableInfoAfter(), "note")));
    // format 1 held one DDL per commit ts
    store.apply(format == 1 ? List.of(create(2500, 10, "x"), create(2600, 11, "y"))
        : List.of(create(2500, 10, "x"), create(2500, 11, "y")));
    store.advanceResolvedTs(2600);
    store.close();
    downgrade(dir, format);

    store = RocksSchemaStore.open(SchemaStoreConfig.at(dir), new SimpleMeterRegistry());
    assertThat(store.ddlEvents(7, 0, 2000)).extracting(DdlEvent::commitTs).containsExactly(1000L, 2000L);
    assertThat(store.allDdlEvents(0, 2600)).extracting(DdlEvent::tableId).containsExactly(7L, 7L, 10L, 11L);
    assertThat(store.tableInfoAt(7, 2000).columns()).hasSize(2);
    assertThat(store.tableInfoBefore(7, 2000, 1).columns()).hasSize(2);
    assertThat(store.tableInfoBefore(7, 2000, 0).columns()).hasSize(1);
    store.apply(List.of(create(3000, 8, "a"), Tables.changeAt(3000, 4, DdlType.ADD_COLUMN,
        Tables.withColumn(store.tableInfoAt(7, 2000), "late"))));
    store.advanceResolvedTs(3000);
    store.close();
    store = RocksSchemaStore.open(SchemaStoreConfig.at(dir), new SimpleMeterRegistry());
    assertThat(store.ddlEvents(7, 0, 3000)).hasSize(3);
    assertThat(store.tableInfoBefore(7, 3000, 4).columns()).hasSize(2);
    assertThat(store.tableInfoAt(7, 3000).columns()).hasSize(3);
  }

  /**
   * Rewrites the store as an earlier format wrote it: version keys without row seq (table id, version);
   * DDL keys (commit ts, table id) in format 2, the commit ts alone in format 1.
   */
  private static void downgrade(Path path, int format) throws Exception {
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    for (String cf : List.of("default", SchemaDb.CF_VERSIONS, SchemaDb.CF_DDL, SchemaDb.CF_META)) {
      descriptors.add(new ColumnFamilyDescriptor(cf.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (DBOptions options = new DBOptions();
        RocksDB db = RocksDB.open(options, path.toString(), descriptors, handles);
        WriteBatch batch = new WriteBatch(); WriteOptions write = new WriteOptions()) {
      try (RocksIterator it = db.newIterator(handles.get(1))) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          batch.delete(handles.get(1), it.key());
          batch.put(handles.get(1), java.util.Arrays.copyOf(it.key(), 16), it.value());
        }
      }
      try (RocksIterator it = db.newIterator(handles.get(2))) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          batch.delete(handles.get(2), it.key());
          byte[] ts = java.util.Arrays.copyOf(it.key(), 8);
          batch.put(handles.get(2), format == 1 ? ts
              : ByteBuffer.allocate(16).put(ts).put(it.key(), 16, 8).array(), it.value());
        }
      }
      batch.put(handles.get(3), SchemaKeys.FORMAT_VERSION, ByteBuffer.allocate(4).putInt(format).array());
      db.write(write, batch);
      handles.forEach(ColumnFamilyHandle::close);
    }
  }
}
