package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.dispatcher.SubscriptionState;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.it.ChangefeedSetup;
import dev.sluice.it.ConsistencyChecker;
import dev.sluice.it.LocalChangefeed;
import dev.sluice.it.workload.CounterWorkload;
import dev.sluice.it.workload.SteadyWorkload;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario 3, broker kill -9 and restart mid-stream: SIGKILL of the broker process while the workload
 * writes, which keeps writing while it is down; then a restart on the same data directory and port.
 *
 * <p>Asserted: the restarted broker resumes capture from its stored position (its log says "capture
 * streaming" and never "recreating the slot"); the observer's dispatchers re-register because the
 * incarnation changed (resets with reason {@code broker_restarted}), come back STREAMING with a higher
 * epoch and resume from their checkpoints (commit ts strictly increasing: nothing delivered twice, the
 * copies equal upstream: nothing lost); the changefeed's downstream tables equal upstream, and the
 * counter audit shows every increment applied exactly once.
 */
class BrokerKillRestartIT {

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  @Test
  void killedBrokerRestartsAndDispatchersResumeFromTheirCheckpoints() throws Exception {
    int kills = Tier.pick(1, 3);
    try (Rig rig = Rig.start(logs)) {
      SteadyWorkload steady = SteadyWorkload.create(rig.upstream, "kb", 2, 500);
      CounterWorkload counters = CounterWorkload.create(rig.upstream, 20);
      CounterAudit.install(rig.downstream);
      long startTs = rig.upstream.currentLsn();
      SimpleMeterRegistry observerMeters = new SimpleMeterRegistry();
      ChangefeedSetup setup = ChangefeedSetup.of(rig.broker.grpcAddress(), rig.downstream.jdbcUrl(), "cf-kill-broker",
          "public.kb_*", "public.counters");
      try (LocalChangefeed cf = LocalChangefeed.start(setup);
           SluiceClient observer = SluiceClient.connect(setup.clientConfig().withCollectorId("observer"),
               observerMeters)) {
        List<ReplicaListener> listeners = new ArrayList<>();
        for (String table : List.of(steady.table(0), steady.table(1), CounterWorkload.TABLE)) {
          ReplicaListener l = new ReplicaListener(table, startTs, table.equals(CounterWorkload.TABLE) ? "n" : "v");
          l.handle = observer.subscribe(Subscription.table(table).from(startTs), l);
          listeners.add(l);
        }
        for (ReplicaListener l : listeners) {
          l.handle.streaming().toCompletableFuture().get(60, TimeUnit.SECONDS);
        }
        steady.paced(40).start(1);
        counters.paced(40).start(2);
        for (int kill = 1; kill <= kills; kill++) {
          long txns = listeners.stream().mapToLong(l -> l.transactions.get()).sum();
          await().atMost(Duration.ofSeconds(60)).until(() -> listeners.stream().mapToLong(l -> l.transactions.get())
              .sum() > txns + 100);
          long[] epochs = listeners.stream().mapToLong(l -> l.handle.stats().epoch()).toArray();
          rig.broker.kill9();
          long written = counters.committed();
          await().atMost(Duration.ofSeconds(60)).until(() -> counters.committed() > written + 100);   // upstream moves on
          rig.broker.restart();
          String log = Files.readString(rig.broker.log());
          assertThat(log).as("restarted broker log").contains("capture streaming").doesNotContain("recreating the slot");
          await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
            for (int i = 0; i < listeners.size(); i++) {
              var s = listeners.get(i).handle.stats();
              assertThat(s.state()).as("state of %s", listeners.get(i).name).isEqualTo(SubscriptionState.STREAMING);
              assertThat(s.epoch()).as("epoch of %s", listeners.get(i).name).isGreaterThan(epochs[i]);
            }
          });
        }
        steady.stop();
        counters.stop();
        long end = rig.upstream.currentLsn();
        await().atMost(Duration.ofSeconds(90)).until(() -> listeners.stream().allMatch(l -> l.resolvedTs() >= end));
        for (ReplicaListener l : listeners) {
          assertThat(l.violations()).as("delivery contract of %s", l.name).isEmpty();
          assertThat(l.rows).as("observer copy of %s", l.name).isEqualTo(rig.upstreamRows(l.name, l.valueColumn));
        }
        assertThat(Resets.byReason(observerMeters).getOrDefault("broker_restarted", 0.0))
            .as("resets after an incarnation change").isGreaterThanOrEqualTo(3.0 * kills);
        assertThat(Resets.unexpected(observerMeters)).as("resets for a protocol violation").isEmpty();

        ConsistencyChecker.awaitCheckpoint(rig.downstream, "cf-kill-broker", end, Duration.ofMinutes(2));
        for (String table : List.of(steady.table(0), steady.table(1), CounterWorkload.TABLE)) {
          var c = ConsistencyChecker.compare(rig.upstream, rig.downstream, table);
          assertThat(c.differences()).as("downstream %s", table).isEmpty();
        }
        assertThat(CounterAudit.problems(rig.upstream, rig.downstream)).as("counter increments applied").isEmpty();
        assertThat(rig.broker.starts()).isEqualTo(kills + 1);
      }
    }
  }
}
