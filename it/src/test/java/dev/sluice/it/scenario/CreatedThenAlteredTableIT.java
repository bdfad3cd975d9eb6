package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.ChangefeedSetup;
import dev.sluice.it.ConsistencyChecker;
import dev.sluice.it.LocalChangefeed;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Regression test (dispatcher: ChangefeedRuntime + JdbcUpsertSink, fixed), found by the pgbench scenario: a table
 * created after the changefeed started and altered before its first row never reaches the sink. The
 * runtime follows the new table from its creation ts, exclusive, so the CREATE TABLE is not delivered;
 * the sink creates target tables only before their first rows, and applies the captured ALTER on a
 * table it has not created: PostgreSQL answers 42P01 and the changefeed stops with SINK_FAILED.
 * Fixed: the sink creates the table from the DDL's table info before applying it; this test keeps it
 * fixed.
 */
class CreatedThenAlteredTableIT {

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  @Test
  void aTableCreatedAndAlteredAfterTheChangefeedStartedIsReplicated() throws Exception {
    try (Rig rig = Rig.start(logs)) {
      ChangefeedSetup setup = ChangefeedSetup.of(rig.broker.grpcAddress(), rig.downstream.jdbcUrl(), "cf-late",
          "public.late_*");
      try (LocalChangefeed cf = LocalChangefeed.start(setup)) {
        rig.upstream.exec("CREATE TABLE public.late_t (id bigint NOT NULL, v bigint)",
            "ALTER TABLE public.late_t ADD PRIMARY KEY (id)",
            "INSERT INTO public.late_t SELECT g, g FROM generate_series(1, 10) g");
        long end = rig.upstream.currentLsn();
        await().atMost(Duration.ofSeconds(60)).until(() -> cf.status().error() != null
            || ConsistencyChecker.checkpoint(rig.downstream, "cf-late") >= end);
        assertThat(cf.status().error()).as("changefeed error").isNull();
        assertThat(ConsistencyChecker.compare(rig.upstream, rig.downstream, "public.late_t").differences()).isEmpty();
      }
    }
  }
}
