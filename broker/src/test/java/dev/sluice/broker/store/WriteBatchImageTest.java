package dev.sluice.broker.store;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

class WriteBatchImageTest {

  @TempDir
  Path dir;

  private final List<ColumnFamilyHandle> handles = new ArrayList<>();
  private DBOptions options;
  private WriteOptions sync;
  private RocksDB db;

  @BeforeEach
  void openDb() throws Exception {
    RocksDB.loadLibrary();
    options = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
    sync = new WriteOptions().setSync(true);
    List<ColumnFamilyDescriptor> families = List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
        new ColumnFamilyDescriptor(bytes("one")), new ColumnFamilyDescriptor(bytes("two")),
        new ColumnFamilyDescriptor(bytes("three")));
    db = RocksDB.open(options, dir.toString(), families, handles);
  }

  @AfterEach
  void closeDb() {
    handles.forEach(ColumnFamilyHandle::close);
    db.close();
    sync.close();
    options.close();
  }

  @Test
  void imageBytesEqualRocksDbsOwnSerializationAcrossVarintBoundaries() throws Exception {
    WriteBatchImage image = new WriteBatchImage(16);
    try (WriteBatch expected = new WriteBatch()) {
      for (int valueLength : new int[] {0, 1, 127, 128, 300, 16_383, 16_384, 70_000}) {
        byte[] value = filled(valueLength, (byte) valueLength);
        image.putRow(cf(1), 16384, 99L << 32, valueLength, -7, value);
        expected.put(handles.get(1), EventKey.row(16384, 99L << 32, valueLength, -7), value);
        byte[] key = filled(valueLength % 200 + 1, (byte) 3);
        image.put(cf(3), key, value);
        expected.put(handles.get(3), key, value);
        image.put(cf(0), key, value);
        expected.put(key, value);
      }
      assertThat(image.count()).isEqualTo(24);
      assertThat(image.toByteArray()).isEqualTo(expected.data());
    }
  }

  @Test
  void rollbackRemovesRecordsAppendedAfterTheMark() throws Exception {
    WriteBatchImage image = new WriteBatchImage(64);
    image.put(cf(1), bytes("a"), bytes("1"));
    long mark = image.mark();
    image.put(cf(2), bytes("meta"), bytes("x"));
    image.rollback(mark);
    try (WriteBatch expected = new WriteBatch()) {
      expected.put(handles.get(1), bytes("a"), bytes("1"));
      assertThat(image.toByteArray()).isEqualTo(expected.data());
    }
    assertThat(image.count()).isEqualTo(1);
  }

  @Test
  void rocksDbAppliesAnImageToTheRightColumnFamilies() throws Exception {
    WriteBatchImage image = new WriteBatchImage(64);
    image.putRow(cf(1), 5, 6, 7, 8, bytes("row"));
    image.put(cf(2), bytes("k"), bytes("v"));
    try (WriteBatch wb = new WriteBatch(image.toByteArray())) {
      db.write(sync, wb);
    }
    assertThat(db.get(handles.get(1), EventKey.row(5, 6, 7, 8))).isEqualTo(bytes("row"));
    assertThat(db.get(handles.get(2), bytes("k"))).isEqualTo(bytes("v"));
    assertThat(db.get(handles.get(0), bytes("k"))).isNull();
    assertThat(db.get(handles.get(3), bytes("k"))).isNull();
  }

  private int cf(int index) {
    return handles.get(index).getID();
  }

  private static byte[] filled(int length, byte b) {
    byte[] a = new byte[length];
    Arrays.fill(a, b);
    return a;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
