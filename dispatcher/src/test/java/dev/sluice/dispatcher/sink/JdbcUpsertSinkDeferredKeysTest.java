package dev.sluice.dispatcher.sink;

import static dev.sluice.dispatcher.sink.SinkFixtures.ORDERS;
import static dev.sluice.dispatcher.sink.SinkFixtures.ORDERS_WITH_QTY;
import static dev.sluice.dispatcher.sink.SinkFixtures.ddl;
import static dev.sluice.dispatcher.sink.SinkFixtures.i;
import static dev.sluice.dispatcher.sink.SinkFixtures.nul;
import static dev.sluice.dispatcher.sink.SinkFixtures.s;
import static dev.sluice.dispatcher.sink.SinkFixtures.txn;
import static dev.sluice.dispatcher.sink.SinkFixtures.unavailable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.v1.DdlType;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.RowImage;
import dev.sluice.dispatcher.SnapshotCursor;
import dev.sluice.dispatcher.SnapshotMark;
import dev.sluice.dispatcher.Transaction;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A snapshot into an empty PostgreSQL table loads without the table's primary key, which comes back after the last
 * chunk with the changes that came meanwhile replayed ({@link DeferredKeys}), on a real PostgreSQL 17 (zonky
 * embedded). The stream is made from a model of the upstream table ({@link Source}): a change applies to it, and a
 * chunk reads it as it stands at the chunk's ts, so the target must end equal to it.
 */
class JdbcUpsertSinkDeferredKeysTest {

  private static final long ID = ORDERS.getTableId();
  private static final String NAME = "public.orders";

  private static EmbeddedPostgres pg;
  private String changefeed;
  private String schema;
  private JdbcUpsertSink sink;

  @BeforeAll
  static void startPostgres() throws Exception {
    pg = EmbeddedPostgres.builder().setOverrideWorkingDirectory(new File("target/embedded-pg"))
        .setDataDirectory(new File("target/pgdata-" + UUID.randomUUID())).setCleanDataDirectory(true).start();
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    pg.close();
  }

  @BeforeEach
  void open() {
    changefeed = "cf-" + UUID.randomUUID().toString().substring(0, 8);
    schema = "d_" + changefeed.substring(3);
    sink = JdbcUpsertSink.open(config());
  }

  @AfterEach
  void closeSink() {
    sink.close();
  }

  private JdbcSinkConfig config() {
    return JdbcSinkConfig.of("jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres", "postgres", "", changefeed)
        .withTargetSchema(schema);
  }

  @Test
  void aSnapshotIntoAnEmptyTableLoadsWithoutItsKeyAndGetsTheSameKeyBackWithTheLastChunk() throws Exception {
    exec("CREATE SCHEMA " + q(schema), "CREATE TABLE " + table("orders") + " (id bigint NOT NULL, note varchar(100), "
        + "big text, CONSTRAINT orders_by_id PRIMARY KEY (id) WITH (fillfactor = 90))");
    String key = primaryKey("orders");
    Source src = new Source(250);
    sink.recordSnapshot(ID, NAME, TableSnapshot.started(0));

    sink.apply(List.of(src.chunk(100, 1, 100, false)), 100);
    assertThat(primaryKey("orders")).as("after the first chunk").isNull();
    assertThat(sink.checkpoint().tables().get(ID).deferredKey()).contains("orders_by_id");
    sink.apply(List.of(src.chunk(200, 101, 200, false)), 200);
    assertThat(primaryKey("orders")).as("between the chunks").isNull();
    sink.apply(List.of(src.chunk(300, 201, 250, true)), 300);

    assertThat(key).isEqualTo("orders_by_id PRIMARY KEY (id) {fillfactor=90}");
    assertThat(primaryKey("orders")).isEqualTo(key);
    assertThat(rows("orders")).isEqualTo(src.expected()).hasSize(250);
    assertThat(sink.checkpoint().tables().get(ID).deferredKey()).isNull();
    assertThat(sink.checkpoint().tables().get(ID).snapshot().rows()).isEqualTo(250);
    assertThat(logEntries()).isZero();
  }

