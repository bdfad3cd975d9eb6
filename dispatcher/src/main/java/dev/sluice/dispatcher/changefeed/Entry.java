package dev.sluice.dispatcher.changefeed;

import dev.sluice.api.error.SluiceException;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.Transaction;

/** One delivery of a table's stream, queued for the applier. */
record Entry(Kind kind, Transaction txn, DdlChange ddl, long ts, SluiceException error) {

  enum Kind { TXN, DDL, RESOLVED, ERROR }

  static Entry txn(Transaction t) {
    return new Entry(Kind.TXN, t, null, t.commitTs(), null);
  }

  static Entry ddl(DdlChange d) {
    return new Entry(Kind.DDL, null, d, d.commitTs(), null);
  }

  static Entry resolved(long ts) {
    return new Entry(Kind.RESOLVED, null, null, ts, null);
  }

  static Entry error(SluiceException e) {
    return new Entry(Kind.ERROR, null, null, 0, e);
  }

  /**
   * Everything of the table's stream up to this ts has arrived once this entry has: a transaction's
   * last part completes its ts; a part or a DDL may be followed by more of its transaction (a DROP is
   * not: nothing of a dropped table follows it).
   */
  long receivedThrough() {
    return switch (kind) {
      case TXN -> txn.lastPart() ? ts : ts - 1;
      case DDL -> ddl.ddlType() == dev.sluice.api.v1.DdlType.DDL_TYPE_DROP_TABLE ? ts : ts - 1;
      case RESOLVED -> ts;
      case ERROR -> 0;
    };
  }

  /** Its place inside its transaction: the row seq of its first row, or of the DDL ({@link DdlOrder}). */
  long position() {
    return switch (kind) {
      case TXN -> txn.rows().isEmpty() ? Long.MAX_VALUE : txn.rows().get(0).rowSeq();
      case DDL -> DdlOrder.rowSeq(ddl);
      case RESOLVED, ERROR -> Long.MAX_VALUE;
    };
  }
}
