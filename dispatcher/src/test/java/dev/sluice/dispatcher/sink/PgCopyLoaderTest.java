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

import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
import dev.sluice.api.v1.ValueKind;
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
 * back with its transaction and leaves the loader usable.
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
