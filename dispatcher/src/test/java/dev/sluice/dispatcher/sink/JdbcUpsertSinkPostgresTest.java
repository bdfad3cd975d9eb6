package dev.sluice.dispatcher.sink;

import static dev.sluice.dispatcher.sink.SinkFixtures.arr;
import static dev.sluice.dispatcher.sink.SinkFixtures.date;
import static dev.sluice.dispatcher.sink.SinkFixtures.dateInfinity;
import static dev.sluice.dispatcher.sink.SinkFixtures.i;
import static dev.sluice.dispatcher.sink.SinkFixtures.ins;
import static dev.sluice.dispatcher.sink.SinkFixtures.insert;
import static dev.sluice.dispatcher.sink.SinkFixtures.nul;
import static dev.sluice.dispatcher.sink.SinkFixtures.ts;
import static dev.sluice.dispatcher.sink.SinkFixtures.tsInfinity;
import static dev.sluice.dispatcher.sink.SinkFixtures.txn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import dev.sluice.api.v1.TableInfo;
import java.io.File;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link JdbcUpsertSink} against a real PostgreSQL 17 (zonky embedded). */
class JdbcUpsertSinkPostgresTest extends JdbcUpsertSinkContract {

  private static EmbeddedPostgres pg;

  @BeforeAll
  static void startPostgres() throws Exception {
    pg = EmbeddedPostgres.builder()
        .setOverrideWorkingDirectory(new File("target/embedded-pg"))
        .setDataDirectory(new File("target/pgdata-" + UUID.randomUUID())).setCleanDataDirectory(true)
        .start();
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    pg.close();
  }

