package dev.sluice.dispatcher.sink;

import static dev.sluice.dispatcher.sink.SinkFixtures.arr;
import static dev.sluice.dispatcher.sink.SinkFixtures.bytes;
import static dev.sluice.dispatcher.sink.SinkFixtures.col;
import static dev.sluice.dispatcher.sink.SinkFixtures.dateInfinity;
import static dev.sluice.dispatcher.sink.SinkFixtures.dec;
import static dev.sluice.dispatcher.sink.SinkFixtures.i;
import static dev.sluice.dispatcher.sink.SinkFixtures.nul;
import static dev.sluice.dispatcher.sink.SinkFixtures.s;
import static dev.sluice.dispatcher.sink.SinkFixtures.ts;
import static dev.sluice.dispatcher.sink.SinkFixtures.unavailable;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.pgtext.CopyText;
import dev.sluice.api.v1.ColumnCodec;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.TextCodec;
import dev.sluice.api.v1.Value;
import dev.sluice.api.v1.ValueKind;
import dev.sluice.dispatcher.CopyLine;
import dev.sluice.dispatcher.RowImage;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The COPY path for snapshot rows against a real PostgreSQL: the same images land exactly as the ordinary
 * upsert ({@link RowWriter}) writes them (every kind, NULLs, text with tabs, newlines and backslashes, the
 * special values), rows already there are replaced, a keyless table is appended to, and a failed load rolls
 * back with its transaction and leaves the loader usable. Images backed by COPY lines (feature copy-text), here
 * PostgreSQL's own COPY TO output of awkward rows, are written as they are and land as the rows they came from,
 * exactly as the typed images of their values do, straight in and through the staging table alike.
 */
class PgCopyLoaderTest {

  private static EmbeddedPostgres pg;
  private static final TableInfo WIDE = TableInfo.newBuilder().setTableId(30000).setSchemaName("public")
      .setTableName("wide").addPrimaryKey("id")
      .addColumns(col("id", "bigint", ValueKind.VALUE_KIND_INT64, false))
      .addColumns(col("t", "text", ValueKind.VALUE_KIND_STRING, true))
      .addColumns(col("n", "numeric", ValueKind.VALUE_KIND_DECIMAL, true))
      .addColumns(col("at", "timestamp with time zone", ValueKind.VALUE_KIND_TIMESTAMP_TZ, true))
      .addColumns(col("d", "date", ValueKind.VALUE_KIND_DATE, true))
      .addColumns(col("b", "bytea", ValueKind.VALUE_KIND_BYTES, true))
      .addColumns(col("a", "integer[]", ValueKind.VALUE_KIND_ARRAY, true)).build();

  @BeforeAll
  static void start() throws Exception {
    pg = EmbeddedPostgres.builder().setOverrideWorkingDirectory(new File("target/embedded-pg"))
        .setDataDirectory(new File("target/pgdata-" + UUID.randomUUID())).setCleanDataDirectory(true).start();
    try (Connection c = connect(); Statement s = c.createStatement()) {
      for (String t : List.of("copied", "upserted", "straight")) {
        s.execute("CREATE TABLE " + t + " (id bigint PRIMARY KEY, t text, n numeric, at timestamptz, d date, b bytea,"
            + " a int[])");
      }
      s.execute("CREATE TABLE heap (id bigint, t text, n numeric, at timestamptz, d date, b bytea, a int[])");
    }
  }

  @AfterAll
  static void stop() throws Exception {
    pg.close();
  }

  private static Connection connect() throws Exception {
    return pg.getPostgresDatabase().getConnection();
  }