  @Test
  void changesInterleavedWithTheChunksWaitInTheLogAndTheTargetEndsEqualToTheSource() throws Exception {
    Source src = new Source(300);
    sink.recordSnapshot(ID, NAME, TableSnapshot.started(0));

    sink.apply(List.of(src.chunk(100, 1, 100, false), src.insert(110, 1001, "new"),
        src.update(120, 50, "u120", true)), 120);   // loaded already; its big value unavailable (unchanged TOAST)
    assertThat(primaryKey("orders")).isNull();
    sink.apply(List.of(src.update(130, 150, "u130", false), src.delete(140, 60), src.delete(150, 160),
        src.moveKey(160, 70, 2070), src.moveKey(170, 170, 2170)), 170);
    sink.apply(List.of(src.chunk(200, 101, 200, false)), 200);
    sink.apply(List.of(src.update(210, 180, "u210", true), src.insert(220, 1002, "gone"), src.delete(230, 1002),
        src.update(240, 1001, "u240", false), src.update(250, 260, "u250", true)), 250);
    assertThat(rows("orders")).as("only the READ rows are in the table while the key is deferred").hasSize(198);
    assertThat(loggedChanges()).isEqualTo(12);
    sink.apply(List.of(src.chunk(300, 201, Long.MAX_VALUE, true), src.update(310, 10, "u310", false)), 310);
    sink.apply(List.of(src.delete(320, 20)), 320);

    assertThat(rows("orders")).isEqualTo(src.expected());
    assertThat(rows("orders")).contains("50:u120:b50", "180:u210:b180", "260:u250:b260", "1001:u240:b1001@240",
        "2070:v0:b70", "2170:v0:b170").doesNotContain("60:v0:b60", "70:v0:b70", "1002:gone:b1002");
    assertThat(primaryKey("orders")).isEqualTo("orders_pkey PRIMARY KEY (id)");
    assertThat(logEntries()).isZero();
    assertThat(sink.checkpoint().forTable(ID)).isEqualTo(Checkpoint.at(320));
  }

  @Test
  void aSinkReopenedMidSnapshotKeepsDeferringAndAppliesEveryRowOnce() throws Exception {
    Source src = new Source(200);
    sink.recordSnapshot(ID, NAME, TableSnapshot.started(0));
    List<Transaction> first = List.of(src.chunk(100, 1, 100, false), src.update(110, 50, "u110", true));
    sink.apply(first, 110);
    sink.close();

    sink = JdbcUpsertSink.open(config());
    assertThat(sink.checkpoint().tables().get(ID).deferredKey()).contains("orders_pkey");
    sink.apply(first, 110);   // delivered again after the restart: the progress covers it
    sink.apply(List.of(src.insert(150, 5000, "after the restart"), src.delete(160, 40)), 160);
    assertThat(primaryKey("orders")).isNull();
    assertThat(loggedChanges()).isEqualTo(3);
    sink.apply(List.of(src.chunk(200, 101, Long.MAX_VALUE, true)), 200);

    assertThat(sink.skippedTransactions()).isEqualTo(2);
    assertThat(rows("orders")).isEqualTo(src.expected()).contains("50:u110:b50", "5000:after the restart:b5000");
    assertThat(primaryKey("orders")).isEqualTo("orders_pkey PRIMARY KEY (id)");
    assertThat(logEntries()).isZero();
  }

