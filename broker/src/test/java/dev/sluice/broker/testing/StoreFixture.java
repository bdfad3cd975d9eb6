package dev.sluice.broker.testing;

import dev.sluice.api.KeyEncoding;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.Value;
import dev.sluice.api.v1.ValueKind;
import dev.sluice.broker.store.EventStoreConfig;
import dev.sluice.broker.store.RocksEventStore;
import dev.sluice.broker.store.SourcePosition;
import dev.sluice.broker.store.StoreBatch;
import dev.sluice.schema.ColumnInfo;
import dev.sluice.schema.DdlEvent;
import dev.sluice.schema.DdlType;
import dev.sluice.schema.RocksSchemaStore;
import dev.sluice.schema.SchemaStoreConfig;
import dev.sluice.schema.TableInfo;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Real event and schema stores in a directory, written the way capture writes them: transactions of
 * row changes with time marks, DDLs applied to the schema store before the event store's resolved ts
 * passes them, both resolved ts advanced together. Stands in for PostgreSQL in event-service tests
 * (the capture itself is tested against PostgreSQL in its own package).
 */
public final class StoreFixture implements AutoCloseable {

  public final RocksEventStore events;
  public final RocksSchemaStore schema;
  public final MeterRegistry meters = new SimpleMeterRegistry();
  private long lastTs;
  private long timeMicros = 1_700_000_000_000_000L;

  public StoreFixture(Path dir) {
    this.events = RocksEventStore.open(EventStoreConfig.defaults(dir.resolve("events")), meters);
    this.schema = RocksSchemaStore.open(SchemaStoreConfig.at(dir.resolve("schema")), meters);
    this.lastTs = Math.max(events.resolvedTs(), schema.resolvedTs());
  }

  /** The ts the next commit gets (a commit every 10 ts, like LSNs of small transactions). */
  public long nextTs() {
    return lastTs + 10;
  }

  public long lastTs() {
    return lastTs;
  }

  /** The simulated upstream clock, micros since the epoch. */
  public long timeMicros() {
    return timeMicros;
  }

  /** Simulated upstream commit time advance per commit, in micros (default 1 ms). */
  public void advanceTimeMicros(long micros) {
    timeMicros += micros;
  }

  public static TableInfo table(long id, String name, long version) {
    return new TableInfo(id, "public", name, List.of(
        ColumnInfo.of("id", "bigint", ValueKind.VALUE_KIND_INT64, false),
        ColumnInfo.of("v", "text", ValueKind.VALUE_KIND_STRING, true)), List.of("id"), version);
  }

  /** CREATE TABLE public.{name}(id bigint primary key, v text) at the next ts. */
  public TableInfo createTable(long id, String name) {
    long ts = nextTs();
    TableInfo t = table(id, name, ts);
    ddl(new DdlEvent(ts, DdlType.CREATE_TABLE, "CREATE TABLE public." + name + " (id bigint primary key, v text)",
        t, "postgresql"));
    return t;
  }

  /** ALTER TABLE ... ADD COLUMN {column} text at the next ts. */
  public TableInfo addColumn(TableInfo before, String column) {
    long ts = nextTs();
    List<ColumnInfo> cols = new ArrayList<>(before.columns());
    cols.add(ColumnInfo.of(column, "text", ValueKind.VALUE_KIND_STRING, true));
    TableInfo after = new TableInfo(before.tableId(), before.schemaName(), before.tableName(), cols,
        before.primaryKey(), ts);
    ddl(new DdlEvent(ts, DdlType.ADD_COLUMN, "ALTER TABLE " + before.qualifiedName() + " ADD COLUMN " + column + " text",
        after, "postgresql"));
    return after;
  }

  /** Applies a DDL as its own transaction (schema store first, then the event store's resolved ts). */
  public void ddl(DdlEvent d) {
    schema.apply(d);
    schema.advanceResolvedTs(d.commitTs());
    StoreBatch b = events.newBatch();
    b.putTimeMark(d.commitTs(), tick());
    b.setPosition(new SourcePosition(d.commitTs(), d.commitTs() + 1));
    b.setResolvedTs(d.commitTs());
    events.write(b, false);
    lastTs = d.commitTs();
  }

