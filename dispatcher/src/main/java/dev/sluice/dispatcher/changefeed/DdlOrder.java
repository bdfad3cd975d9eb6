package dev.sluice.dispatcher.changefeed;

import dev.sluice.api.v1.DdlType;
import dev.sluice.dispatcher.DdlChange;
import java.util.Comparator;

/**
 * The order schema changes of different tables are applied in: by commit ts, then by their place in the
 * transaction (the DDL's row seq, in the sequence of its rows), then, for changes of one transaction at one
 * place: drops first (a table dropped and created again under its name in one transaction), then by table
 * id, which PostgreSQL hands out in creation order, so a parent's CREATE runs before its partition's, its
 * inheritance child's and its referencing table's. Drops among themselves go by table id descending:
 * children before the parents they depend on.
 */
final class DdlOrder {

  static final Comparator<DdlChange> ORDER = Comparator.comparingLong(DdlChange::commitTs)
      .thenComparingLong(DdlOrder::rowSeq)
      .thenComparingInt(d -> d.ddlType() == DdlType.DDL_TYPE_DROP_TABLE ? 0 : 1)
      .thenComparingLong(d -> d.ddlType() == DdlType.DDL_TYPE_DROP_TABLE ? -d.tableId() : d.tableId());

  private DdlOrder() {}

  /** The DDL's place inside its transaction (DdlEvent.row_seq; 0 for one before all its rows). */
  static long rowSeq(DdlChange ddl) {
    return ddl.rowSeq();
  }
}
