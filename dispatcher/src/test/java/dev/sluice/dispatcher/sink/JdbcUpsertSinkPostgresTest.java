package dev.sluice.dispatcher.sink;

import static dev.sluice.dispatcher.sink.SinkFixtures.ins;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
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
        "CREATE TRIGGER bump AFTER INSERT OR UPDATE ON " + s + ".orders FOR EACH ROW EXECUTE FUNCTION " + s + ".bump()");
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
        "CREATE TRIGGER die BEFORE INSERT ON " + s + ".orders FOR EACH ROW EXECUTE FUNCTION " + s + ".die()");
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
}
