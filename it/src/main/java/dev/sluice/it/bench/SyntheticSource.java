package dev.sluice.it.bench;

import dev.sluice.api.KeyEncoding;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.Value;
import dev.sluice.api.v1.ValueKind;
import dev.sluice.broker.store.EventStore;
import dev.sluice.broker.store.SourcePosition;
import dev.sluice.broker.store.StoreBatch;
import dev.sluice.schema.ColumnInfo;
import dev.sluice.schema.DdlEvent;
import dev.sluice.schema.DdlType;
import dev.sluice.schema.SchemaStore;
import dev.sluice.schema.TableInfo;
import java.util.List;

/**
 * Writes synthetic transactions into the stores exactly as capture does (rows as encoded RowChange,
 * time marks, resolved ts of both stores), for benchmarks that measure the event service without
 * PostgreSQL in the loop. Rows are {@code (id bigint, payload text)} of about {@code rowBytes} encoded
 * bytes. Single writer: not thread-safe.
 */
final class SyntheticSource {

  private final EventStore events;
  private final SchemaStore schema;
  private long lastTs;
  private long nextId;

  SyntheticSource(EventStore events, SchemaStore schema) {
    this.events = events;
    this.schema = schema;
    this.lastTs = Math.max(events.resolvedTs(), schema.resolvedTs());
  }

  long lastTs() {
    return lastTs;
  }

  /** CREATE TABLE bench.t{id} at the next ts. */
  TableInfo createTable(long tableId) {
    long ts = lastTs + 16;
    TableInfo t = new TableInfo(tableId, "bench", "t" + tableId, List.of(
        ColumnInfo.of("id", "bigint", ValueKind.VALUE_KIND_INT64, false),
        ColumnInfo.of("payload", "text", ValueKind.VALUE_KIND_STRING, true)), List.of("id"), ts);
    schema.apply(new DdlEvent(ts, DdlType.CREATE_TABLE, "CREATE TABLE bench.t" + tableId
        + " (id bigint primary key, payload text)", t, "postgresql"));
    heartbeatAt(ts, System.currentTimeMillis() * 1000);
    return t;
  }

  /** One transaction of {@code rows} inserts into the table; returns its commit ts. */
  long insert(long tableId, int rows, int rowBytes, boolean sync) {
    long ts = lastTs + 16;
    StoreBatch b = events.newBatch();
    String payload = "p".repeat(Math.max(1, rowBytes - 20));
    for (int i = 0; i < rows; i++) {
      Value key = Value.newBuilder().setInt64Value(nextId++).build();
      RowChange r = RowChange.newBuilder().setOp(RowOp.ROW_OP_INSERT).addAfter(key)
          .addAfter(Value.newBuilder().setStringValue(payload)).setRowSeq(i)
          .setKeyHash(KeyEncoding.hash(List.of(key))).build();
      b.putRow(tableId, ts, i, r.getKeyHash(), r.toByteArray());
    }
    b.putTimeMark(ts, System.currentTimeMillis() * 1000);
    b.setPosition(new SourcePosition(ts, ts + 1));
    b.setResolvedTs(ts);
    schema.advanceResolvedTs(ts);
    events.write(b, sync);
    lastTs = ts;
    return ts;
  }

  /** An idle heartbeat transaction: resolved ts advances with no row. */
  long heartbeat() {
    return heartbeatAt(lastTs + 16, System.currentTimeMillis() * 1000);
  }

  private long heartbeatAt(long ts, long timeMicros) {
    StoreBatch b = events.newBatch();
    b.putTimeMark(ts, timeMicros);
    b.setPosition(new SourcePosition(ts, ts + 1));
    b.setResolvedTs(ts);
    schema.advanceResolvedTs(ts);
    events.write(b, false);
    lastTs = ts;
    return ts;
  }
}