  /** A transaction inserting rows {@code ids} into the table; returns its commit ts. */
  public long insert(long tableId, long... ids) {
    List<RowChange> rows = new ArrayList<>();
    for (long id : ids) {
      rows.add(row(RowOp.ROW_OP_INSERT, id, "v" + id));
    }
    return commit(tableId, rows);
  }

  /** A transaction of the given row changes (row_seq and key_hash are filled in). */
  public long commit(long tableId, List<RowChange> rows) {
    long ts = nextTs();
    StoreBatch b = events.newBatch();
    long seq = 0;
    for (RowChange r : rows) {
      RowChange full = r.toBuilder().setRowSeq(seq).build();
      b.putRow(tableId, ts, seq++, full.getKeyHash(), full.toByteArray());
    }
    b.putTimeMark(ts, tick());
    b.setPosition(new SourcePosition(ts, ts + 1));
    b.setResolvedTs(ts);
    schema.advanceResolvedTs(ts);
    events.write(b, false);
    lastTs = ts;
    return ts;
  }

  /**
   * One transaction of row changes and schema changes of one table, in this order: each element is a
   * {@link RowChange} or a {@link TableInfo} (the table's next version, an ALTER TABLE there). Rows and DDL
   * take row seqs in one sequence, as capture numbers them. Returns the commit ts.
   */
  public long transaction(long tableId, List<?> changes) {
    long ts = nextTs();
    StoreBatch b = events.newBatch();
    List<DdlEvent> ddls = new ArrayList<>();
    long seq = 0;
    for (Object c : changes) {
      if (c instanceof TableInfo v) {
        ddls.add(new DdlEvent(ts, DdlType.ALTER_TABLE, "ALTER TABLE " + v.qualifiedName() + " /* " + seq + " */",
            v.withVersion(ts, seq), "postgresql", seq, List.of()));
      } else {
        RowChange full = ((RowChange) c).toBuilder().setRowSeq(seq).build();
        b.putRow(tableId, ts, seq, full.getKeyHash(), full.toByteArray());
      }
      seq++;
    }
    if (!ddls.isEmpty()) {
      schema.apply(ddls);
    }
    b.putTimeMark(ts, tick());
    b.setPosition(new SourcePosition(ts, ts + 1));
    b.setResolvedTs(ts);
    schema.advanceResolvedTs(ts);
    events.write(b, false);
    lastTs = ts;
    return ts;
  }

  /** {@code before} with a column {@code column text} added (not yet applied anywhere). */
  public static TableInfo withColumn(TableInfo before, String column, boolean nullable) {
    List<ColumnInfo> cols = new ArrayList<>(before.columns());
    cols.removeIf(c -> c.name().equals(column));
    cols.add(ColumnInfo.of(column, "text", ValueKind.VALUE_KIND_STRING, nullable));
    return new TableInfo(before.tableId(), before.schemaName(), before.tableName(), cols, before.primaryKey(), 0);
  }

  /** An idle heartbeat: resolved ts advances with no row. */
  public long heartbeat() {
    long ts = nextTs();
    StoreBatch b = events.newBatch();
    b.putTimeMark(ts, tick());
    b.setPosition(new SourcePosition(ts, ts + 1));
    b.setResolvedTs(ts);
    schema.advanceResolvedTs(ts);
    events.write(b, false);
    lastTs = ts;
    return ts;
  }

  public static RowChange row(RowOp op, long id, String v) {
    Value key = Value.newBuilder().setInt64Value(id).build();
    RowChange.Builder b = RowChange.newBuilder().setOp(op).setKeyHash(KeyEncoding.hash(List.of(key)));
    Value val = Value.newBuilder().setStringValue(v).build();
    if (op == RowOp.ROW_OP_DELETE) {
      b.addBefore(key).addBefore(val);
    } else {
      b.addAfter(key).addAfter(val);
    }
    return b.build();
  }

  private long tick() {
    timeMicros += 1000;
    return timeMicros;
  }

  @Override
  public void close() {
    events.close();
    schema.close();
  }
}
