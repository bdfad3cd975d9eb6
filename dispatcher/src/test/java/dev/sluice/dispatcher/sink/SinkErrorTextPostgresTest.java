package dev.sluice.dispatcher.sink;

import static dev.sluice.dispatcher.sink.SinkFixtures.ORDERS;
import static dev.sluice.dispatcher.sink.SinkFixtures.i;
import static dev.sluice.dispatcher.sink.SinkFixtures.ins;
import static dev.sluice.dispatcher.sink.SinkFixtures.insert;
import static dev.sluice.dispatcher.sink.SinkFixtures.nul;
import static dev.sluice.dispatcher.sink.SinkFixtures.s;
import static dev.sluice.dispatcher.sink.SinkFixtures.txn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A row the target refuses is named by table, key and column, and the error text stays bounded however large
 * the statement's values are (a 100 KB value used to be copied whole into the message), against a real
 * PostgreSQL (zonky).
 */
class SinkErrorTextPostgresTest {

  private static EmbeddedPostgres pg;

  @BeforeAll
  static void startPostgres() throws Exception {
    pg = EmbeddedPostgres.builder().setOverrideWorkingDirectory(new File("target/embedded-pg"))
        .setDataDirectory(new File("target/pgdata-" + UUID.randomUUID())).setCleanDataDirectory(true).start();
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    pg.close();
  }

  private static String url() {
    return "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres?user=postgres&password=hunter22secret";
  }

  @Test
  void aRefusedRowWithAHugeValueIsNamedByTableAndKeyInABoundedMessage() {
    String schema = "t_" + UUID.randomUUID().toString().substring(0, 8);
    String huge = "x".repeat(100_000);
    try (JdbcUpsertSink sink = JdbcUpsertSink.open(JdbcSinkConfig.of(url(), null, null, "cf-" + schema)
        .withTargetSchema(schema).withBatchSize(50))) {
      sink.apply(List.of(ins(101, 1, "fine")), 101);
      // note is varchar(100): the batch of three fails on its second row
      SinkFailedException e = catchThrowableOfType(SinkFailedException.class, () -> sink.apply(List.of(
          ins(102, 2, "ok"), txn(103, ORDERS, insert(ORDERS, 0, i(3), s(huge), nul())), ins(104, 4, "ok")), 104));
      assertThat(e).isNotNull();
      String message = e.getMessage();
      assertThat(message).contains("public.orders").contains("row (id)=(3)").contains("note (100000 chars)")
          .contains("value too long for type character varying(100)").contains("SQL state 22001")
          .contains("commit ts 103").doesNotContain("hunter22secret").doesNotContain("x".repeat(100));
      assertThat(message.length()).isLessThan(2500);
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));   // what a log line with the cause shows
      assertThat(trace.toString().length()).isLessThan(20_000);
      assertThat(trace.toString()).doesNotContain("x".repeat(100)).doesNotContain("hunter22secret");
      assertThat(e.table()).isEqualTo("public.orders");
    }
  }
}