  @Test
  void aTableNotEmptyOrReferencedByAForeignKeyKeepsItsKeyBesideOneThatDefersIt() throws Exception {
    TableInfo filled = ORDERS.toBuilder().setTableId(16385).setTableName("filled").build();
    TableInfo parent = ORDERS.toBuilder().setTableId(16386).setTableName("parent").build();
    exec("CREATE SCHEMA " + q(schema),
        "CREATE TABLE " + table("filled") + " (id bigint PRIMARY KEY, note varchar(100), big text)",
        "INSERT INTO " + table("filled") + " VALUES (9999, 'live', NULL)",
        "CREATE TABLE " + table("parent") + " (id bigint PRIMARY KEY, note varchar(100), big text)",
        "CREATE TABLE " + table("child") + " (id bigint PRIMARY KEY, parent_id bigint REFERENCES " + table("parent")
            + ")");
    Source orders = new Source(150);
    Source filledSrc = new Source(filled, 150);
    Source parentSrc = new Source(parent, 150);

    sink.apply(List.of(orders.chunk(100, 1, 100, false), filledSrc.chunk(100, 1, 100, false),
        parentSrc.chunk(100, 1, 100, false)), 100);
    assertThat(primaryKey("orders")).as("the empty table's, dropped").isNull();
    assertThat(primaryKey("filled")).as("the non-empty table's").isEqualTo("filled_pkey PRIMARY KEY (id)");
    assertThat(primaryKey("parent")).as("the referenced table's").isEqualTo("parent_pkey PRIMARY KEY (id)");
    sink.apply(List.of(orders.chunk(200, 101, 150, true), filledSrc.chunk(200, 101, 150, true),
        parentSrc.chunk(200, 101, 150, true)), 200);

    assertThat(primaryKey("orders")).isEqualTo("orders_pkey PRIMARY KEY (id)");
    assertThat(rows("orders")).isEqualTo(orders.expected());
    assertThat(rows("filled")).hasSize(151).contains("9999:live:null");
    assertThat(rows("parent")).isEqualTo(parentSrc.expected());
    assertThat(sink.checkpoint().tables().get(filled.getTableId()).deferredKey()).isNull();
  }

  @Test
  void anAddColumnMidSnapshotFindsTheKeyBackAndTheLoggedChangesApplied() throws Exception {
    Source src = new Source(200);
    sink.recordSnapshot(ID, NAME, TableSnapshot.started(0));
    sink.apply(List.of(src.chunk(100, 1, 100, false), src.update(110, 50, "u110", true), src.delete(120, 60)), 120);
    assertThat(primaryKey("orders")).isNull();

    sink.applyDdl(ddl(150, DdlType.DDL_TYPE_ADD_COLUMN, "", "", ORDERS, ORDERS_WITH_QTY), 150);
    assertThat(primaryKey("orders")).isEqualTo("orders_pkey PRIMARY KEY (id)");
    assertThat(logEntries()).isZero();
    assertThat(rows("orders")).hasSize(99).contains("50:u110:b50").doesNotContain("60:v0:b60");
    assertThat(scalar("SELECT count(*) FROM information_schema.columns WHERE table_schema = '" + schema
        + "' AND table_name = 'orders' AND column_name = 'qty'")).isEqualTo(1);

    src.alter(ORDERS_WITH_QTY);
    sink.apply(List.of(src.chunk(200, 101, Long.MAX_VALUE, true), src.update(210, 5, "u210", false)), 210);
    assertThat(rows("orders")).isEqualTo(src.expected());
    assertThat(sink.checkpoint().tables().get(ID).deferredKey()).isNull();
  }

  /** A replay after the TRUNCATE would bring back rows the upstream emptied. */
  @Test
  void aTruncateMidSnapshotRunsAfterTheLoggedChangesWereReplayed() throws Exception {
    Source src = new Source(100);
    sink.recordSnapshot(ID, NAME, TableSnapshot.started(0));
    sink.apply(List.of(src.chunk(100, 1, 100, false), src.update(110, 50, "u110", false),
        src.insert(120, 5000, "new")), 120);

    sink.applyDdl(ddl(150, DdlType.DDL_TYPE_TRUNCATE_TABLE, "", "", ORDERS, ORDERS), 150);
    sink.apply(List.of(txn(160, ORDERS, SinkFixtures.insert(ORDERS, 0, i(7), s("after"), nul()))), 160);

    assertThat(rows("orders")).containsExactly("7:after:null");
    assertThat(primaryKey("orders")).isEqualTo("orders_pkey PRIMARY KEY (id)");
    assertThat(logEntries()).isZero();
  }

