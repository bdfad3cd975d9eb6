package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.v1.Value;
import dev.sluice.schema.ColumnInfo;
import dev.sluice.schema.DdlEvent;
import dev.sluice.schema.DdlType;
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
        "CREATE TABLE existing (id int PRIMARY KEY, v numeric(10,2) DEFAULT 0)");
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
  void transactionChangingSeveralTablesGivesEachItsCommitTs() {
    ddl("multi", "CREATE TABLE m1 (id int PRIMARY KEY)", "CREATE TABLE m2 (id int PRIMARY KEY, x text)",
        "ALTER TABLE m1 ADD COLUMN y int");
    long c = markers().get("multi");
    List<DdlEvent> m1 = h.schemas.ddlEvents(pg.oid("m1"), 0, Long.MAX_VALUE);
    List<DdlEvent> m2 = h.schemas.ddlEvents(pg.oid("m2"), 0, Long.MAX_VALUE);
    assertThat(m1).singleElement().satisfies(e -> {
      assertThat(e.type()).isEqualTo(DdlType.CREATE_TABLE);
      assertThat(e.commitTs()).isEqualTo(c);
      assertThat(names(e.tableInfoAfter())).containsExactly("id", "y");
      assertThat(e.query()).contains("CREATE TABLE m1").contains("ALTER TABLE m1 ADD COLUMN y int");
    });
    assertThat(m2).singleElement().satisfies(e -> assertThat(e.commitTs()).isEqualTo(c));
  }

  @Test
  void truncateAndShapeChangeInOneTransactionKeepBothTruncateFirst() {
    ddl("staging created", "CREATE TABLE staging (id int PRIMARY KEY, a text)", "INSERT INTO staging VALUES (1, 'x')");
    long oid = pg.oid("staging");
    ddl("staging reloaded", "TRUNCATE staging", "ALTER TABLE staging ADD COLUMN b int",
        "INSERT INTO staging VALUES (2, 'y', 3)");
    long c = markers().get("staging reloaded");

    List<DdlEvent> events = h.schemas.ddlEvents(oid, 0, Long.MAX_VALUE);
    assertThat(events).extracting(DdlEvent::type, DdlEvent::commitTs).containsExactly(
        org.assertj.core.groups.Tuple.tuple(DdlType.CREATE_TABLE, markers().get("staging created")),
        org.assertj.core.groups.Tuple.tuple(DdlType.TRUNCATE_TABLE, c - 1),
        org.assertj.core.groups.Tuple.tuple(DdlType.ADD_COLUMN, c));
    // the truncate empties the table as the sink has it; a same-dialect sink runs only the ALTER
    assertThat(names(events.get(1).tableInfoAfter())).containsExactly("id", "a");
    assertThat(events.get(1).query()).isEmpty();
    assertThat(events.get(2).query()).isEqualTo("ALTER TABLE staging ADD COLUMN b int");
    assertThat(names(events.get(2).tableInfoAfter())).containsExactly("id", "a", "b");
    assertThat(h.rows(oid)).last().satisfies(r -> {
      assertThat(r.commitTs()).isEqualTo(c);
      assertThat(r.change().getAfterCount()).isEqualTo(3);
    });
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