  @Override
  String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres";
  }

  @Override
  String user() {
    return "postgres";
  }

  @Override
  String password() {
    return "";
  }

  @Override
  Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), user(), password());
  }

  @Override
  String targetSchemaPrefix() {
    return "t_";
  }

  @Override
  List<String> countingTriggerSql(String schema) {
    String s = '"' + schema + '"';
    return List.of("CREATE TABLE " + s + ".apply_count (n bigint)", "INSERT INTO " + s + ".apply_count VALUES (0)",
        "CREATE FUNCTION " + s + ".bump() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE " + s
            + ".apply_count SET n = n + 1; RETURN NEW; END $$",
        "CREATE TRIGGER bump AFTER INSERT OR UPDATE ON " + s + ".orders FOR EACH ROW EXECUTE FUNCTION " + s + ".bump()",
        // the apply session runs as a replica (session_replication_role), where only ALWAYS triggers fire
        "ALTER TABLE " + s + ".orders ENABLE ALWAYS TRIGGER bump");
  }

  @Override
  String sameDialectAddQty() {
    return "ALTER TABLE public.orders ADD COLUMN qty bigint";
  }

  @Override
  String otherDialect() {
    return "mysql";
  }

  @Test
  void aConnectionKilledMidBatchKeepsNothingAndTheRetrySucceeds() throws Exception {
    sink.apply(List.of(ins(101, 1, "a")), 101);
    String s = '"' + schema + '"';
    exec("CREATE FUNCTION " + s + ".die() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            + "IF NEW.note = 'kill' THEN PERFORM pg_terminate_backend(pg_backend_pid()); END IF; RETURN NEW; END $$",
        "CREATE TRIGGER die BEFORE INSERT ON " + s + ".orders FOR EACH ROW EXECUTE FUNCTION " + s + ".die()",
        "ALTER TABLE " + s + ".orders ENABLE ALWAYS TRIGGER die");   // the apply session is a replica
    List<dev.sluice.dispatcher.Transaction> batch = List.of(ins(102, 2, "b"), ins(103, 3, "kill"), ins(104, 4, "d"));

    assertThatThrownBy(() -> sink.apply(batch, 104)).isInstanceOf(SinkUnavailableException.class)
        .hasMessageContaining("nothing of the batch was kept");
    assertThat(rows()).containsExactly("1:a:null");
    assertThat(storedCheckpoint()).isEqualTo(101);

    exec("DROP TRIGGER die ON " + s + ".orders");
    sink.apply(batch, 104);
    assertThat(rows()).containsExactly("1:a:null", "2:b:null", "3:kill:null", "4:d:null");
    assertThat(storedCheckpoint()).isEqualTo(104);
  }

  /**
   * Issue #17: a snapshot chunk's READ rows load by COPY through a staging table of the sink's transaction (a
   * statement trigger sees it), replace the rows there, and commit with the checkpoint. A chunk whose batch
   * failed after its load is applied again after the rollback, and a later chunk loads too: before the staging
   * tables were dropped and forgotten at each transaction's end, the retry found its staging table gone with
   * the rollback and failed.
   */
  @Test
  void snapshotChunksLoadByCopyWithTheirCheckpointAndAgainAfterARollback() throws Exception {
    sink.apply(List.of(ins(100, 5, "old")), 100);
    String s = '"' + schema + '"';
    exec("CREATE TABLE " + s + ".staged (n bigint)",
        "CREATE FUNCTION " + s + ".seen() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO " + s + ".staged"
            + " SELECT count(*) FROM pg_class WHERE relname LIKE 'sluice_copy_%' AND pg_table_is_visible(oid);"
            + " RETURN NULL; END $$",
        "CREATE TRIGGER seen AFTER INSERT ON " + s + ".orders FOR EACH STATEMENT EXECUTE FUNCTION " + s
            + ".seen()",
        "CREATE FUNCTION " + s + ".boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.note = 'boom' THEN"
            + " RAISE EXCEPTION 'boom row'; END IF; RETURN NEW; END $$",
        "CREATE TRIGGER boom BEFORE INSERT ON " + s + ".orders FOR EACH ROW EXECUTE FUNCTION " + s + ".boom()",
        // the apply session runs as a replica (session_replication_role), where only ALWAYS triggers fire
        "ALTER TABLE " + s + ".orders ENABLE ALWAYS TRIGGER seen", "ALTER TABLE " + s + ".orders ENABLE ALWAYS TRIGGER boom");
    dev.sluice.dispatcher.Transaction first = chunk(200, 1, 200);

    assertThatThrownBy(() -> sink.apply(List.of(first, ins(201, 999, "boom")), 201)).hasMessageContaining("boom row");
    assertThat(rows()).containsExactly("5:old:null");
    sink.apply(List.of(first), 200);
    sink.apply(List.of(chunk(300, 150, 349)), 300);

    List<String> expected = new java.util.ArrayList<>();
    for (long id = 1; id <= 349; id++) {
      expected.add(id + ":r" + id + ":null");
    }
    assertThat(rows()).containsExactlyElementsOf(expected);
    assertThat(storedCheckpoint()).isEqualTo(300);
    assertThat(scalar("SELECT count(*) FROM " + s + ".staged WHERE n > 0")).as("statements loading from a staging table")
        .isEqualTo(2);
  }

  /**
   * Regression (found rebasing onto the keyless apply): a keyless table's rows take their own path, which
   * had no case for READ, so a snapshot's rows of such a table were dropped without a word. A small chunk
   * (the row path) and a large one (COPY) both append.
   */
  @Test
  void aKeylessTablesSnapshotRowsAreAppended() throws Exception {
    TableInfo keyless = SinkFixtures.ORDERS.toBuilder().setTableId(16390).setTableName("log").clearPrimaryKey().build();
    sink.apply(List.of(chunk(keyless, 400, 1, 3)), 400);
    sink.apply(List.of(chunk(keyless, 500, 4, 103)), 500);
    assertThat(scalar("SELECT count(*) FROM \"" + schema + "\".log")).isEqualTo(103);
    assertThat(scalar("SELECT count(DISTINCT id) FROM \"" + schema + "\".log")).isEqualTo(103);
  }

  /**
   * A table the changefeed found existing (no CREATE in its stream) is created from its table info. Its STORED
   * generated columns, which no row carries, were left out, so {@code SELECT *} on the copy lacked them; now the
   * target computes them, each at the place the source has it: from a snapshot chunk loaded by COPY and from
   * upserted live rows alike.
   */
  @Test
  void aTableCreatedFromItsTableInfoComputesItsGeneratedColumnsAtTheirPlaces() throws Exception {
    TableInfo measured = SinkFixtures.ORDERS.toBuilder().setTableId(16396).setTableName("measured")
        .addGeneratedColumns(dev.sluice.api.v1.GeneratedColumn.newBuilder().setName("label").setSourceType("text")
            .setExpression("(upper((note)::text) || '!'::text)").setPosition(2).setNullable(true))
        .addGeneratedColumns(dev.sluice.api.v1.GeneratedColumn.newBuilder().setName("words").setSourceType("tsvector")
            .setExpression("to_tsvector('simple'::regconfig, (COALESCE(note, ''::character varying))::text)")
            .setPosition(4).setNullable(true))
        .build();
    sink.apply(List.of(chunk(measured, 600, 1, 100)), 600);
    sink.apply(List.of(txn(601, measured, insert(measured, 0, i(101), SinkFixtures.s("live"), nul()),
        SinkFixtures.update(measured, 1, List.of(i(5), SinkFixtures.s("r5"), nul()), i(5), SinkFixtures.s("moved"),
            nul()))), 601);
    sink.finishDeferredKeys();   // the chunk loaded without the key: the live rows wait for it

    List<String> rows = tableAsText("measured");
    assertThat(rows).hasSize(101);
    assertThat(rows.get(0)).isEqualTo("(1,r1,R1!,,'r1':1)");
    assertThat(rows.get(4)).isEqualTo("(5,moved,MOVED!,,'moved':1)");
    assertThat(rows.get(100)).isEqualTo("(101,live,LIVE!,,'live':1)");
  }

  /**
   * A generated column whose expression this target cannot compute (a function only the source has) does not keep
   * the table from being created: it is created without it, as on other dialects, and takes its rows.
   */
  @Test
  void aGeneratedColumnTheTargetCannotComputeIsLeftOut() throws Exception {
    TableInfo calls = SinkFixtures.ORDERS.toBuilder().setTableId(16397).setTableName("calls")
        .addGeneratedColumns(dev.sluice.api.v1.GeneratedColumn.newBuilder().setName("twice").setSourceType("bigint")
            .setExpression("src_only.twice(id)").setPosition(1).setNullable(true))
        .build();
    sink.apply(List.of(txn(700, calls, insert(calls, 0, i(1), SinkFixtures.s("a"), nul()))), 700);
    assertThat(tableAsText("calls")).containsExactly("(1,a,)");
  }

  /** sales (region, day, amount) partitioned as in the source: LIST by region, its 'eu' partition RANGE by day. */
  private static TableInfo sales(long id, String name, String partitionBy, String bound, List<String> key,
      dev.sluice.api.v1.PartitionAncestor... ancestors) {
    return TableInfo.newBuilder().setTableId(id).setSchemaName("public").setTableName(name).setVersion(1)
        .addColumns(SinkFixtures.col("region", "text", dev.sluice.api.v1.ValueKind.VALUE_KIND_STRING, false))
        .addColumns(SinkFixtures.col("day", "integer", dev.sluice.api.v1.ValueKind.VALUE_KIND_INT64, false))
        .addColumns(SinkFixtures.col("amount", "bigint", dev.sluice.api.v1.ValueKind.VALUE_KIND_INT64, false))
        .addGeneratedColumns(dev.sluice.api.v1.GeneratedColumn.newBuilder().setName("doubled").setSourceType("bigint")
            .setExpression("(amount * 2)").setPosition(3).setNullable(true))
        .addAllPrimaryKey(key).setPartitionBy(partitionBy).setPartitionBound(bound)
        .addAllPartitionAncestors(List.of(ancestors)).build();
  }

  private static dev.sluice.api.v1.PartitionAncestor ancestor(String name, String by, String bound) {
    return dev.sluice.api.v1.PartitionAncestor.newBuilder().setSchemaName("public").setTableName(name)
        .setPartitionBy(by).setPartitionBound(bound).build();
  }

  private static dev.sluice.dispatcher.Transaction sale(long commitTs, TableInfo t, String region, long day,
      long amount) {
    return txn(commitTs, t, insert(t, 0, SinkFixtures.s(region), i(day), i(amount)));
  }

  /**
   * A table the changefeed found existing is created from its table info; a partition was created as a plain table,
   * its parent too, so the parent held none of its partitions' rows ({@code SELECT * FROM parent} on the copy was
   * empty). Now a partition is created as a partition of its parent, and the partitioned tables above it that the
   * target lacks first, whichever table's rows come first: a two-level hierarchy with a DEFAULT partition, generated
   * columns from the root, and a partition keyed on its own under a keyless parent. A column added at the top reaches
   * the partitions, whose own derived ADD COLUMN then finds nothing to do (PostgreSQL refuses it on a partition).
   */
  @Test
  void aPartitionCreatedFromItsTableInfoJoinsItsHierarchy() throws Exception {
    dev.sluice.api.v1.PartitionAncestor root = ancestor("sales", "LIST (region)", "");
    dev.sluice.api.v1.PartitionAncestor eu = ancestor("sales_eu", "RANGE (day)", "FOR VALUES IN ('eu')");
    TableInfo eu2025 = sales(16400, "sales_eu_2025", "", "FOR VALUES FROM (2025) TO (2026)", List.of(), eu, root);
    TableInfo us = sales(16401, "sales_us", "", "FOR VALUES IN ('us')", List.of("day", "amount"), root);
    TableInfo rest = sales(16402, "sales_rest", "", "DEFAULT", List.of(), root);
    TableInfo top = sales(16403, "sales", "LIST (region)", "", List.of());

    sink.apply(List.of(sale(800, eu2025, "eu", 2025, 1), sale(801, us, "us", 2025, 2), sale(802, rest, "asia", 7, 3),
        sale(803, top, "us", 2026, 4)), 803);

    String s = '"' + schema + '"';
    assertThat(tableAsText("sales", "amount")).containsExactly("(eu,2025,1,2)", "(us,2025,2,4)", "(asia,7,3,6)",
        "(us,2026,4,8)");
    assertThat(scalar("SELECT count(*) FROM ONLY " + s + ".sales_us")).isEqualTo(2);
    assertThat(scalar("SELECT count(*) FROM pg_partition_tree('" + s + ".sales')")).isEqualTo(5);
    assertThat(scalar("SELECT count(*) FROM pg_constraint WHERE conrelid = '" + s + ".sales_us'::regclass"
        + " AND contype = 'p'")).as("the partition's own key").isEqualTo(1);

    TableInfo topNoted = top.toBuilder().setVersion(900)
        .addColumns(SinkFixtures.col("note", "text", dev.sluice.api.v1.ValueKind.VALUE_KIND_STRING, true)).build();
    TableInfo usNoted = us.toBuilder().setVersion(900)
        .addColumns(SinkFixtures.col("note", "text", dev.sluice.api.v1.ValueKind.VALUE_KIND_STRING, true)).build();
    sink.applyDdl(SinkFixtures.ddl(900, dev.sluice.api.v1.DdlType.DDL_TYPE_ADD_COLUMN,
        "ALTER TABLE public.sales ADD COLUMN note text", "postgresql", top, topNoted), 900);
    sink.applyDdl(SinkFixtures.ddl(900, dev.sluice.api.v1.DdlType.DDL_TYPE_ADD_COLUMN, "", "", us, usNoted), 900);
    sink.apply(List.of(txn(901, usNoted, insert(usNoted, 0, SinkFixtures.s("us"), i(2027), i(5),
        SinkFixtures.s("late")))), 901);
    assertThat(tableAsText("sales", "amount")).contains("(us,2027,5,10,late)");
  }

  /**
   * A snapshot into an empty partition loads with its key: the deferral that loads an empty table without it (and
   * adds it back at the end) is not tried on a partition, whose key is often its parent's (PostgreSQL refuses to drop
   * an inherited one), nor on a partitioned table, whose key is every partition's.
   */
  @Test
  void aSnapshotIntoAPartitionLoadsWithItsKey() throws Exception {
    TableInfo part = sales(16420, "keyed_2025", "", "FOR VALUES FROM (2025) TO (2026)", List.of("region", "day"),
        ancestor("keyed", "RANGE (day)", "").toBuilder().addPrimaryKey("region").addPrimaryKey("day").build());
    List<dev.sluice.dispatcher.RowChangeView> rows = new java.util.ArrayList<>();
    for (int n = 0; n < 200; n++) {
      rows.add(new dev.sluice.dispatcher.RowChangeView(dev.sluice.api.v1.RowOp.ROW_OP_READ, n, 0,
          dev.sluice.dispatcher.RowImage.of(part, List.of()),
          dev.sluice.dispatcher.RowImage.of(part, List.of(SinkFixtures.s("r" + n), i(2025), i(n)))));
    }
    sink.apply(List.of(new dev.sluice.dispatcher.Transaction(960, 0, part, rows, true, true)), 960);
    sink.finishDeferredKeys();
    assertThat(scalar("SELECT count(*) FROM \"" + schema + "\".keyed")).isEqualTo(200);
    assertThat(scalar("SELECT count(*) FROM pg_constraint WHERE conrelid = '\"" + schema + "\".keyed_2025'::regclass"
        + " AND contype = 'p'")).isEqualTo(1);
  }

  /**
   * A partition attached after it was created may hold its parent's columns in another order: the parent created from
   * the partition's table info takes its own order (recorded with the ancestor), so {@code SELECT *} on it shows the
   * columns as upstream, the generated one at its place too.
   */
  @Test
  void aParentCreatedFromItsPartitionKeepsItsOwnColumnOrder() throws Exception {
    TableInfo part = sales(16430, "shuffled_eu", "", "FOR VALUES IN ('eu')", List.of(),
        ancestor("shuffled", "LIST (region)", "").toBuilder()
            .addAllColumnNames(List.of("day", "doubled", "region", "amount")).build());
    sink.apply(List.of(sale(970, part, "eu", 2025, 1)), 970);
    assertThat(tableAsText("shuffled", "amount")).containsExactly("(2025,2,eu,1)");
    assertThat(tableAsText("shuffled_eu", "amount")).containsExactly("(2025,2,eu,1)");
  }

  /**
   * A partition whose parent exists on the target as a plain table (created before, by hand or by an earlier version)
   * cannot join it: it is created as a plain table, with a warning, and takes its rows.
   */
  @Test
  void aPartitionWhoseParentIsAPlainTableHereIsCreatedPlain() throws Exception {
    exec("CREATE SCHEMA IF NOT EXISTS \"" + schema + "\"",
        "CREATE TABLE \"" + schema + "\".flat (region text, day integer, amount bigint)");
    TableInfo part = sales(16410, "flat_us", "", "FOR VALUES IN ('us')", List.of(), ancestor("flat", "LIST (region)",
        ""));
    sink.apply(List.of(sale(950, part, "us", 1, 9)), 950);
    assertThat(tableAsText("flat_us", "amount")).containsExactly("(us,1,9,18)");
    assertThat(scalar("SELECT count(*) FROM \"" + schema + "\".flat")).isZero();
  }

  /** A snapshot chunk at {@code commitTs}: READ rows (id, "r" + id, null) for ids {@code from..to}. */
  private static dev.sluice.dispatcher.Transaction chunk(long commitTs, long from, long to) {
    return chunk(SinkFixtures.ORDERS, commitTs, from, to);
  }

  private static dev.sluice.dispatcher.Transaction chunk(TableInfo table, long commitTs, long from, long to) {
    List<dev.sluice.dispatcher.RowChangeView> rows = new java.util.ArrayList<>();
    for (long id = from; id <= to; id++) {
      rows.add(new dev.sluice.dispatcher.RowChangeView(dev.sluice.api.v1.RowOp.ROW_OP_READ, id - from, 0,
          dev.sluice.dispatcher.RowImage.of(table, List.of()), dev.sluice.dispatcher.RowImage.of(
              table, List.of(i(id), SinkFixtures.s("r" + id), nul()))));
    }
    return new dev.sluice.dispatcher.Transaction(commitTs, 0, table, rows, true, true);
  }

  /** Text, a text array and bytea: what a COPY line escapes. */
  private static final TableInfo BLOBS = TableInfo.newBuilder().setTableId(16395).setSchemaName("public")
      .setTableName("blobs_lined").setVersion(1).addPrimaryKey("id")
      .addColumns(SinkFixtures.col("id", "bigint", dev.sluice.api.v1.ValueKind.VALUE_KIND_INT64, false))
      .addColumns(SinkFixtures.col("note", "text", dev.sluice.api.v1.ValueKind.VALUE_KIND_STRING, true))
      .addColumns(SinkFixtures.col("tags", "text[]", dev.sluice.api.v1.ValueKind.VALUE_KIND_ARRAY, true).toBuilder()
          .setElementKind(dev.sluice.api.v1.ValueKind.VALUE_KIND_STRING).build())
      .addColumns(SinkFixtures.col("b", "bytea", dev.sluice.api.v1.ValueKind.VALUE_KIND_BYTES, true)).build();
  private static final List<dev.sluice.api.v1.ColumnCodec> BLOBS_CODECS = List.of(
      dev.sluice.api.v1.ColumnCodec.newBuilder().setCodec(dev.sluice.api.v1.TextCodec.TEXT_CODEC_INT).build(),
      dev.sluice.api.v1.ColumnCodec.newBuilder().setCodec(dev.sluice.api.v1.TextCodec.TEXT_CODEC_TEXT).build(),
      dev.sluice.api.v1.ColumnCodec.newBuilder().setCodec(dev.sluice.api.v1.TextCodec.TEXT_CODEC_ARRAY)
          .setElementCodec(dev.sluice.api.v1.TextCodec.TEXT_CODEC_TEXT).setElementDelimiter(",").build(),
      dev.sluice.api.v1.ColumnCodec.newBuilder().setCodec(dev.sluice.api.v1.TextCodec.TEXT_CODEC_BYTEA).build());

  /** Row {@code id}'s note: tabs, newlines, backslashes, NULL, a literal \N and unicode by turns. */
  private static String blobNote(long id) {
    return switch ((int) (id % 5)) {
      case 0 -> null;
      case 1 -> "tab\there, line\nbreak, back\\slash " + id;
      case 2 -> "Grüße, 世界 🙂 " + id;
      case 3 -> "\\N";
      default -> "plain " + id;
    };
  }

  /**
   * A snapshot chunk of BLOBS rows {@code from..to} at {@code commitTs} over {@code table}: as COPY lines in one
   * buffer, as PostgreSQL writes them, when {@code lines}, else as the typed values they stand for.
   */
  private static dev.sluice.dispatcher.Transaction blobChunk(TableInfo table, long commitTs, long from, long to,
      boolean lines) {
    StringBuilder text = new StringBuilder();
    for (long id = from; id <= to; id++) {
      text.append(id).append('\t');
      dev.sluice.api.pgtext.CopyText.appendEscaped(text, blobNote(id));
      text.append('\t');
      dev.sluice.api.pgtext.CopyText.appendEscaped(text, "{x" + id + ",\"a b\",NULL,\"back\\\\slash\",\"q\\\"uote\"}");
      text.append('\t');
      dev.sluice.api.pgtext.CopyText.appendEscaped(text, String.format("\\x00%02x5c0a09ff", id % 256));
      text.append('\n');
    }
    byte[] buffer = text.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    List<dev.sluice.dispatcher.RowChangeView> rows = new java.util.ArrayList<>();
    int offset = 0;
    for (long id = from; id <= to; id++) {
      int end = dev.sluice.api.pgtext.CopyText.lineEnd(buffer, offset, buffer.length);
      String note = blobNote(id);
      dev.sluice.dispatcher.RowImage after = lines
          ? dev.sluice.dispatcher.RowImage.ofCopyLine(table, BLOBS_CODECS,
              new dev.sluice.dispatcher.CopyLine(buffer, offset, end), id - from)
          : dev.sluice.dispatcher.RowImage.of(table, List.of(i(id), note == null ? nul() : SinkFixtures.s(note),
              arr(SinkFixtures.s("x" + id), SinkFixtures.s("a b"), nul(), SinkFixtures.s("back\\slash"),
                  SinkFixtures.s("q\"uote")),
              SinkFixtures.bytes((byte) 0, (byte) (id % 256), (byte) 0x5c, (byte) 0x0a, (byte) 0x09, (byte) 0xff)));
      rows.add(new dev.sluice.dispatcher.RowChangeView(dev.sluice.api.v1.RowOp.ROW_OP_READ, id - from, 0,
          dev.sluice.dispatcher.RowImage.of(table, List.of()), after));
      offset = end + 1;
    }
    return new dev.sluice.dispatcher.Transaction(commitTs, 0, table, rows, true, true);
  }

  private List<String> tableAsText(String table) throws SQLException {
    return tableAsText(table, "id");
  }

  private List<String> tableAsText(String table, String orderBy) throws SQLException {
    List<String> out = new java.util.ArrayList<>();
    try (Connection c = connect(); java.sql.Statement st = c.createStatement();
        java.sql.ResultSet rs = st.executeQuery("SELECT t.*::text FROM " + config().dialect().qualified(schema, table)
            + " t ORDER BY " + orderBy)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  /**
   * Feature copy-text: a snapshot chunk whose READ rows are COPY lines loads by COPY as the lines are, into the
   * same rows as the chunk of their typed values, straight into an empty target and, after a live row took one
   * of its keys, through the staging table; a chunk too small for COPY is upserted row by row from their values.
   */
  @Test
  void aSnapshotChunkOfCopyLinesLoadsAsTheChunkOfItsValuesStraightInAndAfterAConflict() throws Exception {
    TableInfo typed = BLOBS.toBuilder().setTableId(16396).setTableName("blobs_typed").build();
    sink.apply(List.of(blobChunk(BLOBS, 200, 1, 100, true), blobChunk(typed, 200, 1, 100, false)), 200);
    assertThat(tableAsText("blobs_lined")).hasSize(100).isEqualTo(tableAsText("blobs_typed"));
    assertThat(tableAsText("blobs_lined").get(0)).contains("back\\\\slash").contains("\\\\x0001");

    sink.apply(List.of(txn(201, BLOBS, insert(BLOBS, 0, i(150), SinkFixtures.s("live"), nul(), nul())),
        txn(201, typed, insert(typed, 0, i(150), SinkFixtures.s("live"), nul(), nul()))), 201);
    sink.apply(List.of(blobChunk(BLOBS, 300, 101, 200, true), blobChunk(typed, 300, 101, 200, false)), 300);

    assertThat(tableAsText("blobs_lined")).hasSize(200).isEqualTo(tableAsText("blobs_typed"))
        .noneMatch(row -> row.contains("live"));

    // a chunk too small for COPY goes row by row (RowWriter, as for MySQL), reading the lines' values
    sink.apply(List.of(blobChunk(BLOBS, 400, 201, 210, true), blobChunk(typed, 400, 201, 210, false)), 400);
    assertThat(tableAsText("blobs_lined")).hasSize(210).isEqualTo(tableAsText("blobs_typed"));
    assertThat(storedCheckpoint()).isEqualTo(400);
  }

  /**
   * The lines are loaded, never decoded: a chunk whose codecs this client does not know (a newer broker's) still
   * loads into PostgreSQL, while reading a value of it says which column and row cannot be decoded.
   */
  @Test
  void copyLinesLoadWithoutBeingDecoded() throws Exception {
    dev.sluice.dispatcher.Transaction known = blobChunk(BLOBS, 200, 1, 100, true);
    List<dev.sluice.api.v1.ColumnCodec> unknown = java.util.Collections.nCopies(BLOBS.getColumnsCount(),
        dev.sluice.api.v1.ColumnCodec.newBuilder().setCodecValue(99).build());
    List<dev.sluice.dispatcher.RowChangeView> rows = known.rows().stream().map(r -> new dev.sluice.dispatcher
        .RowChangeView(r.op(), r.rowSeq(), r.keyHash(), r.before(), dev.sluice.dispatcher.RowImage.ofCopyLine(BLOBS,
            unknown, r.after().copyLine(), r.rowSeq()))).toList();
    assertThat(rows.get(0).after().value("id").getStringValue()).as("a codec this client does not know: its text")
        .isEqualTo("1");

    sink.apply(List.of(new dev.sluice.dispatcher.Transaction(200, 0, BLOBS, rows, true, true)), 200);
    assertThat(tableAsText("blobs_lined")).hasSize(100).first().asString().startsWith("(1,\"tab");
  }

  /** Issue #16 (4): 22009 "time zone displacement out of range: +294247-01-10 ..." and "-4712-01-01" stopped it. */
  @Test
  void infinityBcAndTheExtremeFiniteDatesAndTimestampsAreWrittenExactly() throws Exception {
    TableInfo m = SinkFixtures.MOMENTS;
    LocalDateTime max = LocalDateTime.of(294276, 12, 31, 23, 59, 59, 999_999_000);
    LocalDateTime min = LocalDateTime.of(-4713, 11, 24, 0, 0);
    LocalDateTime longMax = LocalDateTime.of(294247, 1, 10, 4, 0, 54, 775_807_000);
    sink.apply(List.of(txn(101, m,
        insert(m, 0, i(1), dateInfinity(1), tsInfinity(1, false), tsInfinity(-1, true),
            arr(dateInfinity(-1), date(LocalDate.of(2024, 2, 29)), dateInfinity(1)),
            arr(tsInfinity(1, true), nul(), tsInfinity(-1, true))),
        insert(m, 1, i(2), date(LocalDate.of(-4712, 1, 1)), ts(LocalDateTime.of(-43, 3, 15, 12, 0), false),
            ts(LocalDateTime.of(0, 12, 31, 23, 59, 59, 999_999_000), true),
            arr(date(LocalDate.of(-4713, 11, 24)), date(LocalDate.of(1, 1, 1))), arr(ts(min, true))),
        insert(m, 2, i(3), date(LocalDate.of(5874897, 12, 31)), ts(max, false), ts(max, true),
            arr(date(LocalDate.of(5874897, 12, 31))), arr(ts(max, true), ts(min, true))),
        insert(m, 3, i(4), date(LocalDate.of(-4713, 11, 24)), ts(longMax, false), ts(min, true), nul(), nul()))), 101);

    assertThat(momentsAsText()).containsExactly(
        "1|infinity|infinity|-infinity|{-infinity,2024-02-29,infinity}|{infinity,NULL,-infinity}",
        "2|4713-01-01 BC|0044-03-15 12:00:00 BC|0001-12-31 23:59:59.999999+00 BC|{\"4714-11-24 BC\",0001-01-01}"
            + "|{\"4714-11-24 00:00:00+00 BC\"}",
        "3|5874897-12-31|294276-12-31 23:59:59.999999|294276-12-31 23:59:59.999999+00|{5874897-12-31}"
            + "|{\"294276-12-31 23:59:59.999999+00\",\"4714-11-24 00:00:00+00 BC\"}",
        "4|4714-11-24 BC|294247-01-10 04:00:54.775807|4714-11-24 00:00:00+00 BC|null|null");
  }

  private List<String> momentsAsText() throws SQLException {
    List<String> out = new java.util.ArrayList<>();
    try (Connection c = connect(); java.sql.Statement st = c.createStatement()) {
      st.execute("SET TIME ZONE 'UTC'");
      try (java.sql.ResultSet rs = st.executeQuery("SELECT id, d::text, t::text, tz::text, ds::text, tzs::text FROM "
          + config().dialect().qualified(schema, "moments") + " ORDER BY id")) {
        while (rs.next()) {
          StringBuilder row = new StringBuilder(rs.getString(1));
          for (int k = 2; k <= 6; k++) {
            row.append('|').append(rs.getString(k));
          }
          out.add(row.toString());
        }
      }
    }
    return out;
  }

  /**
   * One target transaction that creates an enum for a new table, then gets a label added to it and a row using
   * that label: PostgreSQL refused the label as an "unsafe use of new value" (55P04) when the type was created
   * in that transaction; RealSchemasEndToEndTest failed so whenever the catch-up put them in one batch.
   */
  @Test
  void anEnumCreatedAndGivenALabelInOneTargetTransactionCanUseTheLabel() throws Exception {
    String types = "types1_" + schema;
    TableInfo v1 = SinkFixtures.people(types, 100, "sad", "ok");
    TableInfo v2 = SinkFixtures.people(types, 200, "sad", "happy", "ok");
    sink.applyInOrder(List.of(
        new SinkChange.Schema(SinkFixtures.ddl(100, dev.sluice.api.v1.DdlType.DDL_TYPE_CREATE_TABLE,
            "CREATE TABLE public.people (id bigint PRIMARY KEY, m " + types + ".mood, ms " + types + ".mood[], p price,"
                + " t tagged)", "postgresql", TableInfo.getDefaultInstance(), v1)),
        new SinkChange.Rows(txn(101, v1, insert(v1, 0, i(1), SinkFixtures.s("ok"), arr(SinkFixtures.s("sad")),
            SinkFixtures.dec("1.00"), SinkFixtures.s("(x,sad)")))),
        new SinkChange.Schema(SinkFixtures.ddl(200, dev.sluice.api.v1.DdlType.DDL_TYPE_ALTER_TYPE, "ALTER TYPE "
            + types + ".mood ADD VALUE 'happy' AFTER 'sad'", "postgresql", v1, v2)),
        new SinkChange.Rows(txn(201, v2, insert(v2, 0, i(2), SinkFixtures.s("happy"), arr(SinkFixtures.s("happy")),
            SinkFixtures.dec("0"), SinkFixtures.s("(y,happy)"))))), true, 201);

    assertThat(text("SELECT string_agg(format('%s|%s', m, ms), ';' ORDER BY id) FROM \"" + schema + "\".people"))
        .isEqualTo("ok|{sad};happy|{happy}");
    assertThat(sink.checkpoint().checkpointTs()).isEqualTo(201);
  }

  /** Issue #16 (5): a table using an enum failed with 'type "types.mood" does not exist'. */
  @Test
  void userDefinedTypesAreCreatedBeforeTheTableAndFollowAlterType() throws Exception {
    String types = "types_" + schema;
    TableInfo v1 = SinkFixtures.people(types, 100, "sad", "ok");
    sink.applyDdl(SinkFixtures.ddl(100, dev.sluice.api.v1.DdlType.DDL_TYPE_CREATE_TABLE, "CREATE TABLE public.people"
        + " (id bigint PRIMARY KEY, m " + types + ".mood, ms " + types + ".mood[], p price, t tagged)", "postgresql",
        TableInfo.getDefaultInstance(), v1), 100);
    sink.apply(List.of(txn(101, v1, insert(v1, 0, i(1), SinkFixtures.s("ok"), arr(SinkFixtures.s("sad"),
        SinkFixtures.s("ok")), SinkFixtures.dec("12.50"), SinkFixtures.s("(x,sad)")))), 101);

    TableInfo v2 = SinkFixtures.people(types, 200, "sad", "happy", "ok");
    sink.applyDdl(SinkFixtures.ddl(200, dev.sluice.api.v1.DdlType.DDL_TYPE_ALTER_TYPE, "ALTER TYPE " + types
        + ".mood ADD VALUE 'happy' AFTER 'sad'", "postgresql", v1, v2), 200);
    sink.apply(List.of(txn(201, v2, insert(v2, 0, i(2), SinkFixtures.s("happy"), arr(SinkFixtures.s("happy")),
        SinkFixtures.dec("0"), SinkFixtures.s("(y,happy)")))), 201);
    // a second table using the type gets the same ALTER TYPE: nothing left to do
    sink.applyDdl(SinkFixtures.ddl(200, dev.sluice.api.v1.DdlType.DDL_TYPE_ALTER_TYPE, "ALTER TYPE " + types
        + ".mood ADD VALUE 'happy' AFTER 'sad'", "postgresql", v1, v2.toBuilder().setTableId(20004).build()), 201);

    assertThat(text("SELECT enum_range(NULL::" + types + ".mood)::text")).isEqualTo("{sad,happy,ok}");
    assertThat(text("SELECT string_agg(format('%s|%s|%s|%s', m, ms, p, t), ';' ORDER BY id) FROM \"" + schema
        + "\".people")).isEqualTo("ok|{sad,ok}|12.50|(x,sad);happy|{happy}|0.00|(y,happy)");
    assertThat(text("SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = '\"" + schema
        + "\".people'::regclass AND attname = 'p'")).as("the domain went with the table").isEqualTo(schema + ".price");
    assertThatThrownBy(() -> exec("INSERT INTO \"" + schema + "\".people (id, p) VALUES (9, -1)"))
        .hasMessageContaining("positive");
  }

  /** Derived from the table info (no statement): the columns get the user-defined types, created first. */
  @Test
  void aTableCreatedFromItsTableInfoUsesItsUserDefinedTypes() throws Exception {
    String types = "types_" + schema;
    TableInfo v1 = SinkFixtures.people(types, 100, "sad", "ok");
    sink.apply(List.of(txn(101, v1, insert(v1, 0, i(1), SinkFixtures.s("sad"), nul(), nul(), nul()))), 101);

    assertThat(text("SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = '\"" + schema
        + "\".people'::regclass AND attname = 'ms'")).isEqualTo(types + ".mood[]");
    assertThat(text("SELECT m::text FROM \"" + schema + "\".people")).isEqualTo("sad");
  }

  private String text(String sql) throws SQLException {
    try (Connection c = connect(); java.sql.Statement st = c.createStatement(); java.sql.ResultSet rs = st.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }
}