  @ParameterizedTest(name = "recorded {0}")
  @EnumSource(value = TableSnapshot.State.class, names = {"PAUSED", "DONE", "CANCELLED", "FAILED"})
  void aSnapshotRecordedEndedOrPausedFinishesTheDeferral(TableSnapshot.State state) throws Exception {
    Source src = new Source(200);
    sink.recordSnapshot(ID, NAME, TableSnapshot.started(0));
    sink.apply(List.of(src.chunk(100, 1, 100, false), src.update(110, 50, "u110", true), src.insert(120, 5000, "new")),
        120);
    assertThat(primaryKey("orders")).isNull();

    sink.recordSnapshot(ID, NAME, sink.checkpoint().tables().get(ID).snapshot().in(state));

    assertThat(primaryKey("orders")).isEqualTo("orders_pkey PRIMARY KEY (id)");
    assertThat(rows("orders")).hasSize(101).contains("50:u110:b50", "5000:new:b5000");
    assertThat(logEntries()).isZero();
    assertThat(sink.checkpoint().tables().get(ID).deferredKey()).isNull();
    assertThat(sink.checkpoint().tables().get(ID).snapshot().state()).isEqualTo(state);
    try (JdbcUpsertSink reopened = JdbcUpsertSink.open(config())) {
      assertThat(reopened.checkpoint().tables().get(ID).deferredKey()).isNull();
    }
  }

  @Test
  void finishDeferredKeysAddsEveryDeferredKeyBackNow() throws Exception {
    Source src = new Source(100);
    // no snapshot recorded, as a library user applying a subscription's chunks may do
    sink.apply(List.of(src.chunk(100, 1, 100, false), src.delete(110, 3)), 110);
    assertThat(primaryKey("orders")).isNull();

    assertThat(sink.finishDeferredKeys()).containsExactly(NAME);
    assertThat(sink.finishDeferredKeys()).isEmpty();
    assertThat(primaryKey("orders")).isEqualTo("orders_pkey PRIMARY KEY (id)");
    assertThat(rows("orders")).isEqualTo(src.expected()).hasSize(99);
    assertThat(logEntries()).isZero();
  }

  @Test
  void aKeyThatCannotBeAddedBackStopsTheSinkNamingTableAndConstraint() throws Exception {
    Source src = new Source(200);
    sink.recordSnapshot(ID, NAME, TableSnapshot.started(0));
    sink.apply(List.of(src.chunk(100, 1, 100, false)), 100);
    exec("INSERT INTO " + table("orders") + " VALUES (5, 'written beside the sink', NULL)");

    assertThatThrownBy(() -> sink.apply(List.of(src.chunk(200, 101, 200, true)), 200))
        .isInstanceOf(SinkFailedException.class).hasMessageContaining(NAME)
        .hasMessageContaining("ADD CONSTRAINT \"orders_pkey\" PRIMARY KEY (id)").hasMessageContaining("23505");
    assertThat(primaryKey("orders")).isNull();
    assertThat(rows("orders")).hasSize(101);
    assertThat(sink.checkpoint().forTable(ID)).isEqualTo(Checkpoint.at(100));
    assertThat(sink.checkpoint().tables().get(ID).deferredKey()).isNotNull();
  }

  @Test
  void aStreamEndingMidSnapshotLeavesTheTargetTableWithItsKeyAndItsChanges() throws Exception {
    Source src = new Source(200);
    sink.recordSnapshot(ID, NAME, TableSnapshot.started(0));
    sink.apply(List.of(src.chunk(100, 1, 100, false), src.update(110, 50, "u110", true)), 110);

    sink.markDropped(ID, NAME, 150);

    assertThat(primaryKey("orders")).isEqualTo("orders_pkey PRIMARY KEY (id)");
    assertThat(rows("orders")).hasSize(100).contains("50:u110:b50");
    assertThat(logEntries()).isZero();
    assertThat(sink.checkpoint().tables().get(ID).dropped()).isTrue();
    assertThat(sink.checkpoint().tables().get(ID).deferredKey()).isNull();
  }

