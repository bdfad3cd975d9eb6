package dev.sluice.broker.snapshot;

import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.Value;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A target table in memory, keyed by its first column (a bigint key), filled the way the JDBC sink fills
 * one: inserts, updates and READ rows upsert the columns they carry (a row it lacks gets NULL where
 * nothing was carried), a key change removes the old row, deletes remove by key. Values are kept as
 * the text a person would compare.
 */
final class ReplicaTable {

  private final TreeMap<Long, List<String>> rows = new TreeMap<>();
  private final int columns;

  ReplicaTable(int columns) {
    this.columns = columns;
  }

  void apply(RowChange r) {
    switch (r.getOp()) {
      case ROW_OP_DELETE -> rows.remove(r.getBefore(0).getInt64Value());
      case ROW_OP_INSERT, ROW_OP_READ -> upsert(r.getAfterList());
      case ROW_OP_UPDATE -> {
        if (r.getBeforeCount() > 0 && !r.getBefore(0).hasUnavailable()
            && r.getBefore(0).getInt64Value() != r.getAfter(0).getInt64Value()) {
          rows.remove(r.getBefore(0).getInt64Value());
        }
        upsert(r.getAfterList());
      }
      default -> throw new AssertionError("row op " + r.getOp());
    }
  }

  /** The same, for a row as the client library hands it over. */
  void apply(dev.sluice.dispatcher.RowChangeView r) {
    apply(RowChange.newBuilder().setOp(r.op()).addAllBefore(r.before().values()).addAllAfter(r.after().values())
        .build());
  }

  private void upsert(List<Value> after) {
    long key = after.get(0).getInt64Value();
    List<String> cur = rows.get(key);
    List<String> next = new ArrayList<>(columns);
    for (int i = 0; i < columns; i++) {
      Value v = i < after.size() ? after.get(i) : null;
      next.add(v == null || v.hasUnavailable() ? (cur == null ? null : cur.get(i)) : text(v));
    }
    rows.put(key, next);
  }

  static String text(Value v) {
    return switch (v.getKindCase()) {
      case NULL_VALUE -> null;
      case INT64_VALUE -> Long.toString(v.getInt64Value());
      case STRING_VALUE -> v.getStringValue();
      default -> v.toString();
    };
  }

  Map<Long, List<String>> rows() {
    return rows;
  }
}
