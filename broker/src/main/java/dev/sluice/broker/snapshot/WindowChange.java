package dev.sluice.broker.snapshot;

import dev.sluice.api.v1.RowOp;

/**
 * A change the log carried between a chunk's two watermarks, reduced to what the watermark merge needs:
 * which rows it touched and which of the row's columns it carried.
 *
 * @param op        insert, update or delete
 * @param before    the identity of the row it changed (delete, key-changing update, an update with a
 *                  whole before image), or null when the change carried none
 * @param after     the identity of the row it left (insert, update), or null for a delete
 * @param available per column of the after image, whether the change carried its value (false for an
 *                  unchanged TOAST value); null for a delete
 */
public record WindowChange(RowOp op, RowIdentity before, RowIdentity after, boolean[] available) {

  public WindowChange {
    if (op != RowOp.ROW_OP_INSERT && op != RowOp.ROW_OP_UPDATE && op != RowOp.ROW_OP_DELETE) {
      throw new IllegalArgumentException("a window change is an insert, update or delete, got " + op);
    }
    if (before == null && after == null) {
      throw new IllegalArgumentException("a window change names the row it touched");
    }
  }

  /** True when the change moved a row from one identity to another (a key change, or a keyless update). */
  boolean changesIdentity() {
    return before != null && after != null && !before.equals(after);
  }
}
