package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.v1.Value;
import dev.sluice.schema.ColumnInfo;
import dev.sluice.schema.DdlEvent;
import dev.sluice.schema.DdlType;
import dev.sluice.schema.Partitioning;
import dev.sluice.schema.TableInfo;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * DDL sequences captured through the event trigger give the right schema versions at the right commit
 * ts. Each DDL transaction also inserts a marker row, whose stored commit ts is the transaction's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DdlCaptureTriggerModeTest {

  private TestPostgres pg;
  private CaptureHarness h;

  /** The server under test; subclasses run the same checks against another PostgreSQL version. */
  TestPostgres startPostgres() {
    return TestPostgres.start();
  }

  @BeforeAll
  void start(@TempDir Path dir) {
    pg = startPostgres();
    pg.exec("CREATE TABLE marker (id serial PRIMARY KEY, label text NOT NULL)",
        "CREATE TABLE existing (id int PRIMARY KEY, v numeric(10,2) DEFAULT 0)",
        "CREATE TABLE measured (id int PRIMARY KEY, gone int, qty int,"
            + " weight numeric(10,3) GENERATED ALWAYS AS (qty * 0.5) STORED NOT NULL, note text)",
        "ALTER TABLE measured DROP COLUMN gone",
        "CREATE TABLE zones (id int, region text, PRIMARY KEY (region, id)) PARTITION BY LIST (region)",
        // created apart and attached: the same columns in another order
        "CREATE TABLE zones_eu (region text NOT NULL, id int NOT NULL) PARTITION BY RANGE (id)",
        "ALTER TABLE zones ATTACH PARTITION zones_eu FOR VALUES IN ('eu')",
        "CREATE TABLE zones_eu_low PARTITION OF zones_eu FOR VALUES FROM (0) TO (100)");
    h = CaptureHarness.start(dir, pg, CaptureHarness.config());
  }

  @AfterAll
  void stop() {
    h.close();
    pg.close();
  }

  @Test
  void triggerModeIsReportedInTheStatus() {
    assertThat(h.capture.status().mode()).isEqualTo(DdlCaptureMode.EVENT_TRIGGER);
    assertThat(h.capture.status().state()).isEqualTo(CaptureState.STREAMING);
  }

  @Test
  void tablesThatExistedAtSlotCreationHaveInitialVersionsBelowTheFirstCommit() {
    long lsn = pg.txn("INSERT INTO existing VALUES (1, 2.5)");
    h.awaitResolved(lsn);
    List<DdlEvent> events = h.schemas.ddlEvents(pg.oid("existing"), 0, Long.MAX_VALUE);
    assertThat(events).singleElement().satisfies(e -> {
      assertThat(e.type()).isEqualTo(DdlType.CREATE_TABLE);
      assertThat(e.commitTs()).isLessThan(h.rows(pg.oid("existing")).get(0).commitTs());
      assertThat(e.tableInfoAfter().columns()).extracting(ColumnInfo::name, ColumnInfo::sourceType,
          ColumnInfo::nullable, ColumnInfo::defaultExpr)
          .containsExactly(org.assertj.core.groups.Tuple.tuple("id", "integer", false, null),
              org.assertj.core.groups.Tuple.tuple("v", "numeric(10,2)", true, "0"));
    });
  }

  @Test
  void alterSequenceGivesOneVersionPerDdlAtItsCommitTs() {
    ddl("create", "CREATE TABLE ddl_t (id int PRIMARY KEY, a text)");
    long r1 = insertRow("INSERT INTO ddl_t VALUES (1, 'one')");
    ddl("add", "ALTER TABLE ddl_t ADD COLUMN b int");
    long r2 = insertRow("INSERT INTO ddl_t VALUES (2, 'two', 22)");
    ddl("rename column", "ALTER TABLE ddl_t RENAME COLUMN a TO a2");
    ddl("drop column", "ALTER TABLE ddl_t DROP COLUMN b");
    ddl("rename table", "ALTER TABLE ddl_t RENAME TO ddl_t2");
    ddl("truncate", "TRUNCATE ddl_t2");
    ddl("drop", "DROP TABLE ddl_t2");
    long oid = lastOid;
    Map<String, Long> at = markers();

    List<DdlEvent> events = h.schemas.ddlEvents(oid, 0, Long.MAX_VALUE);
    assertThat(events).extracting(DdlEvent::type).containsExactly(DdlType.CREATE_TABLE, DdlType.ADD_COLUMN,
        DdlType.RENAME_COLUMN, DdlType.DROP_COLUMN, DdlType.RENAME_TABLE, DdlType.TRUNCATE_TABLE, DdlType.DROP_TABLE);
    assertThat(events).extracting(DdlEvent::commitTs).containsExactly(at.get("create"), at.get("add"),
        at.get("rename column"), at.get("drop column"), at.get("rename table"), at.get("truncate"), at.get("drop"));
    assertThat(events.get(1).query()).isEqualTo("ALTER TABLE ddl_t ADD COLUMN b int");
    assertThat(events.get(1).dialect()).isEqualTo("postgresql");
    assertThat(names(events.get(1).tableInfoAfter())).containsExactly("id", "a", "b");
    assertThat(names(events.get(2).tableInfoAfter())).containsExactly("id", "a2", "b");
    assertThat(names(events.get(3).tableInfoAfter())).containsExactly("id", "a2");
    assertThat(events.get(4).tableInfoAfter().qualifiedName()).isEqualTo("public.ddl_t2");
    assertThat(events.get(6).tableInfoAfter().qualifiedName()).isEqualTo("public.ddl_t2");

    // rows follow the version in force at their commit ts
    assertThat(names(h.schemas.tableInfoAt(oid, r1))).containsExactly("id", "a");
    assertThat(names(h.schemas.tableInfoAt(oid, r2))).containsExactly("id", "a", "b");
    List<CaptureHarness.StoredRow> rows = h.rows(oid);
    assertThat(rows).extracting(r -> r.change().getAfterCount()).containsExactly(2, 3);
    assertThat(rows.get(1).change().getAfter(2)).isEqualTo(Value.newBuilder().setInt64Value(22).build());
  }

  @Test
  void transactionChangingSeveralTablesGivesEachChangeItsPlaceAtTheCommitTs() {
    ddl("multi", "CREATE TABLE m1 (id int PRIMARY KEY)", "CREATE TABLE m2 (id int PRIMARY KEY, x text)",
        "ALTER TABLE m1 ADD COLUMN y int");
    long c = markers().get("multi");
    List<DdlEvent> m1 = h.schemas.ddlEvents(pg.oid("m1"), 0, Long.MAX_VALUE);
    List<DdlEvent> m2 = h.schemas.ddlEvents(pg.oid("m2"), 0, Long.MAX_VALUE);
    assertThat(m1).extracting(DdlEvent::type, DdlEvent::commitTs, DdlEvent::rowSeq, DdlEvent::query).containsExactly(
        org.assertj.core.groups.Tuple.tuple(DdlType.CREATE_TABLE, c, 0L, "CREATE TABLE m1 (id int PRIMARY KEY)"),
        org.assertj.core.groups.Tuple.tuple(DdlType.ADD_COLUMN, c, 2L, "ALTER TABLE m1 ADD COLUMN y int"));
    assertThat(names(m1.get(0).tableInfoAfter())).containsExactly("id");
    assertThat(names(m1.get(1).tableInfoAfter())).containsExactly("id", "y");
    assertThat(m2).singleElement().satisfies(e -> {
      assertThat(e.commitTs()).isEqualTo(c);
      assertThat(e.rowSeq()).isEqualTo(1);
    });
    assertThat(h.rows(pg.oid("marker"))).last().satisfies(r -> assertThat(r.rowSeq()).isEqualTo(3));
  }

  /** Issue #16 (7): the C-1 trick is gone; the TRUNCATE and the change keep the order they ran in. */
  @Test
  void truncateAndShapeChangeInOneTransactionKeepTheirOrder() {
    ddl("staging created", "CREATE TABLE staging (id int PRIMARY KEY, a text)", "INSERT INTO staging VALUES (1, 'x')");
    long oid = pg.oid("staging");
    ddl("staging reloaded", "INSERT INTO staging VALUES (5, 'before')", "TRUNCATE staging",
        "ALTER TABLE staging ADD COLUMN b int", "INSERT INTO staging VALUES (2, 'y', 3)");
    long c = markers().get("staging reloaded");

    List<DdlEvent> events = h.schemas.ddlEvents(oid, 0, Long.MAX_VALUE);
    assertThat(events).extracting(DdlEvent::type, DdlEvent::commitTs, DdlEvent::rowSeq).containsExactly(
        org.assertj.core.groups.Tuple.tuple(DdlType.CREATE_TABLE, markers().get("staging created"), 0L),
        org.assertj.core.groups.Tuple.tuple(DdlType.TRUNCATE_TABLE, c, 1L),
        org.assertj.core.groups.Tuple.tuple(DdlType.ADD_COLUMN, c, 2L));
    assertThat(names(events.get(1).tableInfoAfter())).containsExactly("id", "a");
    assertThat(events.get(2).query()).isEqualTo("ALTER TABLE staging ADD COLUMN b int");
    assertThat(names(events.get(2).tableInfoAfter())).containsExactly("id", "a", "b");
    // the row before the TRUNCATE keeps its place (and shape) before it, the one after follows the ALTER
    assertThat(h.rows(oid).stream().filter(r -> r.commitTs() == c))
        .extracting(CaptureHarness.StoredRow::rowSeq, r -> r.change().getAfterCount())
        .containsExactly(org.assertj.core.groups.Tuple.tuple(0L, 2), org.assertj.core.groups.Tuple.tuple(3L, 3));
  }

  /**
   * Issue #16 (7): a migration in one transaction, ADD COLUMN, UPDATE, SET NOT NULL, gives two versions at
   * its commit ts with the updated rows between them, sent as separate statements and as one
   * multi-statement string (whose text is then the whole string for both DDLs).
   */
  @Test
  void aMigrationInOneTransactionKeepsItsStatementOrder() throws Exception {
    for (boolean oneString : List.of(false, true)) {
      String table = oneString ? "person_s" : "person_m";
      pg.exec("CREATE TABLE " + table + " (id int PRIMARY KEY, name text)",
          "INSERT INTO " + table + " VALUES (1, 'ann lee'), (2, 'bo yu')");
      String[] migration = {"ALTER TABLE " + table + " ADD COLUMN first_name text",
          "UPDATE " + table + " SET first_name = split_part(name, ' ', 1)",
          "ALTER TABLE " + table + " ALTER first_name SET NOT NULL"};
      long c;
      if (oneString) {
        c = pg.simpleQuery(String.join("; ", migration));   // psql -c "...; ...; ...": one implicit transaction
      } else {
        c = pg.txn(migration);
      }
      h.awaitResolved(c);
      long oid = pg.oid(table);
      List<CaptureHarness.StoredRow> rows = h.rows(oid);
      long commitTs = rows.get(rows.size() - 1).commitTs();
      List<DdlEvent> events = h.schemas.ddlEvents(oid, commitTs - 1, commitTs);
      assertThat(events).as(table).extracting(DdlEvent::type, DdlEvent::rowSeq).containsExactly(
          org.assertj.core.groups.Tuple.tuple(DdlType.ADD_COLUMN, 0L),
          org.assertj.core.groups.Tuple.tuple(DdlType.ALTER_TABLE, 3L));
      assertThat(events.get(0).tableInfoAfter().columns().get(2).nullable()).isTrue();
      assertThat(events.get(1).tableInfoAfter().columns().get(2).nullable()).isFalse();
      assertThat(rows.stream().filter(r -> r.commitTs() == commitTs)).extracting(CaptureHarness.StoredRow::rowSeq)
          .containsExactly(1L, 2L);
      assertThat(h.schemas.tableInfoBefore(oid, commitTs, 1)).isEqualTo(events.get(0).tableInfoAfter());
      assertThat(h.schemas.tableInfoAt(oid, commitTs)).isEqualTo(events.get(1).tableInfoAfter());
      if (oneString) {
        assertThat(events).extracting(DdlEvent::query).containsOnly(String.join("; ", migration));
      } else {
        assertThat(events).extracting(DdlEvent::query).containsExactly(migration[0], migration[2]);
      }
    }
  }

  /**
   * Issue #16 (9): a column added with a default whose value depends on when or where it is computed is
   * named in the DDL event, so a changefeed can report the table's existing rows as differing downstream.
   */
  @Test
  void columnsAddedWithAVolatileDefaultAreNamedInTheDdlEvent() {
    ddl("volatile created", "CREATE TABLE stamped (id int PRIMARY KEY, at timestamptz DEFAULT now())",
        "INSERT INTO stamped (id) VALUES (1), (2)");
    long oid = pg.oid("stamped");
    ddl("volatile added", "ALTER TABLE stamped ADD COLUMN created timestamptz NOT NULL DEFAULT now(),"
        + " ADD COLUMN token uuid DEFAULT gen_random_uuid(), ADD COLUMN wall timestamptz DEFAULT clock_timestamp(),"
        + " ADD COLUMN luck float8 DEFAULT random() * 10, ADD COLUMN ts timestamp DEFAULT CURRENT_TIMESTAMP,"
        + " ADD COLUMN n bigint GENERATED ALWAYS AS IDENTITY, ADD COLUMN label text DEFAULT 'f(x)',"
        + " ADD COLUMN lowered text DEFAULT lower('A'), ADD COLUMN plain int DEFAULT 1 + 2");
    ddl("volatile set", "ALTER TABLE stamped ALTER COLUMN label SET DEFAULT now()::text",
        "ALTER TABLE stamped ADD COLUMN later int");

    List<DdlEvent> events = h.schemas.ddlEvents(oid, 0, Long.MAX_VALUE);
    assertThat(events).extracting(DdlEvent::type).containsExactly(DdlType.CREATE_TABLE, DdlType.ADD_COLUMN,
        DdlType.ALTER_TABLE, DdlType.ADD_COLUMN);
    assertThat(events.get(0).volatileDefaultColumns()).as("a CREATE has no rows yet").isEmpty();
    assertThat(events.get(1).volatileDefaultColumns()).containsExactly("created", "token", "wall", "luck", "ts", "n");
    assertThat(events.get(2).volatileDefaultColumns()).as("a changed default leaves existing rows alone").isEmpty();
    assertThat(events.get(3).volatileDefaultColumns()).isEmpty();
    assertThat(events.get(1).toProto().getVolatileDefaultColumnsList()).containsExactly("created", "token", "wall",
        "luck", "ts", "n");
    assertThat(h.counter("sluice.capture.ddl.volatile.defaults")).isGreaterThanOrEqualTo(6);
  }

  /**
   * A STORED generated column is in no row (pgoutput leaves it out), so it is not among the columns; the table info
   * records it apart, with its expression and its place among all columns (a dropped column takes none), for a table
   * read from the catalog at the start and for one changed by captured DDL.
   */
  @Test
  void storedGeneratedColumnsAreRecordedWithTheirExpressionAndPlace() {
    long oid = pg.oid("measured");
    h.awaitResolved(pg.txn("INSERT INTO measured (id, qty, note) VALUES (1, 4, 'a')"));
    TableInfo initial = h.schemas.ddlEvents(oid, 0, Long.MAX_VALUE).get(0).tableInfoAfter();
    assertThat(initial.columns()).extracting(ColumnInfo::name).containsExactly("id", "qty", "note");
    assertThat(initial.generated()).containsExactly(
        new dev.sluice.schema.GeneratedColumn("weight", "numeric(10,3)", "((qty)::numeric * 0.5)", 2, false));

    ddl("generated added", "ALTER TABLE measured ADD COLUMN shout text GENERATED ALWAYS AS (upper(note)) STORED");
    List<DdlEvent> events = h.schemas.ddlEvents(oid, 0, Long.MAX_VALUE);
    TableInfo after = events.get(events.size() - 1).tableInfoAfter();
    assertThat(after.columns()).extracting(ColumnInfo::name).containsExactly("id", "qty", "note");
    assertThat(after.generated()).extracting(g -> g.name() + "@" + g.position() + " AS " + g.expression())
        .containsExactly("weight@2 AS ((qty)::numeric * 0.5)", "shout@4 AS upper(note)");
    assertThat(TableInfo.fromProto(after.toProto())).isEqualTo(after);
  }

  /**
   * Each table's place in a partition hierarchy is recorded: a partitioned table's partition key, a partition's bound
   * and the tables above it (parent first) with their keys, for tables read from the catalog at the start and for a
   * partition created later.
   */
  @Test
  void partitionHierarchiesAreRecordedWithEachTable() {
    h.awaitResolved(pg.txn("INSERT INTO zones VALUES (1, 'eu')"));
    Partitioning.Ancestor zones = new Partitioning.Ancestor("public", "zones", "LIST (region)", "", List.of("region", "id"),
        List.of("id", "region"));
    Partitioning.Ancestor eu = new Partitioning.Ancestor("public", "zones_eu", "RANGE (id)", "FOR VALUES IN ('eu')",
        List.of("region", "id"), List.of("region", "id"));
    assertThat(initial("zones").partitioning()).isEqualTo(new Partitioning("LIST (region)", "", List.of()));
    assertThat(initial("zones_eu").partitioning())
        .isEqualTo(new Partitioning("RANGE (id)", "FOR VALUES IN ('eu')", List.of(zones)));
    assertThat(initial("zones_eu_low").partitioning())
        .isEqualTo(new Partitioning("", "FOR VALUES FROM (0) TO (100)", List.of(eu, zones)));
    assertThat(initial("existing").partitioning()).isEqualTo(Partitioning.NONE);

    ddl("partition added", "CREATE TABLE zones_us PARTITION OF zones FOR VALUES IN ('us')");
    TableInfo us = initial("zones_us");
    assertThat(us.partitioning()).isEqualTo(new Partitioning("", "FOR VALUES IN ('us')", List.of(zones)));
    assertThat(TableInfo.fromProto(us.toProto())).isEqualTo(us);
  }

  private TableInfo initial(String table) {
    return h.schemas.ddlEvents(pg.oid(table), 0, Long.MAX_VALUE).get(0).tableInfoAfter();
  }

  @Test
  void dropAndCreateWithTheSameNameAreTwoTables() {
    ddl("same name 1", "CREATE TABLE same_name (id int PRIMARY KEY)");
    long first = pg.oid("same_name");
    ddl("same name 2", "DROP TABLE same_name", "CREATE TABLE same_name (id bigint PRIMARY KEY, z text)");
    long second = pg.oid("same_name");
    long c = markers().get("same name 2");
    assertThat(h.schemas.ddlEvents(first, 0, Long.MAX_VALUE)).extracting(DdlEvent::type)
        .containsExactly(DdlType.CREATE_TABLE, DdlType.DROP_TABLE);
    assertThat(h.schemas.ddlEvents(second, 0, Long.MAX_VALUE)).singleElement()
        .satisfies(e -> assertThat(e.commitTs()).isEqualTo(c));
    assertThat(h.schemas.tableByName("public", "same_name", 0).tableId()).isEqualTo(second);
  }

  private long lastOid;

  /** Runs the statements and a marker insert in one transaction and waits until it is captured. */
  private void ddl(String label, String... statements) {
    String[] all = java.util.Arrays.copyOf(statements, statements.length + 1);
    all[statements.length] = "INSERT INTO marker (label) VALUES ('" + label + "')";
    if (statements[0].startsWith("CREATE TABLE ddl_t ")) {
      h.awaitResolved(pg.txn(all));
      lastOid = pg.oid("ddl_t");
      return;
    }
    h.awaitResolved(pg.txn(all));
  }

  private long insertRow(String sql) {
    h.awaitResolved(pg.txn(sql));
    List<CaptureHarness.StoredRow> rows = h.rows(lastOid);
    return rows.get(rows.size() - 1).commitTs();
  }

  /** Label of each marker row -> commit ts of its transaction. */
  private Map<String, Long> markers() {
    Map<String, Long> at = new HashMap<>();
    for (CaptureHarness.StoredRow r : h.rows(pg.oid("marker"))) {
      at.put(r.change().getAfter(1).getStringValue(), r.commitTs());
    }
    return at;
  }

  private static List<String> names(TableInfo t) {
    return t.columns().stream().map(ColumnInfo::name).toList();
  }
}
