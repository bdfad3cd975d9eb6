package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.it.ChangefeedSetup;
import dev.sluice.it.ConsistencyChecker;
import dev.sluice.it.LocalChangefeed;
import dev.sluice.it.workload.Pgbench;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario 8, pgbench: {@code pgbench -i} as users run it (tables created without keys, loaded, then
 * {@code ALTER TABLE ... ADD PRIMARY KEY}: issue #16's case 3, which left the changefeed FAILED before)
 * and a TPC-B-like run against the upstream while a changefeed replicates every pgbench table; at the end
 * the downstream accounts, branches and tellers equal upstream row by row, and the keyless
 * {@code pgbench_history} holds the same rows.
 *
 * <p>The changefeed follows each pgbench table from its CREATE's commit ts (exclusive), so the sink
 * first meets it at the load: it creates the keyless table as it was then and inserts the rows, then
 * applies the ALTER that keys it (see {@link CreatedThenAlteredTableIT}).
 *
 * <p>Needs the system's pgbench (zonky ships none): {@code scripts/install-test-deps.sh}, which
 * {@code make test} runs first.
 */
class PgbenchIT {

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  @Test
  void aPgbenchRunIsReplicatedTableForTable() throws Exception {
    assumeTrue(Pgbench.available(), "pgbench is not installed: run scripts/install-test-deps.sh");
    String scale = Tier.pick("1", "10");
    String seconds = Tier.pick("10", "60");
    try (Rig rig = Rig.start(logs)) {
      ChangefeedSetup setup = ChangefeedSetup.of(rig.broker.grpcAddress(), rig.downstream.jdbcUrl(), "cf-pgbench",
          "public.pgbench_*");
      try (LocalChangefeed cf = LocalChangefeed.start(setup)) {
        Pgbench.run(rig.upstream, "-i", "-s", scale, "-q");
        String out = Pgbench.run(rig.upstream, "-T", seconds, "-c", "2", "-j", "2");
        double tps = Pgbench.tps(out);
        long end = rig.upstream.currentLsn();
        ConsistencyChecker.awaitCheckpoint(rig.downstream, "cf-pgbench", end, Duration.ofMinutes(Tier.pick(3, 10)));
        long rows = 0;
        for (String table : List.of("public.pgbench_accounts", "public.pgbench_branches", "public.pgbench_tellers")) {
          var c = ConsistencyChecker.compare(rig.upstream, rig.downstream, table);
          assertThat(c.differences()).as("downstream %s", table).isEmpty();
          assertThat(c.upstreamRows()).isPositive();
          rows += c.upstreamRows();
        }
        TableCompare.Table history = new TableCompare.Table("public", "pgbench_history", 'r', false);
        List<String> historyRows = TableCompare.pgRows(rig.upstream, history);
        assertThat(TableCompare.pgRows(rig.downstream, history)).as("downstream pgbench_history (no key)")
            .isEqualTo(historyRows).isNotEmpty();
        rows += historyRows.size();
        System.out.printf("pgbench: scale %s, %s s at %.0f tps; %,d rows compared%n", scale, seconds, tps, rows);
        assertThat(tps).isPositive();
        assertThat(cf.status().error()).isNull();
      }
    }
  }
}
