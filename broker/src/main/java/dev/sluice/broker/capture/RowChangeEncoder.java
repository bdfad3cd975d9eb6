package dev.sluice.broker.capture;

import dev.sluice.api.KeyEncoding;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.Value;
import io.micrometer.core.instrument.Counter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Encodes one pgoutput row change as {@code sluice.v1.RowChange} bytes (positional images over the
 * relation's columns) and computes its key hash from the key columns ({@link KeyEncoding}).
 *
 * <p>Images: the new row is always whole. The old row is what the replica identity gives: with
 * {@code REPLICA IDENTITY FULL} the whole row; with the default identity only the key columns, the
 * others marked {@code unavailable} (as are unchanged TOAST values). A value whose text cannot be parsed
 * is kept as text and counted with the fallback values, never a crash. Not thread-safe.
 *
 * <pre>{@code
 * byte[] bytes = encoder.encode(RowOp.ROW_OP_INSERT, layout, null, newTuple, rowSeq);
 * int hash = encoder.lastKeyHash();
 * }</pre>
 */
final class RowChangeEncoder {

  private static final Logger log = LoggerFactory.getLogger(RowChangeEncoder.class);

  private final Counter fallbackValues;
  private final Set<String> warnedColumns = new HashSet<>();
  private final List<Value> keyValues = new ArrayList<>();
  private int lastKeyHash;

  RowChangeEncoder(Counter fallbackValues) {
    this.fallbackValues = fallbackValues;
  }

  /**
   * @param before  the old tuple, or {@code null}
   * @param oldKind 'K' (key only) or 'O' (whole row) for {@code before}
   * @param after   the new tuple, or {@code null} for deletes
   */
  byte[] encode(RowOp op, RelationLayout layout, byte oldKind, TupleData before, TupleData after, long rowSeq) {
    RowChange.Builder b = RowChange.newBuilder().setOp(op).setRowSeq(rowSeq);
    Value[] afterValues = null;
    Value[] beforeValues = null;
    if (before != null) {
      beforeValues = values(layout, before, oldKind == 'K');
      b.addAllBefore(Arrays.asList(beforeValues)); // one capacity check, not one per column
    }
    if (after != null) {
      afterValues = values(layout, after, false);
      b.addAllAfter(Arrays.asList(afterValues));
    }
    lastKeyHash = keyHash(layout, afterValues, beforeValues);
    b.setKeyHash(lastKeyHash);
    return b.build().toByteArray();
  }

  /** Key hash of the row last encoded. */
  int lastKeyHash() {
    return lastKeyHash;
  }

  private Value[] values(RelationLayout layout, TupleData tuple, boolean keyOnly) {
    int n = Math.min(tuple.size(), layout.types().length);
    Value[] out = new Value[layout.types().length];
    for (int i = 0; i < out.length; i++) {
      if (i >= n) {
        out[i] = PgTextValues.UNAVAILABLE;
        continue;
      }
      byte kind = tuple.kind(i);
      if (kind == TupleData.UNCHANGED_TOAST || (keyOnly && !layout.relation().columns().get(i).key())) {
        out[i] = PgTextValues.UNAVAILABLE;
      } else if (kind == TupleData.NULL) {
        out[i] = PgTextValues.NULL;
      } else {
        out[i] = value(layout, i, tuple, i);
      }
    }
    return out;
  }

  private Value value(RelationLayout layout, int column, TupleData tuple, int i) {
    PgType type = layout.types()[column];
    if (type.isFallback()) {
      fallbackValues.increment();
    }
    try {
      return PgTextValues.parse(type, tuple.buffer(), tuple.offset(i), tuple.length(i));
    } catch (IllegalArgumentException e) {
      String text = tuple.text(i);
      fallbackValues.increment();
      String where = layout.relation().qualifiedName() + "." + layout.relation().columns().get(column).name();
      if (warnedColumns.add(where)) {
        log.atWarn().addKeyValue("column", where).addKeyValue("type", type.name()).setCause(e)
            .log("value could not be parsed; captured as text (logged once per column)");
      }
      return Value.newBuilder().setStringValue(text).build();
    }
  }

  private int keyHash(RelationLayout layout, Value[] after, Value[] before) {
    int[] keys = layout.keyIndexes();
    if (keys.length == 0) {
      return 0;
    }
    keyValues.clear();
    for (int k : keys) {
      Value v = after != null ? after[k] : null;
      if ((v == null || v.hasUnavailable()) && before != null) {
        v = before[k];
      }
      keyValues.add(v == null ? PgTextValues.UNAVAILABLE : v);
    }
    return KeyEncoding.hash(keyValues);
  }
}