  private static List<RowImage> rows(int n) {
    List<RowImage> out = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      List<Value> v = List.of(i(k), k % 7 == 0 ? nul() : s("tab\there, line\nbreak, back\\slash, quote' " + k),
          k % 5 == 0 ? dec("NaN") : dec(k + ".50"), ts(1_700_000_000_000_000L + k, true),
          k % 11 == 0 ? dateInfinity(1) : Value.newBuilder().setDateValue(19_000 + k).build(),
          bytes((byte) 0, (byte) 255, (byte) '\\', (byte) k), arr(i(k), nul(), i(-k)));
      out.add(RowImage.of(WIDE, v));
    }
    return out;
  }

  @Test
  void copiedRowsEqualTheOrdinaryUpsertsAndReplaceTheRowsThere() throws Exception {
    List<RowImage> images = rows(300);
    try (Connection c = connect()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("INSERT INTO copied (id, t) VALUES (3, 'old'), (299, 'old')");
      }
      new PgCopyLoader(c).upsert("\"public\".\"copied\"", WIDE, images);
      try (RowWriter w = new RowWriter(c, Dialect.POSTGRESQL, 500)) {
        for (RowImage image : images) {
          w.upsert("\"public\".\"upserted\"", WIDE, image, java.util.Set.of());
        }
        w.flush();
      }
      c.commit();
    }
    assertThat(dump("copied")).hasSize(300).isEqualTo(dump("upserted"));
  }

  @Test
  void rowsGoStraightIntoAnEmptyTargetAndAKeyThereAlreadyFallsBackToStagingWithoutLosingEarlierRows()
      throws Exception {
    List<RowImage> images = rows(300);
    try (Connection c = connect()) {
      c.setAutoCommit(false);
      PgCopyLoader loader = new PgCopyLoader(c);
      loader.upsert("\"public\".\"straight\"", WIDE, images.subList(0, 100));
      assertThat(stagingTables(c)).isZero();   // no staging: the COPY went into the target
      try (Statement s = c.createStatement()) {
        s.execute("INSERT INTO straight (id, t) VALUES (150, 'old')");   // a live change ahead of the snapshot
      }
      loader.upsert("\"public\".\"straight\"", WIDE, images.subList(100, 200));   // meets key 150
      assertThat(stagingTables(c)).isEqualTo(1);
      loader.upsert("\"public\".\"straight\"", WIDE, images.subList(200, 300));
      c.commit();
      loader.transactionEnded();
    }
    try (Connection c = connect()) {
      c.setAutoCommit(false);
      try (RowWriter w = new RowWriter(c, Dialect.POSTGRESQL, 500)) {
        for (RowImage image : images) {
          w.upsert("\"public\".\"upserted\"", WIDE, image, java.util.Set.of());
        }
        w.flush();
      }
      c.commit();
    }
    assertThat(dump("straight")).hasSize(300).isEqualTo(dump("upserted"));
  }

  private static int stagingTables(Connection c) throws Exception {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_class"
        + " WHERE relname LIKE 'sluice_copy_%' AND relpersistence = 't'")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  @Test
  void aKeylessTableIsAppendedToAndAFailedLoadRollsBackAndLeavesTheLoaderUsable() throws Exception {
    TableInfo keyless = WIDE.toBuilder().setTableName("heap").clearPrimaryKey().build();
    try (Connection c = connect()) {
      c.setAutoCommit(false);
      PgCopyLoader loader = new PgCopyLoader(c);
      loader.upsert("\"public\".\"heap\"", keyless, rows(100));
      c.rollback();   // the staging table's creation goes with it
      loader.transactionEnded();
      try {
        loader.upsert("\"public\".\"nowhere\"", keyless, rows(1));
      } catch (java.sql.SQLException expected) {
        c.rollback();
        loader.transactionEnded();
      }
      loader.upsert("\"public\".\"heap\"", keyless, rows(100));
      loader.upsert("\"public\".\"heap\"", keyless, rows(100));
      c.commit();   // the staging table is dropped with the commit
      loader.transactionEnded();
      loader.upsert("\"public\".\"heap\"", keyless, rows(100));
      c.commit();
      loader.transactionEnded();
    }
    assertThat(dump("heap")).hasSize(300);
  }

  @Test
  void aBatchWithAnUnavailableValueIsRefusedWithNothingWritten() throws Exception {
    List<RowImage> images = new ArrayList<>(rows(3));
    List<Value> partial = new ArrayList<>(images.get(2).values());
    partial.set(1, unavailable());
    images.set(2, RowImage.of(WIDE, partial));
    try (Connection c = connect()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE partial (LIKE copied INCLUDING ALL)");
      }
      assertThat(new PgCopyLoader(c).upsert("\"public\".\"partial\"", WIDE, images)).isFalse();
      assertThat(new PgCopyLoader(c).upsert("\"public\".\"partial\"", WIDE, rows(3))).isTrue();
      c.commit();
    }
    assertThat(dump("partial")).hasSize(3);
  }

  /** Awkward columns of each kind a COPY line carries, with the codec each reads by; box[] is what adapt() adapts. */
  private static final String AWKWARD_COLUMNS = "id bigint PRIMARY KEY, t text, n numeric, at timestamptz, d date,"
      + " b bytea, a int[], ta text[], bx box[], r real, j jsonb, u uuid";
  private static final TableInfo AWKWARD = TableInfo.newBuilder().setTableId(30001).setSchemaName("public")
      .setTableName("awkward").addPrimaryKey("id")
      .addColumns(col("id", "bigint", ValueKind.VALUE_KIND_INT64, false))
      .addColumns(col("t", "text", ValueKind.VALUE_KIND_STRING, true))
      .addColumns(col("n", "numeric", ValueKind.VALUE_KIND_DECIMAL, true))
      .addColumns(col("at", "timestamp with time zone", ValueKind.VALUE_KIND_TIMESTAMP_TZ, true))
      .addColumns(col("d", "date", ValueKind.VALUE_KIND_DATE, true))
      .addColumns(col("b", "bytea", ValueKind.VALUE_KIND_BYTES, true))
      .addColumns(col("a", "integer[]", ValueKind.VALUE_KIND_ARRAY, true))
      .addColumns(col("ta", "text[]", ValueKind.VALUE_KIND_ARRAY, true))
      .addColumns(col("bx", "box[]", ValueKind.VALUE_KIND_ARRAY, true))
      .addColumns(col("r", "real", ValueKind.VALUE_KIND_DOUBLE, true))
      .addColumns(col("j", "jsonb", ValueKind.VALUE_KIND_JSON, true))
      .addColumns(col("u", "uuid", ValueKind.VALUE_KIND_UUID, true)).build();
  private static final List<ColumnCodec> AWKWARD_CODECS = List.of(codec(TextCodec.TEXT_CODEC_INT),
      codec(TextCodec.TEXT_CODEC_TEXT), codec(TextCodec.TEXT_CODEC_NUMERIC), codec(TextCodec.TEXT_CODEC_TIMESTAMPTZ),
      codec(TextCodec.TEXT_CODEC_DATE), codec(TextCodec.TEXT_CODEC_BYTEA),
      arrayCodec(TextCodec.TEXT_CODEC_INT, ","), arrayCodec(TextCodec.TEXT_CODEC_TEXT, ","),
      arrayCodec(TextCodec.TEXT_CODEC_FALLBACK, ";"), codec(TextCodec.TEXT_CODEC_FLOAT4),
      codec(TextCodec.TEXT_CODEC_JSON), codec(TextCodec.TEXT_CODEC_UUID));

  private static ColumnCodec codec(TextCodec c) {
    return ColumnCodec.newBuilder().setCodec(c).build();
  }

  private static ColumnCodec arrayCodec(TextCodec element, String delimiter) {
    return ColumnCodec.newBuilder().setCodec(TextCodec.TEXT_CODEC_ARRAY).setElementCodec(element)
        .setElementDelimiter(delimiter).build();
  }

  /** Creates {@code tables} shaped as AWKWARD (the first the source), and fills the source with 300 awkward rows. */
  private static void awkwardTables(String source, String... targets) throws Exception {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE " + source + " (" + AWKWARD_COLUMNS + ")");
      for (String t : targets) {
        s.execute("CREATE TABLE " + t + " (" + AWKWARD_COLUMNS + ")");
      }
      s.execute("INSERT INTO " + source + " SELECT k,"
          + " CASE k % 6 WHEN 0 THEN NULL WHEN 1 THEN E'tab\\there, line\\nbreak, back\\\\slash ' || k"
          + "   WHEN 2 THEN 'Grüße, 世界 🙂 ' || k WHEN 3 THEN E'\\\\N' WHEN 4 THEN '' ELSE E'cr\\r ' || k END,"
          + " CASE WHEN k % 5 = 0 THEN 'NaN'::numeric ELSE k + 0.5 END,"
          + " CASE WHEN k % 7 = 0 THEN '-infinity'::timestamptz"
          + "   ELSE timestamptz '2024-01-31 12:00:00.5+01' + k * interval '1 hour 1 microsecond' END,"
          + " CASE WHEN k % 11 = 0 THEN 'infinity'::date WHEN k % 13 = 0 THEN date '0044-03-15 BC'"
          + "   ELSE date '2024-02-29' + k END,"
          + " decode(lpad(to_hex(k), 8, '0') || '005c0a09', 'hex'),"
          + " CASE WHEN k % 9 = 0 THEN NULL ELSE ARRAY[k, NULL, -k] END,"
          + " ARRAY['a,b', E'q\"uote', NULL, E'back\\\\slash', 'NULL', '', E'tab\\t' || k],"
          + " ARRAY[box '((1,1),(0,0))', box(point(k, k), point(0, 0))],"
          + " CASE WHEN k % 8 = 0 THEN 'NaN'::real ELSE (k / 3.0)::real END,"
          + " jsonb_build_object('k', k, 's', E'x\\ty\\\\'),"
          + " md5(k::text)::uuid"
          + " FROM generate_series(1, 300) k");
    }
  }

  /**
   * The source's rows as PostgreSQL's COPY TO writes them (in a zone of its own), as line-backed images in two buffers (the halves of
   * the chunk, as two CopyRows parts would bring them).
   */
  private static List<RowImage> copyLines(String source) throws Exception {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute("SET TIME ZONE 'Asia/Kathmandu'");   // the upstream's zone: timestamptz lines carry +05:45
      c.unwrap(org.postgresql.PGConnection.class).getCopyAPI()
          .copyOut("COPY (SELECT * FROM " + source + " ORDER BY id) TO STDOUT", out);
    }
    byte[] all = out.toByteArray();
    int half = 0;
    for (int k = 0; k < 150; k++) {
      half = CopyText.lineEnd(all, half, all.length) + 1;
    }
    List<RowImage> images = new ArrayList<>();
    for (byte[] buffer : List.of(java.util.Arrays.copyOfRange(all, 0, half),
        java.util.Arrays.copyOfRange(all, half, all.length))) {
      for (int offset = 0; offset < buffer.length; ) {
        int end = CopyText.lineEnd(buffer, offset, buffer.length);
        images.add(RowImage.ofCopyLine(AWKWARD, AWKWARD_CODECS, new CopyLine(buffer, offset, end), images.size()));
        offset = end + 1;
      }
    }
    return images;
  }

  @Test
  void copyLinesLoadAsTheRowsTheyCameFromAndAsTheirTypedImages() throws Exception {
    awkwardTables("awkward_source", "lined", "typed");
    List<RowImage> lines = copyLines("awkward_source");
    List<RowImage> typed = lines.stream().map(l -> RowImage.of(AWKWARD, List.copyOf(l.values()))).toList();
    PgCopyInput input = PgCopyInput.of(AWKWARD, lines, new StringBuilder());
    assertThat(input.lines()).isEqualTo(300);
    assertThat(input.writes()).as("each buffer's lines in one write").isEqualTo(2);
    assertThat(PgCopyInput.of(AWKWARD, typed, new StringBuilder()).lines()).isZero();

    try (Connection c = connect()) {
      c.setAutoCommit(false);
      PgCopyLoader loader = new PgCopyLoader(c);
      assertThat(loader.upsert("\"public\".\"lined\"", AWKWARD, lines)).isTrue();
      assertThat(loader.upsert("\"public\".\"typed\"", AWKWARD, typed)).isTrue();
      c.commit();
    }
    assertThat(dump("lined")).hasSize(300).isEqualTo(dump("awkward_source")).isEqualTo(dump("typed"));
  }

  @Test
  void copyLinesGoThroughTheStagingTableAfterAConflictAndMixWithTypedImages() throws Exception {
    awkwardTables("awkward_again", "lined_staged");
    List<RowImage> lines = copyLines("awkward_again");
    try (Connection c = connect()) {
      c.setAutoCommit(false);
      PgCopyLoader loader = new PgCopyLoader(c);
      loader.upsert("\"public\".\"lined_staged\"", AWKWARD, lines.subList(0, 100));
      assertThat(stagingTables(c)).isZero();
      try (Statement s = c.createStatement()) {
        s.execute("INSERT INTO lined_staged (id, t) VALUES (150, 'old')");   // a live change ahead of the snapshot
      }
      loader.upsert("\"public\".\"lined_staged\"", AWKWARD, lines.subList(100, 200));   // meets key 150
      assertThat(stagingTables(c)).isEqualTo(1);
      List<RowImage> mixed = new ArrayList<>(lines.subList(200, 300));   // a row cut down by the watermark merge
      mixed.set(50, RowImage.of(AWKWARD, List.copyOf(mixed.get(50).values())));
      PgCopyInput input = PgCopyInput.of(AWKWARD, mixed, new StringBuilder());
      assertThat(input.lines()).isEqualTo(99);
      assertThat(input.writes()).isEqualTo(3);
      loader.upsert("\"public\".\"lined_staged\"", AWKWARD, mixed);
      c.commit();
      loader.transactionEnded();
    }
    assertThat(dump("lined_staged")).hasSize(300).isEqualTo(dump("awkward_again"));
  }

  private static List<String> dump(String table) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT t.*::text FROM " + table + " t ORDER BY 1")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
