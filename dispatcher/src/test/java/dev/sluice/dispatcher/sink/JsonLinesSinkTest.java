package dev.sluice.dispatcher.sink;

import static dev.sluice.dispatcher.sink.SinkFixtures.ORDERS;
import static dev.sluice.dispatcher.sink.SinkFixtures.bytes;
import static dev.sluice.dispatcher.sink.SinkFixtures.col;
import static dev.sluice.dispatcher.sink.SinkFixtures.ddl;
import static dev.sluice.dispatcher.sink.SinkFixtures.delete;
import static dev.sluice.dispatcher.sink.SinkFixtures.i;
import static dev.sluice.dispatcher.sink.SinkFixtures.ins;
import static dev.sluice.dispatcher.sink.SinkFixtures.insert;
import static dev.sluice.dispatcher.sink.SinkFixtures.nul;
import static dev.sluice.dispatcher.sink.SinkFixtures.s;
import static dev.sluice.dispatcher.sink.SinkFixtures.ts;
import static dev.sluice.dispatcher.sink.SinkFixtures.txn;
import static dev.sluice.dispatcher.sink.SinkFixtures.unavailable;
import static dev.sluice.dispatcher.sink.SinkFixtures.update;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.v1.DdlType;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
import dev.sluice.api.v1.ValueKind;
import dev.sluice.dispatcher.Checkpoint;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link JsonLinesSink} on real files: the lines, the checkpoint side file, and resuming from it. */
class JsonLinesSinkTest {

  @TempDir
  Path dir;

  private List<JsonObject> lines(Path file) throws Exception {
    return Files.readAllLines(file).stream().map(JsonObject::new).toList();
  }

  @Test
  void writesOneLinePerRowChangeAndTheCheckpointAfterTheData() throws Exception {
    Path data = dir.resolve("out/orders.jsonl");
    try (JsonLinesSink sink = JsonLinesSink.toFile(data, "cf1")) {
      sink.apply(List.of(
          txn(101, ORDERS, insert(ORDERS, 0, i(1), s("a"), nul()), insert(ORDERS, 1, i(2), s("b"), nul())),
          txn(102, ORDERS, update(ORDERS, 0, List.of(i(1), s("a"), s("x")), i(1), s("c"), unavailable()),
              delete(ORDERS, 1, i(2), nul(), nul()))), 102);
    }

    List<JsonObject> lines = lines(data);
    assertThat(lines).hasSize(4);
    assertThat(lines.get(0).encode()).isEqualTo("{\"table\":\"public.orders\",\"op\":\"insert\",\"commit_ts\":101,"
        + "\"row_seq\":0,\"before\":null,\"after\":{\"id\":1,\"note\":\"a\",\"big\":null}}");
    JsonObject upd = lines.get(2);
    assertThat(upd.getString("op")).isEqualTo("update");
    assertThat(upd.getJsonObject("before").getString("big")).isEqualTo("x");
    assertThat(upd.getJsonObject("after").containsKey("big")).isFalse();
    assertThat(upd.getJsonArray("unavailable").encode()).isEqualTo("[\"big\"]");
    assertThat(lines.get(3).getString("op")).isEqualTo("delete");
    assertThat(lines.get(3).getValue("after")).isNull();

    JsonObject cp = new JsonObject(Files.readString(dir.resolve("out/orders.jsonl.checkpoint")));
    assertThat(cp.getString("changefeed_id")).isEqualTo("cf1");
    assertThat(cp.getLong("checkpoint_ts")).isEqualTo(102);
    assertThat(cp.getJsonArray("tables").getJsonObject(0).getLong("checkpoint_ts")).isEqualTo(102);
    assertThat(Files.exists(dir.resolve("out/orders.jsonl.checkpoint.tmp"))).isFalse();
  }