  @Test
  void aDropTableMidSnapshotDiscardsTheLoggedChanges() throws Exception {
    Source src = new Source(200);
    sink.recordSnapshot(ID, NAME, TableSnapshot.started(0));
    sink.apply(List.of(src.chunk(100, 1, 100, false), src.update(110, 50, "u110", true)), 110);

    sink.applyDdl(ddl(150, DdlType.DDL_TYPE_DROP_TABLE, "", "", ORDERS, ORDERS), 150);

    assertThat(scalar("SELECT count(*) FROM pg_tables WHERE schemaname = '" + schema + "'")).isZero();
    assertThat(logEntries()).isZero();
    assertThat(sink.checkpoint().tables().get(ID).deferredKey()).isNull();
  }

  /** A sink of a version before deferred keys wrote the checkpoint table: the column is added when one opens. */
  @Test
  void aCheckpointTableWithoutTheDeferredKeyColumnGetsItWhenASinkOpens() throws Exception {
    Source src = new Source(100);
    sink.apply(List.of(src.chunk(100, 1, 100, false)), 100);
    sink.finishDeferredKeys();
    sink.close();
    exec("ALTER TABLE " + JdbcSinkConfig.TABLE_CHECKPOINT_TABLE + " DROP COLUMN deferred_key");

    sink = JdbcUpsertSink.open(config());
    assertThat(sink.checkpoint().forTable(ID)).isEqualTo(Checkpoint.at(100));
    assertThat(scalar("SELECT count(*) FROM " + JdbcSinkConfig.TABLE_CHECKPOINT_TABLE + " WHERE deferred_key IS NULL"
        + " AND changefeed_id = '" + changefeed + "'")).isEqualTo(1);
    sink.apply(List.of(src.update(110, 5, "u110", false)), 110);
    assertThat(rows("orders")).isEqualTo(src.expected());
  }

  // ---- the upstream table, and the target ------------------------------------------------------

  /**
   * The upstream table a stream is made from: rows (id, note, big) with ids 1..n, note "v0", big "b" + id. A change
   * applies to it and returns its transaction; a chunk reads it as it stands.
   */
  private static final class Source {

    private TableInfo info;
    private final TreeMap<Long, List<Value>> rows = new TreeMap<>();
    private long readRows;
    private long chunks;

    Source(long n) {
      this(ORDERS, n);
    }

    Source(TableInfo info, long n) {
      this.info = info;
      for (long id = 1; id <= n; id++) {
        rows.put(id, List.of(i(id), s("v0"), s("b" + id)));
      }
    }

    /** A snapshot chunk at {@code ts}: the READ rows with ids {@code from..to}, as they stand now. */
    Transaction chunk(long ts, long from, long to, boolean last) {
      List<RowChangeView> read = new ArrayList<>();
      for (Map.Entry<Long, List<Value>> e : rows.subMap(from, true, to, true).entrySet()) {
        read.add(new RowChangeView(RowOp.ROW_OP_READ, read.size(), 0, RowImage.of(info, List.of()),
            RowImage.of(info, e.getValue())));
      }
      readRows += read.size();
      SnapshotMark mark = new SnapshotMark(new SnapshotCursor(List.of(i(to)), 0),
          readRows, rows.size(), ++chunks, last);
      return new Transaction(ts, 0, info, read, true, true, mark);
    }

    Transaction insert(long ts, long id, String note) {
      List<Value> row = row(id, s(note), s("b" + id));
      rows.put(id, row);
      return txn(ts, info, new RowChangeView(RowOp.ROW_OP_INSERT, 0, 0, RowImage.of(info, List.of()),
          RowImage.of(info, row)));
    }

    /** An UPDATE of the note; with {@code bigUnavailable} big is unchanged and not sent, else it changes too. */
    Transaction update(long ts, long id, String note, boolean bigUnavailable) {
      List<Value> old = rows.get(id);
      List<Value> row = row(id, s(note), bigUnavailable ? old.get(2) : s("b" + id + "@" + ts));
      rows.put(id, row);
      List<Value> sent = new ArrayList<>(row);
      if (bigUnavailable) {
        sent.set(2, unavailable());
      }
      return txn(ts, info, new RowChangeView(RowOp.ROW_OP_UPDATE, 0, 0, RowImage.of(info, List.of()),
          RowImage.of(info, sent)));
    }

