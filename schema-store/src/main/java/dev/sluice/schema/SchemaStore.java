package dev.sluice.schema;

import java.util.List;

/**
 * Multi-version table schemas: the DDL history of every table by commit ts, answering "what did
 * table T look like at commit ts X".
 *
 * <p><b>Intervals.</b> {@code tableInfoAt(t, ts)} returns the newest version with
 * {@code version <= ts}. {@code ddlEvents(t, from, to)} covers {@code (from, to]} and never returns
 * events above {@link #resolvedTs()}.
 *
 * <p><b>Positions.</b> A transaction may change one table several times: each DDL has a row seq, its
 * place among the transaction's rows and DDLs ({@link DdlEvent#rowSeq()}), and its version the same
 * ({@link TableInfo#versionRowSeq()}). Events and versions go by commit ts, then row seq;
 * {@code tableInfoAt(t, ts)} gives the last version of ts, {@link #tableInfoBefore} the one in force at a
 * position inside a transaction.
 *
 * <p><b>Threads.</b> One writer (capture) calls {@link #apply}, {@link #advanceResolvedTs} and
 * {@link #gc}; any number of readers (control plane, data plane) call the read methods concurrently.
 *
 * <p><b>Durability.</b> When {@link #apply} returns, the DDL is durable: after a crash the reopened
 * store holds exactly the DDLs whose {@code apply} returned (plus possibly the one in flight, whole or
 * not at all).
 *
 * <pre>{@code
 * store.apply(new DdlEvent(2000, DdlType.ADD_COLUMN, "ALTER TABLE ...", ordersV2, "postgresql"));
 * store.advanceResolvedTs(2500);
 * TableInfo atHandshake = store.tableInfoAt(ordersId, 2100);   // ordersV2
 * }</pre>
 */
public interface SchemaStore extends AutoCloseable {

  /**
   * Applies one DDL durably: {@code apply(List.of(ddl))}.
   *
   * @throws DdlOutOfOrderException when {@code ddl.commitTs()} is not above the last applied DDL's
   *     commit ts, or not above the resolved ts
   * @throws InvalidDdlException    when it does not fit its table's history
   */
  void apply(DdlEvent ddl);

  /**
   * Applies one transaction's DDLs durably and atomically: after a crash the store holds all of them or
   * none. They come in (commit ts, row seq) order; DDLs of one transaction share its commit ts, several of
   * one table at distinct row seqs, several tables' (one statement's) possibly at one row seq. Each is
   * checked against the history the ones before it leave.
   *
   * @throws DdlOutOfOrderException when the first commit ts is not above the last applied DDL's commit
   *     ts or the resolved ts, or the list goes down in (commit ts, row seq); nothing is applied
   * @throws InvalidDdlException    for the first DDL that does not fit; nothing is applied
   */
  void apply(List<DdlEvent> ddls);

  /** Commit ts of the last applied DDL, 0 when none: capture skips replayed DDLs at or below it. */
  long lastDdlTs();

  /** Records that every DDL with commit ts {@code <= ts} has been applied; never moves backwards. */
  void advanceResolvedTs(long ts);

  /** Every DDL with commit ts at or below this has been applied. */
  long resolvedTs();

  /**
   * The newest version of the table with {@code version <= ts}.
   *
   * @throws UnknownTableException   when no version of the table exists at or below {@code ts}
   * @throws TableDroppedException   when the table was dropped at or before {@code ts}
   * @throws BelowGcPointException   when {@code ts} is below the GC point
   */
  TableInfo tableInfoAt(long tableId, long ts);

  /**
   * The version in force just before the place {@code (ts, rowSeq)} inside the transaction at {@code ts}:
   * the newest with {@code (version, versionRowSeq) < (ts, rowSeq)}; a resume cursor's
   * {@code (commit ts, next row seq)} gives the version its rows follow. {@code rowSeq = Long.MAX_VALUE}
   * is {@link #tableInfoAt}.
   *
   * @throws UnknownTableException   when no version of the table exists before the place
   * @throws TableDroppedException   when the table was dropped before the place
   * @throws BelowGcPointException   when {@code ts} is below the GC point, or at it with a row seq below
   *     {@code Long.MAX_VALUE} (a GC at ts keeps only the last version of ts)
   */
  TableInfo tableInfoBefore(long tableId, long ts, long rowSeq);

  /**
   * The table that had this qualified name at {@code ts} ({@code ts = 0}: latest).
   *
   * @throws UnknownTableException when no live table had that name at {@code ts}
   * @throws BelowGcPointException when {@code ts} is below the GC point
   */
  TableInfo tableByName(String schemaName, String tableName, long ts);

  /**
   * DDL events of one table with {@code fromExclusive < commitTs <= min(toInclusive, resolvedTs())},
   * in commit order (by commit ts, then row seq); none for an unknown table.
   *
   * @throws BelowGcPointException when {@code fromExclusive} is below the GC point (events are gone)
   */
  List<DdlEvent> ddlEvents(long tableId, long fromExclusive, long toInclusive);

  /**
   * DDL events of every table with {@code fromExclusive < commitTs <= min(toInclusive, resolvedTs())},
   * in commit order (those of one commit ts by row seq, then table id): how a changefeed learns of tables
   * created after it started.
   *
   * @throws BelowGcPointException when {@code fromExclusive} is below the GC point (events are gone)
   */
  List<DdlEvent> allDdlEvents(long fromExclusive, long toInclusive);

  /**
   * Every table alive at {@code ts} (created at or before it, not dropped at or before it).
   *
   * @throws BelowGcPointException when {@code ts} is below the GC point
   */
  List<TableInfo> tablesAt(long ts);

  /**
   * Forgets history below {@code ts}, keeping the newest version {@code <= ts} of every table so
   * lookups at {@code >= ts} still work; tables dropped at or before {@code ts} are forgotten.
   * Lookups below the GC point then fail with {@link BelowGcPointException}. Never moves backwards,
   * and never above {@link #resolvedTs()} (history above it is not final): the GC point becomes
   * {@code min(ts, resolvedTs())}.
   */
  void gc(long ts);

  /** The GC point: lookups at {@code ts < gcTs()} fail. */
  long gcTs();

  @Override
  void close();
}