  /** Every line a sink writes for {@code t}, to memory. */
  private static String written(dev.sluice.dispatcher.Transaction t) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonLinesSink sink = JsonLinesSink.toStream(out, null, "cf1")) {
      sink.apply(List.of(t), t.commitTs());
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /**
   * Feature copy-text: READ rows backed by COPY lines (text with escapes, NULL, unicode, bytea, an array, a
   * timestamptz with an offset) are written exactly as the READ rows of their values.
   */
  @Test
  void readRowsThatCameAsCopyLinesAreWrittenAsTheRowsOfTheirValues() {
    TableInfo table = TableInfo.newBuilder().setTableId(16400).setSchemaName("public").setTableName("docs")
        .addPrimaryKey("id").addColumns(col("id", "bigint", ValueKind.VALUE_KIND_INT64, false))
        .addColumns(col("note", "text", ValueKind.VALUE_KIND_STRING, true))
        .addColumns(col("b", "bytea", ValueKind.VALUE_KIND_BYTES, true))
        .addColumns(col("tags", "text[]", ValueKind.VALUE_KIND_ARRAY, true))
        .addColumns(col("at", "timestamp with time zone", ValueKind.VALUE_KIND_TIMESTAMP_TZ, true)).build();
    List<dev.sluice.api.v1.ColumnCodec> codecs = List.of(codec(dev.sluice.api.v1.TextCodec.TEXT_CODEC_INT),
        codec(dev.sluice.api.v1.TextCodec.TEXT_CODEC_TEXT), codec(dev.sluice.api.v1.TextCodec.TEXT_CODEC_BYTEA),
        codec(dev.sluice.api.v1.TextCodec.TEXT_CODEC_ARRAY).toBuilder()
            .setElementCodec(dev.sluice.api.v1.TextCodec.TEXT_CODEC_TEXT).build(),
        codec(dev.sluice.api.v1.TextCodec.TEXT_CODEC_TIMESTAMPTZ));
    byte[] buffer = ("1\ttab\\there\\nback\\\\slash\t\\\\x00ff\t{a,\"b c\",NULL}\t2024-01-31 12:00:00.5+01\n"
        + "2\t\\N\t\\N\t\\N\t\\N\n"
        + "3\tGrüße 🙂\t\\\\x\t{}\t-infinity\n").getBytes(StandardCharsets.UTF_8);
    List<List<Value>> values = List.of(
        List.of(i(1), s("tab\there\nback\\slash"), bytes((byte) 0, (byte) 0xff),
            SinkFixtures.arr(s("a"), s("b c"), nul()), ts(1_706_698_800_500_000L, true)),
        List.of(i(2), nul(), nul(), nul(), nul()),
        List.of(i(3), s("Grüße 🙂"), bytes(), SinkFixtures.arr(), SinkFixtures.tsInfinity(-1, true)));
    List<dev.sluice.dispatcher.RowChangeView> lined = new java.util.ArrayList<>();
    List<dev.sluice.dispatcher.RowChangeView> typed = new java.util.ArrayList<>();
    int offset = 0;
    for (int k = 0; k < values.size(); k++) {
      int end = dev.sluice.api.pgtext.CopyText.lineEnd(buffer, offset, buffer.length);
      lined.add(read(table, k, dev.sluice.dispatcher.RowImage.ofCopyLine(table, codecs,
          new dev.sluice.dispatcher.CopyLine(buffer, offset, end), k)));
      typed.add(read(table, k, dev.sluice.dispatcher.RowImage.of(table, values.get(k))));
      offset = end + 1;
    }

    String fromLines = written(new dev.sluice.dispatcher.Transaction(301, 0, table, lined, true, true));
    assertThat(fromLines).isEqualTo(written(new dev.sluice.dispatcher.Transaction(301, 0, table, typed, true, true)));
    assertThat(new JsonObject(fromLines.lines().findFirst().orElseThrow()).getJsonObject("after").getString("note"))
        .isEqualTo("tab\there\nback\\slash");
  }

  private static dev.sluice.api.v1.ColumnCodec codec(dev.sluice.api.v1.TextCodec c) {
    return dev.sluice.api.v1.ColumnCodec.newBuilder().setCodec(c).build();
  }

  private static dev.sluice.dispatcher.RowChangeView read(TableInfo table, long rowSeq,
      dev.sluice.dispatcher.RowImage after) {
    return new dev.sluice.dispatcher.RowChangeView(dev.sluice.api.v1.RowOp.ROW_OP_READ, rowSeq, 0,
        dev.sluice.dispatcher.RowImage.of(table, List.of()), after);
  }

  /** Issue #17: a snapshot's READ row is a line of its own op, with the row as read and no before image. */
  @Test
  void aSnapshotReadRowIsALineWithOpRead() throws Exception {
    Path data = dir.resolve("read/orders.jsonl");
    try (JsonLinesSink sink = JsonLinesSink.toFile(data, "cf1")) {
      sink.apply(List.of(txn(201, ORDERS, new dev.sluice.dispatcher.RowChangeView(dev.sluice.api.v1.RowOp.ROW_OP_READ,
          0, 0, dev.sluice.dispatcher.RowImage.of(ORDERS, List.of()),
          dev.sluice.dispatcher.RowImage.of(ORDERS, List.of(i(7), s("r"), nul()))))), 201);
    }
    assertThat(lines(data)).singleElement().satisfies(l -> assertThat(l.encode()).isEqualTo("{\"table\":"
        + "\"public.orders\",\"op\":\"read\",\"commit_ts\":201,\"row_seq\":0,\"before\":null,\"after\":{\"id\":7,"
        + "\"note\":\"r\",\"big\":null}}"));
  }

  @Test
  void aReopenedSinkResumesFromItsCheckpointAndSkipsWhatItCovers() throws Exception {
    Path data = dir.resolve("orders.jsonl");
    try (JsonLinesSink sink = JsonLinesSink.toFile(data, "cf1")) {
      sink.apply(List.of(ins(101, 1, "a"), ins(102, 2, "b")), 102);
    }
    try (JsonLinesSink sink = JsonLinesSink.toFile(data, "cf1")) {
      assertThat(sink.checkpoint().checkpointTs()).isEqualTo(102);
      assertThat(sink.checkpoint().forTable(ORDERS.getTableId())).isEqualTo(Checkpoint.at(102));
      sink.apply(List.of(ins(101, 1, "a"), ins(102, 2, "b"), ins(103, 3, "c")), 103);
    }

    assertThat(lines(data)).extracting(l -> l.getLong("commit_ts")).containsExactly(101L, 102L, 103L);
  }

  @Test
  void valuesKeepTheirTypesAndExactness() throws Exception {
    TableInfo kinds = TableInfo.newBuilder().setTableId(9).setSchemaName("s").setTableName("kinds")
        .addColumns(col("ts", "timestamptz", ValueKind.VALUE_KIND_TIMESTAMP_TZ, true))
        .addColumns(col("d", "numeric", ValueKind.VALUE_KIND_DECIMAL, true))
        .addColumns(col("b", "bytea", ValueKind.VALUE_KIND_BYTES, true))
        .addColumns(col("j", "jsonb", ValueKind.VALUE_KIND_JSON, true))
        .addColumns(col("day", "date", ValueKind.VALUE_KIND_DATE, true))
        .addColumns(col("f", "float8", ValueKind.VALUE_KIND_DOUBLE, true)).addPrimaryKey("ts").build();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonLinesSink sink = JsonLinesSink.toStream(out, null, "cf1")) {
      sink.apply(List.of(txn(5, kinds, insert(kinds, 0, ts(1_700_000_000_123_456L, true),
          Value.newBuilder().setDecimalValue("12345678901234567890.000001").build(), bytes((byte) 1, (byte) 2),
          Value.newBuilder().setJsonValue("{\"a\":[1,2]}").build(), Value.newBuilder().setDateValue(19_000).build(),
          Value.newBuilder().setDoubleValue(Double.NaN).build()))), 5);
    }

    JsonObject after = new JsonObject(out.toString(StandardCharsets.UTF_8).strip()).getJsonObject("after");
    assertThat(after.getString("ts")).isEqualTo("2023-11-14T22:13:20.123456Z");
    assertThat(after.getString("d")).isEqualTo("12345678901234567890.000001");
    assertThat(after.getString("b")).isEqualTo("AQI=");
    assertThat(after.getJsonObject("j").getJsonArray("a").encode()).isEqualTo("[1,2]");
    assertThat(after.getString("day")).isEqualTo("2022-01-08");
    assertThat(after.getString("f")).isEqualTo("NaN");
  }

  /** Issue #16 (4): infinity read as the year 294247 or 5881580, and BC dates as AD ('yyyy' is the year of era). */
  @Test
  void infinityBcAndExtremeMomentsAreShownExactly() throws Exception {
    TableInfo m = SinkFixtures.MOMENTS;
    java.time.LocalDateTime max = java.time.LocalDateTime.of(294276, 12, 31, 23, 59, 59, 999_999_000);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonLinesSink sink = JsonLinesSink.toStream(out, null, "cf1")) {
      sink.apply(List.of(txn(5, m, insert(m, 0, Value.newBuilder().setInt64Value(1).build(),
          SinkFixtures.date(java.time.LocalDate.of(-4712, 1, 1)), SinkFixtures.tsInfinity(1, false),
          SinkFixtures.ts(max, true), SinkFixtures.arr(SinkFixtures.dateInfinity(-1), SinkFixtures.dateInfinity(1)),
          SinkFixtures.arr(SinkFixtures.ts(java.time.LocalDateTime.of(294247, 1, 10, 4, 0, 54, 775_807_000), true),
              SinkFixtures.tsInfinity(1, true))))), 5);
    }

    JsonObject after = new JsonObject(out.toString(StandardCharsets.UTF_8).strip()).getJsonObject("after");
    assertThat(after.getString("d")).isEqualTo("-4712-01-01");   // ISO 8601 astronomical year: 4713 BC
    assertThat(java.time.LocalDate.parse(after.getString("d")).getYear()).isEqualTo(-4712);
    assertThat(after.getString("t")).isEqualTo("infinity");
    assertThat(after.getString("tz")).isEqualTo("+294276-12-31T23:59:59.999999Z");
    assertThat(after.getJsonArray("ds").encode()).isEqualTo("[\"-infinity\",\"infinity\"]");
    assertThat(after.getJsonArray("tzs").encode()).isEqualTo("[\"+294247-01-10T04:00:54.775807Z\",\"infinity\"]");
  }

  @Test
  void ddlIsALineAndIsNotWrittenTwice() throws Exception {
    Path data = dir.resolve("ddl.jsonl");
    var add = ddl(500, DdlType.DDL_TYPE_ADD_COLUMN, "ALTER TABLE public.orders ADD qty bigint", "postgresql",
        ORDERS, SinkFixtures.ORDERS_WITH_QTY);
    try (JsonLinesSink sink = JsonLinesSink.toFile(data, "cf1")) {
      sink.applyDdl(add, 400);
    }
    try (JsonLinesSink sink = JsonLinesSink.toFile(data, "cf1")) {
      sink.applyDdl(add, 400);
    }

    assertThat(lines(data)).singleElement().satisfies(l -> {
      assertThat(l.getString("op")).isEqualTo("ddl");
      assertThat(l.getString("ddl_type")).isEqualTo("add_column");
      assertThat(l.getString("query")).contains("ADD qty");
    });
  }
}
