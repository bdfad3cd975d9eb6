package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.ChangefeedProcess;
import dev.sluice.it.ChangefeedSetup;
import dev.sluice.it.ConsistencyChecker;
import dev.sluice.it.workload.CounterWorkload;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario 4, changefeed process kill -9 and restart: a standalone changefeed process (dispatcher
 * library, ChangefeedRuntime, JdbcUpsertSink into the downstream PostgreSQL) is killed with SIGKILL
 * while it applies a counter workload, and started again from its sink checkpoint.
 *
 * <p>Asserted: exactly once downstream: the audit trigger on the downstream counters table saw, per
 * counter, every value from 0 to the upstream's final value exactly once (no increment lost, none
 * applied twice across the kills), and the tables are equal at a resolved ts past the workload.
 */
class ChangefeedKillRestartIT {

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  @Test
  void killedChangefeedResumesExactlyOnce() throws Exception {
    int kills = Tier.pick(2, 6);
    try (Rig rig = Rig.start(logs)) {
      CounterWorkload counters = CounterWorkload.create(rig.upstream, 20);
      CounterAudit.install(rig.downstream);
      ChangefeedSetup setup = ChangefeedSetup.of(rig.broker.grpcAddress(), rig.downstream.jdbcUrl(), "cf-kill",
          "public.counters");
      try (ChangefeedProcess cf = ChangefeedProcess.start("changefeed", setup, logs.dir())) {
        counters.paced(60).start(2);
        for (int kill = 1; kill <= kills; kill++) {
          long cp = ConsistencyChecker.checkpoint(rig.downstream, "cf-kill");
          long applied = rig.downstream.queryLong("SELECT count(*) FROM it_audit");
          await().atMost(Duration.ofSeconds(90)).until(() -> ConsistencyChecker.checkpoint(rig.downstream, "cf-kill") > cp
              && rig.downstream.queryLong("SELECT count(*) FROM it_audit") > applied + 100);
          cf.kill9();
          long written = counters.committed();
          await().atMost(Duration.ofSeconds(60)).until(() -> counters.committed() > written + 100);
          cf.restart();
        }
        counters.stop();
        long end = rig.upstream.currentLsn();
        ConsistencyChecker.awaitCheckpoint(rig.downstream, "cf-kill", end, Duration.ofMinutes(2));
        var c = ConsistencyChecker.compare(rig.upstream, rig.downstream, CounterWorkload.TABLE);
        assertThat(c.differences()).as("downstream counters").isEmpty();
        assertThat(CounterAudit.problems(rig.upstream, rig.downstream)).as("increments applied exactly once").isEmpty();
        assertThat(counters.committed()).isGreaterThan(200L * kills);
      }
    }
  }
}