    /** A DELETE with the key alone in its before image (REPLICA IDENTITY DEFAULT). */
    Transaction delete(long ts, long id) {
      rows.remove(id);
      return txn(ts, info, new RowChangeView(RowOp.ROW_OP_DELETE, 0, 0, RowImage.of(info, key(id)),
          RowImage.of(info, List.of())));
    }

    /** An UPDATE of the key, the other columns kept. */
    Transaction moveKey(long ts, long from, long to) {
      List<Value> row = new ArrayList<>(rows.remove(from));
      row.set(0, i(to));
      rows.put(to, List.copyOf(row));
      return txn(ts, info, new RowChangeView(RowOp.ROW_OP_UPDATE, 0, 0, RowImage.of(info, key(from)),
          RowImage.of(info, row)));
    }

    /** The table got {@code next}'s columns; added columns are NULL in every row. */
    void alter(TableInfo next) {
      rows.replaceAll((id, row) -> {
        List<Value> wider = new ArrayList<>(row);
        while (wider.size() < next.getColumnsCount()) {
          wider.add(nul());
        }
        return List.copyOf(wider);
      });
      info = next;
    }

    private List<Value> key(long id) {
      List<Value> before = new ArrayList<>(List.of(i(id)));
      while (before.size() < info.getColumnsCount()) {
        before.add(nul());
      }
      return before;
    }

    private List<Value> row(long id, Value note, Value big) {
      List<Value> row = new ArrayList<>(List.of(i(id), note, big));
      while (row.size() < info.getColumnsCount()) {
        row.add(nul());
      }
      return List.copyOf(row);
    }

    /** "id:note:big" of every row, by id. */
    List<String> expected() {
      return rows.values().stream().map(r -> r.get(0).getInt64Value() + ":" + r.get(1).getStringValue() + ":"
          + (r.get(2).hasNullValue() ? "null" : r.get(2).getStringValue())).toList();
    }
  }

  private String table(String name) {
    return q(schema) + "." + q(name);
  }

  private static String q(String identifier) {
    return Dialect.POSTGRESQL.quote(identifier);
  }

  /**
   * "name definition {index storage parameters}" of the target table's PRIMARY KEY constraint, or null when it has
   * none.
   */
  private String primaryKey(String name) throws SQLException {
    try (Connection c = connect(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT c.conname || ' ' || pg_get_constraintdef(c.oid) "
             + "|| COALESCE(' ' || i.reloptions::text, '') FROM pg_constraint c JOIN pg_class i ON i.oid = c.conindid "
             + "WHERE c.contype = 'p' AND c.conrelid = '" + table(name).replace("'", "''") + "'::regclass")) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  private List<String> rows(String name) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = connect(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT id, note, big FROM " + table(name) + " ORDER BY id")) {
      while (rs.next()) {
        out.add(rs.getLong(1) + ":" + rs.getString(2) + ":" + rs.getString(3));
      }
    }
    return out;
  }

  /** This changefeed's entries in the log, table infos included. */
  private long logEntries() throws SQLException {
    return scalar("SELECT count(*) FROM " + JdbcSinkConfig.DEFERRED_ROWS_TABLE + " WHERE changefeed_id = '"
        + changefeed + "'");
  }

  private long loggedChanges() throws SQLException {
    return scalar("SELECT count(*) FROM " + JdbcSinkConfig.DEFERRED_ROWS_TABLE + " WHERE changefeed_id = '"
        + changefeed + "' AND row_change IS NOT NULL");
  }

  private long scalar(String sql) throws SQLException {
    try (Connection c = connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      return rs.next() ? rs.getLong(1) : -1;
    }
  }

  private void exec(String... sql) throws SQLException {
    try (Connection c = connect(); Statement st = c.createStatement()) {
      for (String s : sql) {
        st.execute(s);
      }
    }
  }

  private static Connection connect() throws SQLException {
    return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres", "postgres", "");
  }
}
