package dev.sluice.schema;

import static dev.sluice.schema.Tables.change;
import static dev.sluice.schema.Tables.create;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.throwable;

import dev.sluice.api.error.ErrorCode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/** Every error the store raises: its exact type, code, context fields and message. */
class SchemaStoreErrorsTest {

  @TempDir
  Path dir;

  private RocksSchemaStore store;
  private final DdlEvent orders = create(1000, 7, "orders");

  @BeforeEach
  void open() {
    store = RocksSchemaStore.open(SchemaStoreConfig.at(dir), new SimpleMeterRegistry());
    store.apply(orders);
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void applyAtTheLastDdlTsIsOutOfOrder() {
    assertThatThrownBy(() -> store.apply(create(1000, 8, "items")))
        .asInstanceOf(throwable(DdlOutOfOrderException.class))
        .satisfies(e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.OUT_OF_ORDER);
          assertThat(e.commitTs()).isEqualTo(1000);
          assertThat(e.lastTs()).isEqualTo(1000);
        })
        .hasMessage("DDL at commit ts 1000 is not above the last applied ts 1000; "
            + "DDLs must be applied in strictly increasing commit-ts order");
  }

  @Test
  void applyBelowTheLastDdlTsIsOutOfOrder() {
    assertThatThrownBy(() -> store.apply(create(999, 8, "items")))
        .isInstanceOf(DdlOutOfOrderException.class)
        .hasMessageStartingWith("DDL at commit ts 999 is not above the last applied ts 1000;");
    assertThat(store.lastDdlTs()).isEqualTo(1000);
  }

  @Test
  void applyAtOrBelowTheResolvedTsIsOutOfOrder() {
    store.advanceResolvedTs(1500);
    assertThatThrownBy(() -> store.apply(create(1500, 8, "items")))
        .asInstanceOf(throwable(DdlOutOfOrderException.class))
        .satisfies(e -> assertThat(e.lastTs()).isEqualTo(1500))
        .hasMessageStartingWith("DDL at commit ts 1500 is not above the last applied ts 1500;");
  }

  @Test
  void createOfAnExistingIdIsInvalid() {
    assertThatThrownBy(() -> store.apply(create(2000, 7, "other")))
        .asInstanceOf(throwable(InvalidDdlException.class))
        .satisfies(e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INVALID_REQUEST);
          assertThat(e.tableId()).isEqualTo(7);
          assertThat(e.commitTs()).isEqualTo(2000);
        })
        .hasMessage("DDL CREATE_TABLE at commit ts 2000 on table public.other (id 7) is invalid: table id 7 "
            + "already exists as public.orders since ts 1000; the schema store is unchanged, check that the "
            + "capture delivered every earlier DDL of this table");
  }

  @Test
  void createOfADroppedIdIsInvalid() {
    store.apply(change(2000, DdlType.DROP_TABLE, orders.tableInfoAfter()));
    assertThatThrownBy(() -> store.apply(create(3000, 7, "orders")))
        .isInstanceOf(InvalidDdlException.class)
        .hasMessageContaining("table id 7 belonged to public.orders, dropped at ts 2000; "
            + "a re-created table needs a new id");
  }

  @Test
  void changeOfAnUnknownTableIsInvalid() {
    assertThatThrownBy(() -> store.apply(change(2000, DdlType.ADD_COLUMN, Tables.table(8, "items", 0, "a"))))
        .isInstanceOf(InvalidDdlException.class)
        .hasMessageContaining("DDL ADD_COLUMN at commit ts 2000 on table public.items (id 8) is invalid: "
            + "no table with id 8 was created");
  }

  @Test
  void changeOfADroppedTableIsInvalid() {
    store.apply(change(2000, DdlType.DROP_TABLE, orders.tableInfoAfter()));
    assertThatThrownBy(() -> store.apply(change(3000, DdlType.TRUNCATE_TABLE, orders.tableInfoAfter())))
        .isInstanceOf(InvalidDdlException.class)
        .hasMessageContaining("is invalid: the table was dropped at ts 2000");
  }

  @Test
  void createUnderANameALiveTableHoldsIsInvalid() {
    assertThatThrownBy(() -> store.apply(create(2000, 8, "orders")))
        .isInstanceOf(InvalidDdlException.class)
        .hasMessageContaining("is invalid: the name public.orders is held by the live table id 7");
  }

  @Test
  void renameToANameALiveTableHoldsIsInvalidAndChangesNothing() {
    DdlEvent items = create(2000, 8, "items");
    store.apply(items);
    assertThatThrownBy(() -> store.apply(change(3000, DdlType.RENAME_TABLE, Tables.renamed(items.tableInfoAfter(), "orders"))))
        .isInstanceOf(InvalidDdlException.class)
        .hasMessageContaining("DDL RENAME_TABLE at commit ts 3000 on table public.orders (id 8) is invalid: "
            + "the name public.orders is held by the live table id 7");
    assertThat(store.lastDdlTs()).isEqualTo(2000);
    assertThat(store.tableInfoAt(8, 3000)).isEqualTo(items.tableInfoAfter());
  }

  @Test
  void lookupOfAnUnknownIdNamesIt() {
    assertThatThrownBy(() -> store.tableInfoAt(404, 1000))
        .asInstanceOf(throwable(UnknownTableException.class))
        .satisfies(e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_TABLE);
          assertThat(e.table()).isEqualTo("404");
          assertThat(e.ts()).isEqualTo(1000);
        })
        .hasMessage("table 404 is unknown at ts 1000; check the table id or name, or use a start ts after "
            + "the table was created");
  }

  @Test
  void lookupBeforeTheCreateIsUnknown() {
    assertThatThrownBy(() -> store.tableInfoAt(7, 999))
        .isInstanceOf(UnknownTableException.class)
        .hasMessageStartingWith("table 7 is unknown at ts 999;");
  }

  @Test
  void lookupOfAnUnknownNameNamesIt() {
    assertThatThrownBy(() -> store.tableByName("public", "nope", 1000))
        .asInstanceOf(throwable(UnknownTableException.class))
        .satisfies(e -> assertThat(e.table()).isEqualTo("public.nope"))
        .hasMessageStartingWith("table public.nope is unknown at ts 1000;");
  }

  @Test
  void lookupAtOrAfterTheDropNamesTheDropTs() {
    store.apply(change(2000, DdlType.DROP_TABLE, orders.tableInfoAfter()));
    assertThat(store.tableInfoAt(7, 1999)).isEqualTo(orders.tableInfoAfter());
    for (long ts : new long[] {2000, 2001, Long.MAX_VALUE}) {
      assertThatThrownBy(() -> store.tableInfoAt(7, ts))
          .asInstanceOf(throwable(TableDroppedException.class))
          .satisfies(e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.TABLE_DROPPED);
            assertThat(e.tableId()).isEqualTo(7);
            assertThat(e.ts()).isEqualTo(ts);
            assertThat(e.dropTs()).isEqualTo(2000);
          })
          .hasMessage("table public.orders (id 7) was dropped at ts 2000, at or before the requested ts " + ts
              + "; use a ts below 2000");
    }
  }

  @Test
  void dropStaysPreciseAfterGcForgotTheTableAndAfterReopen() {
    store.apply(change(2000, DdlType.DROP_TABLE, orders.tableInfoAfter()));
    store.advanceResolvedTs(3000);
    store.gc(2500);
    assertThatThrownBy(() -> store.tableInfoAt(7, 2500))
        .isInstanceOf(TableDroppedException.class)
        .hasMessageStartingWith("table public.orders (id 7) was dropped at ts 2000");
    store.close();
    store = RocksSchemaStore.open(SchemaStoreConfig.at(dir), new SimpleMeterRegistry());
    assertThatThrownBy(() -> store.tableInfoAt(7, 2600))
        .asInstanceOf(throwable(TableDroppedException.class))
        .satisfies(e -> assertThat(e.dropTs()).isEqualTo(2000));
  }

  @Test
  void everyQueryBelowTheGcPointFails() {
    store.advanceResolvedTs(1500);
    store.gc(1200);
    String message = "ts 1199 is below the schema GC point 1200; start again from 1200 or later";
    assertBelowGc(() -> store.tableInfoAt(7, 1199), message);
    assertBelowGc(() -> store.tableByName("public", "orders", 1199), message);
    assertBelowGc(() -> store.tablesAt(1199), message);
    assertBelowGc(() -> store.ddlEvents(7, 1199, 1500), message);
    assertBelowGc(() -> store.allDdlEvents(1199, 1500), message);
    assertBelowGc(() -> store.tableInfoAt(404, 1199), message);   // GC first: below it, nothing is known
    assertThat(store.tableInfoAt(7, 1200)).isEqualTo(orders.tableInfoAfter());
  }

  @Test
  void everyCallOnAClosedStoreFails() {
    store.close();
    String closed = "schema store at " + dir.toAbsolutePath() + " is closed";
    for (Runnable call : new Runnable[] {
        () -> store.tableInfoAt(7, 1000), () -> store.tableByName("public", "orders", 0),
        () -> store.ddlEvents(7, 0, 1), () -> store.allDdlEvents(0, 1), () -> store.tablesAt(1000),
        () -> store.apply(create(2000, 8, "items")), () -> store.advanceResolvedTs(5), () -> store.gc(5)}) {
      assertThatThrownBy(call::run).isInstanceOf(IllegalStateException.class).hasMessage(closed);
    }
  }

  @Test
  void openingADirectoryInUseIsUnavailable() {
    assertThatThrownBy(() -> RocksSchemaStore.open(SchemaStoreConfig.at(dir), new SimpleMeterRegistry()))
        .asInstanceOf(throwable(SchemaStoreUnavailableException.class))
        .satisfies(e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.SCHEMA_UNAVAILABLE);
          assertThat(e.dataDir()).isEqualTo(dir.toAbsolutePath().toString());
        })
        .hasMessageStartingWith("schema store at " + dir.toAbsolutePath() + " failed to open: ")
        .hasMessageContaining("lock")
        .hasMessageEndingWith("; nothing was changed, retry later and check the disk and that no other "
            + "process uses the directory");
  }

  @Test
  void openingAnotherStoresDirectoryIsRefused(@TempDir Path foreign) throws Exception {
    writeRaw(foreign, "events", new byte[] {1}, new byte[] {2});
    assertThatThrownBy(() -> RocksSchemaStore.open(SchemaStoreConfig.at(foreign), new SimpleMeterRegistry()))
        .asInstanceOf(throwable(SchemaStoreCorruptException.class))
        .satisfies(e -> assertThat(e.code()).isEqualTo(ErrorCode.STORE_CORRUPT))
        .hasMessageContaining("holds column families [events] that are not the schema store's");
  }

  @Test
  void openingAStoreOfAnotherFormatVersionIsRefused() throws Exception {
    store.close();
    writeRaw(dir, SchemaDb.CF_META, SchemaKeys.FORMAT_VERSION, ByteBuffer.allocate(4).putInt(99).array());
    assertThatThrownBy(() -> RocksSchemaStore.open(SchemaStoreConfig.at(dir), new SimpleMeterRegistry()))
        .isInstanceOf(SchemaStoreCorruptException.class)
        .hasMessageContaining("is unreadable: its format version is 99, this build reads 3; stop the broker");
    store = RocksSchemaStore.open(SchemaStoreConfig.at(dir.resolve("fresh")), new SimpleMeterRegistry());
  }

  @Test
  void openingAStoreWithAnUndecodableVersionIsRefused() throws Exception {
    store.close();
    writeRaw(dir, SchemaDb.CF_VERSIONS, SchemaKeys.version(7, 1000, 0), new byte[] {(byte) 0xff, 0x01});
    assertThatThrownBy(() -> RocksSchemaStore.open(SchemaStoreConfig.at(dir), new SimpleMeterRegistry()))
        .isInstanceOf(SchemaStoreCorruptException.class)
        .hasMessageContaining("is unreadable: a stored version does not decode");
    store = RocksSchemaStore.open(SchemaStoreConfig.at(dir.resolve("fresh")), new SimpleMeterRegistry());
  }

  /** Writes one entry with plain RocksDB, as a foreign or damaged directory would hold it. */
  private static void writeRaw(Path path, String columnFamily, byte[] key, byte[] value) throws Exception {
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>(List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY)));
    try (Options listing = new Options()) {
      for (byte[] name : RocksDB.listColumnFamilies(listing, path.toString())) {
        if (!Arrays.equals(name, RocksDB.DEFAULT_COLUMN_FAMILY)) {
          descriptors.add(new ColumnFamilyDescriptor(name));
        }
      }
    }
    if (descriptors.stream().noneMatch(d -> Arrays.equals(d.getName(), columnFamily.getBytes(StandardCharsets.UTF_8)))) {
      descriptors.add(new ColumnFamilyDescriptor(columnFamily.getBytes(StandardCharsets.UTF_8)));
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (DBOptions options = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
        RocksDB db = RocksDB.open(options, path.toString(), descriptors, handles)) {
      for (int i = 0; i < descriptors.size(); i++) {
        if (Arrays.equals(descriptors.get(i).getName(), columnFamily.getBytes(StandardCharsets.UTF_8))) {
          db.put(handles.get(i), key, value);
        }
      }
      handles.forEach(ColumnFamilyHandle::close);
    }
  }

  private static void assertBelowGc(Runnable call, String message) {
    assertThatThrownBy(call::run)
        .asInstanceOf(throwable(BelowGcPointException.class))
        .satisfies(e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.START_TS_BELOW_GC);
          assertThat(e.ts()).isEqualTo(1199);
          assertThat(e.gcTs()).isEqualTo(1200);
        })
        .hasMessage(message);
  }
}
