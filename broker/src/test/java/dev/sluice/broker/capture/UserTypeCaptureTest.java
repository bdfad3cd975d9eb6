package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.v1.UserType;
import dev.sluice.api.v1.UserTypeField;
import dev.sluice.api.v1.UserTypeKind;
import dev.sluice.api.v1.ValueKind;
import dev.sluice.schema.ColumnInfo;
import dev.sluice.schema.DdlEvent;
import dev.sluice.schema.DdlType;
import dev.sluice.schema.TableInfo;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #16 (5): the definitions of the user-defined types a table's columns use (enums, composites,
 * domains, and what they are built from) travel in its table info, from the catalog read at slot
 * creation and from the event trigger alike, and an ALTER TYPE gives every table that uses the type a
 * version with the new definition. Real PostgreSQL.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UserTypeCaptureTest {

  private TestPostgres pg;
  private CaptureHarness h;

  @BeforeAll
  void start(@TempDir Path dir) {
    pg = TestPostgres.start();
    pg.exec("CREATE SCHEMA types",
        "CREATE TYPE types.mood AS ENUM ('sad', 'ok')",
        "CREATE DOMAIN types.price AS numeric(10,2) NOT NULL DEFAULT 0 CONSTRAINT positive CHECK (VALUE >= 0)",
        "CREATE TYPE types.tagged AS (label text, mood types.mood)",
        "CREATE TABLE early (id int PRIMARY KEY, m types.mood, ms types.mood[], p types.price, t types.tagged)");
    h = CaptureHarness.start(dir, pg, CaptureHarness.config());
  }

  @AfterAll
  void stop() {
    h.close();
    pg.close();
  }

  @Test
  void theCatalogReadAtSlotCreationCarriesTheTypesAColumnNeedsDependenciesFirst() {
    TableInfo early = h.schemas.tableInfoAt(pg.oid("early"), Long.MAX_VALUE);
    assertThat(early.columns()).extracting(ColumnInfo::kind).containsExactly(ValueKind.VALUE_KIND_INT64,
        ValueKind.VALUE_KIND_STRING, ValueKind.VALUE_KIND_ARRAY, ValueKind.VALUE_KIND_DECIMAL,
        ValueKind.VALUE_KIND_TEXT_FALLBACK);
    assertThat(early.columns().get(0).userTypes()).isEmpty();
    assertThat(early.columns().get(1).userTypes()).containsExactly(mood("sad", "ok"));
    assertThat(early.columns().get(2).userTypes()).containsExactly(mood("sad", "ok"));
    assertThat(early.columns().get(3).userTypes()).singleElement().satisfies(d -> {
      assertThat(d.getKind()).isEqualTo(UserTypeKind.USER_TYPE_KIND_DOMAIN);
      assertThat(d.getBaseType()).isEqualTo("numeric(10,2)");
      assertThat(d.getNotNull()).isTrue();
      assertThat(d.getDefaultExpr()).isEqualTo("0");
      assertThat(d.getConstraintsList()).containsExactly("CONSTRAINT positive CHECK ((VALUE >= (0)::numeric))");
    });
    assertThat(early.columns().get(4).userTypes()).extracting(UserType::getTypeName).containsExactly("mood", "tagged");
    assertThat(early.columns().get(4).userTypes().get(1).getFieldsList()).containsExactly(
        UserTypeField.newBuilder().setName("label").setType("text").build(),
        UserTypeField.newBuilder().setName("mood").setType("types.mood").build());
  }

  @Test
  void alterTypeGivesEveryTableThatUsesItANewVersionAtTheCommitTs() {
    h.awaitResolved(pg.txn("CREATE TABLE later (id int PRIMARY KEY, m types.mood NOT NULL)",
        "CREATE TABLE unrelated (id int PRIMARY KEY)"));
    assertThat(h.schemas.tableInfoAt(pg.oid("later"), Long.MAX_VALUE).columns().get(1).userTypes())
        .as("from the event trigger").containsExactly(mood("sad", "ok"));

    long c = pg.txn("ALTER TYPE types.mood ADD VALUE 'happy' AFTER 'sad'", "INSERT INTO later VALUES (1, 'sad')");
    h.awaitResolved(c);
    long commitTs = h.rows(pg.oid("later")).get(0).commitTs();
    for (String table : List.of("early", "later")) {
      assertThat(h.schemas.ddlEvents(pg.oid(table), commitTs - 1, commitTs)).as(table).singleElement().satisfies(e -> {
        assertThat(e.type()).isEqualTo(DdlType.ALTER_TYPE);
        assertThat(e.query()).isEqualTo("ALTER TYPE types.mood ADD VALUE 'happy' AFTER 'sad'");
        assertThat(e.tableInfoAfter().columns().get(1).userTypes()).containsExactly(mood("sad", "happy", "ok"));
      });
    }
    assertThat(h.schemas.ddlEvents(pg.oid("unrelated"), commitTs - 1, commitTs)).isEmpty();
    DdlEvent early = h.schemas.ddlEvents(pg.oid("early"), commitTs - 1, commitTs).get(0);
    assertThat(early.tableInfoAfter().columns().get(4).userTypes().get(0)).as("the composite's enum too")
        .isEqualTo(mood("sad", "happy", "ok"));
  }

  private UserType mood(String... labels) {
    return UserType.newBuilder().setTypeId(pg.queryLong("SELECT 'types.mood'::regtype::oid::int8"))
        .setSchemaName("types").setTypeName("mood").setKind(UserTypeKind.USER_TYPE_KIND_ENUM)
        .addAllLabels(List.of(labels)).build();
  }
}
