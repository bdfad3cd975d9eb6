package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.broker.upstream.UpstreamConfig;
import dev.sluice.schema.ColumnInfo;
import dev.sluice.schema.DdlEvent;
import dev.sluice.schema.DdlType;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A role with REPLICATION but not superuser cannot install event triggers: capture falls back to
 * versions derived from Relation messages, at the commit ts of the first transaction that writes the
 * changed table, and says so in its status.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DdlCaptureFallbackModeTest {

  private TestPostgres pg;
  private CaptureHarness h;

  @BeforeAll
  void start(@TempDir Path dir) {
    pg = TestPostgres.start();
    pg.exec("CREATE ROLE capturer LOGIN REPLICATION",
        "CREATE PUBLICATION sluice_pub FOR ALL TABLES",
        "CREATE TABLE app (id int PRIMARY KEY, a text)",
        "CREATE TABLE marker_f (id int PRIMARY KEY)",
        "GRANT ALL ON SCHEMA public TO capturer");
    h = new CaptureHarness(dir, UpstreamConfig.external(pg.jdbcUrl(), "capturer", null), CaptureHarness.config());
    h.capture.start();
  }

  @AfterAll
  void stop() {
    h.close();
    pg.close();
  }

  @Test
  void statusSaysRelationMessages() {
    assertThat(h.capture.status().mode()).isEqualTo(DdlCaptureMode.RELATION_MESSAGES);
  }

  @Test
  void heartbeatOfANonSuperuserRoleStillAdvancesTheResolvedTs() {
    long before = h.events.resolvedTs();
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(2))
        .until(() -> h.events.resolvedTs() > before);
  }

  @Test
  void changesAppearAtTheCommitTsOfTheNextWriteToTheTable() {
    long r1 = lastCommit("INSERT INTO app VALUES (1, 'x')", "app");
    pg.exec("ALTER TABLE app ADD COLUMN b int");
    long r2 = lastCommit("INSERT INTO app VALUES (2, 'y', 3)", "app");
    pg.exec("ALTER TABLE app RENAME COLUMN a TO a2");
    long r3 = lastCommit("UPDATE app SET b = 4 WHERE id = 2", "app");
    pg.exec("ALTER TABLE app RENAME TO app2");
    long r4 = lastCommit("DELETE FROM app2 WHERE id = 1", "app2");
    long t = pg.txn("TRUNCATE app2", "INSERT INTO marker_f VALUES (1)");

    h.awaitResolved(t);
    long oid = pg.oid("app2");
    List<DdlEvent> events = h.schemas.ddlEvents(oid, 0, Long.MAX_VALUE);
    assertThat(events).extracting(DdlEvent::type).containsExactly(DdlType.CREATE_TABLE, DdlType.ADD_COLUMN,
        DdlType.RENAME_COLUMN, DdlType.RENAME_TABLE, DdlType.TRUNCATE_TABLE);
    long truncateTs = h.rows(pg.oid("marker_f")).get(0).commitTs();
    assertThat(events).extracting(DdlEvent::commitTs).containsExactly(events.get(0).commitTs(), r2, r3, r4, truncateTs);
    assertThat(events.get(0).commitTs()).isLessThan(r1);
    assertThat(events).extracting(DdlEvent::query).containsOnly("");
    assertThat(events.get(2).tableInfoAfter().columns()).extracting(ColumnInfo::name).containsExactly("id", "a2", "b");
    assertThat(events.get(3).tableInfoAfter().qualifiedName()).isEqualTo("public.app2");
    assertThat(events.get(3).tableInfoAfter().primaryKey()).containsExactly("id");
  }

  @Test
  void tableCreatedAfterTheSlotIsDerivedFromItsFirstRow() {
    pg.exec("CREATE TABLE later (id bigint PRIMARY KEY, tags text[])");
    long r = lastCommit("INSERT INTO later VALUES (1, '{a,b}')", "later");
    List<DdlEvent> events = h.schemas.ddlEvents(pg.oid("later"), 0, Long.MAX_VALUE);
    assertThat(events).singleElement().satisfies(e -> {
      assertThat(e.type()).isEqualTo(DdlType.CREATE_TABLE);
      assertThat(e.commitTs()).isEqualTo(r);
      assertThat(e.tableInfoAfter().columns()).extracting(ColumnInfo::sourceType).containsExactly("bigint", "text[]");
      assertThat(e.tableInfoAfter().primaryKey()).containsExactly("id");
    });
  }

  /** Issue #16 (5): without the event trigger, the types come from the catalog when the table is first seen. */
  @Test
  void aTableUsingAnEnumCarriesTheEnumFromTheCatalog() {
    pg.exec("CREATE TYPE fb_mood AS ENUM ('sad', 'ok')", "CREATE TABLE fb_person (id int PRIMARY KEY, m fb_mood[])");
    lastCommit("INSERT INTO fb_person VALUES (1, '{ok}')", "fb_person");
    assertThat(h.schemas.tableInfoAt(pg.oid("fb_person"), Long.MAX_VALUE).columns().get(1).userTypes())
        .singleElement().satisfies(t -> {
          assertThat(t.getTypeName()).isEqualTo("fb_mood");
          assertThat(t.getLabelsList()).containsExactly("sad", "ok");
        });
  }

  @Test
  void aNameTakenByANewTableMeansTheOldOneWasDroppedOrRenamed() {
    pg.exec("CREATE TABLE gone (id int PRIMARY KEY)", "CREATE TABLE moved (id int PRIMARY KEY)");
    lastCommit("INSERT INTO gone VALUES (1)", "gone");
    lastCommit("INSERT INTO moved VALUES (1)", "moved");
    long goneOid = pg.oid("gone");
    long movedOid = pg.oid("moved");
    pg.exec("DROP TABLE gone", "CREATE TABLE gone (id bigint PRIMARY KEY, v text)",
        "ALTER TABLE moved RENAME TO moved_old", "CREATE TABLE moved (id bigint PRIMARY KEY)");
    long r1 = lastCommit("INSERT INTO gone VALUES (2, 'x')", "gone");
    long r2 = lastCommit("INSERT INTO moved VALUES (2)", "moved");

    assertThat(h.schemas.ddlEvents(goneOid, 0, Long.MAX_VALUE)).extracting(DdlEvent::type, DdlEvent::commitTs)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(DdlType.CREATE_TABLE,
            h.schemas.ddlEvents(goneOid, 0, Long.MAX_VALUE).get(0).commitTs()),
            org.assertj.core.groups.Tuple.tuple(DdlType.DROP_TABLE, r1));
    assertThat(h.schemas.tableByName("public", "gone", 0).tableId()).isEqualTo(pg.oid("gone"));
    List<DdlEvent> moved = h.schemas.ddlEvents(movedOid, 0, Long.MAX_VALUE);
    assertThat(moved.get(moved.size() - 1).type()).isEqualTo(DdlType.RENAME_TABLE);
    assertThat(moved.get(moved.size() - 1).commitTs()).isEqualTo(r2);
    assertThat(moved.get(moved.size() - 1).tableInfoAfter().tableName()).isEqualTo("moved_old");
    assertThat(h.capture.status().state()).isEqualTo(CaptureState.STREAMING);
  }

  /** Without the trigger the ADD COLUMN shows at the next row, after the TRUNCATE that ran after it. */
  @Test
  void truncateAndShapeChangeInOneTransactionKeepTheirOrderAsTheRowsShowIt() {
    pg.exec("CREATE TABLE reloaded (id int PRIMARY KEY, a text)");
    lastCommit("INSERT INTO reloaded VALUES (1, 'x')", "reloaded");
    long oid = pg.oid("reloaded");
    h.awaitResolved(pg.txn("ALTER TABLE reloaded ADD COLUMN b int", "TRUNCATE reloaded",
        "INSERT INTO reloaded VALUES (2, 'y', 3)"));
    long c = h.rows(oid).get(h.rows(oid).size() - 1).commitTs();

    List<DdlEvent> events = h.schemas.ddlEvents(oid, 0, Long.MAX_VALUE);
    assertThat(events).extracting(DdlEvent::type).containsExactly(DdlType.CREATE_TABLE, DdlType.TRUNCATE_TABLE,
        DdlType.ADD_COLUMN);
    assertThat(events).extracting(DdlEvent::commitTs).endsWith(c, c);
    assertThat(events).extracting(DdlEvent::rowSeq).endsWith(0L, 1L);
    assertThat(events.get(1).tableInfoAfter().columns()).extracting(ColumnInfo::name).containsExactly("id", "a");
    assertThat(events.get(2).tableInfoAfter().columns()).extracting(ColumnInfo::name).containsExactly("id", "a", "b");
    assertThat(h.rows(oid).get(h.rows(oid).size() - 1).rowSeq()).isEqualTo(2);
  }

  /** Runs one statement, waits until captured and returns the commit ts of the table's newest row. */
  private long lastCommit(String sql, String table) {
    h.awaitResolved(pg.txn(sql));
    List<CaptureHarness.StoredRow> rows = h.rows(pg.oid(table));
    return rows.get(rows.size() - 1).commitTs();
  }
}
