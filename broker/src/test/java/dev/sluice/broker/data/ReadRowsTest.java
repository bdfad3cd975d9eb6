package dev.sluice.broker.data;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.v1.DmlBatch;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.SnapshotProgress;
import dev.sluice.api.v1.Value;
import dev.sluice.broker.snapshot.RowIdentity;
import dev.sluice.broker.snapshot.SnapshotRow;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReadRowsTest {

  private static SnapshotRow row(long key, String text, boolean encoded) {
    List<Value> values = List.of(Value.newBuilder().setInt64Value(key).build(),
        text == null ? Value.newBuilder().setNullValue(dev.sluice.api.v1.NullValue.NULL_VALUE).build()
            : Value.newBuilder().setStringValue(text).build());
    RowIdentity id = RowIdentity.of(values.subList(0, 1));
    return encoded ? SnapshotRow.encoded(id, id.keyHash(), values) : new SnapshotRow(id, id.keyHash(), values, 40);
  }

  @Test
  void readRowsWrittenAsBytesParseAsTheRowChangesABuilderMakes() throws Exception {
    List<SnapshotRow> rows = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      rows.add(row(i * 7919L - 1000, i % 5 == 0 ? null : "v" + "x".repeat(i), i % 2 == 0));
    }
    rows.add(new SnapshotRow(RowIdentity.of(List.of()), 0, List.of(), 24));   // keyless-like: key hash 0, no values
    DmlBatch header = DmlBatch.newBuilder().setCommitTs(123456789L).setFragmentIndex(3).setLastFragment(true)
        .setTableInfoVersion(77).setSnapshot(SnapshotProgress.newBuilder().setRowsRead(300).setChunks(2)).build();

    for (int[] range : new int[][] {{0, rows.size()}, {5, 17}, {0, 0}}) {
      DmlBatch.Builder expected = header.toBuilder();
      for (int i = range[0]; i < range[1]; i++) {
        SnapshotRow r = rows.get(i);
        RowChange rc = RowChange.newBuilder().setOp(RowOp.ROW_OP_READ).addAllAfter(r.values()).setRowSeq(i)
            .setKeyHash(r.keyHash()).build();
        expected.addRows(rc);
        assertThat(ReadRows.size(r, i)).isEqualTo(rc.getSerializedSize());
      }
      byte[] bytes = ReadRows.dmlBatch(header, rows, range[0], range[1]);
      assertThat(DmlBatch.parseFrom(bytes)).isEqualTo(expected.build());
    }
  }

  @Test
  void anEncodedRowGivesBackItsValues() {
    SnapshotRow encoded = row(42, "forty-two\ttab", true);
    SnapshotRow plain = row(42, "forty-two\ttab", false);
    assertThat(encoded.values()).isEqualTo(plain.values());
    assertThat(encoded.afterFields()).isEqualTo(plain.afterFields());
    assertThat(encoded.bytes()).isEqualTo(encoded.afterFields().length + 24);
  }
}
