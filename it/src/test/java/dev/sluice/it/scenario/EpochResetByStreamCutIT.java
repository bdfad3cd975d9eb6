package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.dispatcher.SubscriptionState;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.it.ChangefeedSetup;
import dev.sluice.it.ConsistencyChecker;
import dev.sluice.it.DownstreamAudit;
import dev.sluice.it.FaultProxy;
import dev.sluice.it.LocalChangefeed;
import dev.sluice.it.workload.SteadyWorkload;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario 1, epoch reset by stream cut: the fault proxy between the collectors and the broker cuts
 * every connection, repeatedly, during a steady insert/update/delete workload on three tables.
 *
 * <p>Asserted, per cut: the proxy closed at least one connection; every observed dispatcher comes back
 * to STREAMING with a strictly higher epoch (the library enters STREAMING only on a Handshake of its
 * current epoch, with seq 1, the RESET's start ts and table info present, so this is "a reset with a
 * higher epoch followed by a handshake carrying table info"). At the end: no reset for a protocol
 * violation (only the reasons of a new stream); per dispatcher, commit ts strictly increasing (none
 * delivered twice, order kept); each observer's in-memory copy equals the upstream table; the
 * changefeed's downstream tables equal the upstream row by row at a resolved ts past the workload; the
 * downstream audit shows no row applied twice. The proxy's other faults run once each after the cuts:
 * a 30 ms delay each way (no reset) and a 16 KiB byte budget per connection (it breaks the streams;
 * after PASS every dispatcher streams again with a higher epoch).
 */
class EpochResetByStreamCutIT {

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  @Test
  void everyCutIsFollowedByAHigherEpochAndATableInfoHandshake() throws Exception {
    int cuts = Tier.pick(3, 20);
    try (Rig rig = Rig.start(logs)) {
      SteadyWorkload workload = SteadyWorkload.create(rig.upstream, "steady", 3, 500);
      for (int i = 0; i < 3; i++) {
        DownstreamAudit.install(rig.downstream, "CREATE TABLE " + workload.table(i)
            + " (id bigint PRIMARY KEY, v bigint NOT NULL, note text)", workload.table(i), "id", "v");
      }
      long startTs = rig.upstream.currentLsn();
      SimpleMeterRegistry observerMeters = new SimpleMeterRegistry();
      ChangefeedSetup setup = ChangefeedSetup.of(rig.proxy.address(), rig.downstream.jdbcUrl(), "cf-cut",
          "public.steady_*");
      try (LocalChangefeed cf = LocalChangefeed.start(setup);
           SluiceClient observer = SluiceClient.connect(setup.clientConfig().withCollectorId("observer"),
               observerMeters)) {
        List<ReplicaListener> listeners = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          ReplicaListener l = new ReplicaListener(workload.table(i), startTs, "v");
          l.handle = observer.subscribe(Subscription.table(workload.table(i)).from(startTs), l);
          listeners.add(l);
        }
        for (ReplicaListener l : listeners) {
          l.handle.streaming().toCompletableFuture().get(60, java.util.concurrent.TimeUnit.SECONDS);
        }
        workload.paced(40).start(2);
        for (int cut = 1; cut <= cuts; cut++) {
          long txnsBefore = total(listeners);
          await().atMost(Duration.ofSeconds(60)).until(() -> total(listeners) > txnsBefore + 20);
          long[] epochs = epochs(listeners);
          assertThat(rig.proxy.cutAll()).as("connections cut at cut %d", cut).isPositive();
          awaitHigherEpochs(listeners, epochs);
        }
        // the proxy's other faults: a delay alone resets nothing; a byte budget cuts streams mid-message
        // (a black hole is BlackHoleRecoveryIT, a known bug)
        long[] beforeDelay = epochs(listeners);
        rig.proxy.set(FaultProxy.Fault.delay(30));
        long flowing = total(listeners);
        await().atMost(Duration.ofSeconds(60)).until(() -> total(listeners) > flowing + 20);
        assertThat(epochs(listeners)).as("epochs after a 30 ms delay each way").containsExactly(beforeDelay);
        for (FaultProxy.Fault f : List.of(FaultProxy.Fault.cutAfterBytes(16 * 1024))) {
          long[] before = epochs(listeners);
          rig.proxy.set(f);
          await("a stream broken by " + f).atMost(Duration.ofSeconds(60))
              .until(() -> listeners.stream().anyMatch(l -> l.handle.state() != SubscriptionState.STREAMING));
          rig.proxy.set(FaultProxy.Fault.pass());
          awaitHigherEpochs(listeners, before);
        }
        workload.stop();
        long end = rig.upstream.currentLsn();
        await().atMost(Duration.ofSeconds(60)).until(() -> listeners.stream().allMatch(l -> l.resolvedTs() >= end));
        for (ReplicaListener l : listeners) {
          assertThat(l.violations()).as("delivery contract of %s", l.name).isEmpty();
          assertThat(l.rows).as("observer copy of %s", l.name).isEqualTo(rig.upstreamRows(l.name, "v"));
        }
        assertThat(Resets.unexpected(observerMeters)).as("resets for a protocol violation (observer)").isEmpty();
        assertThat(Resets.total(observerMeters)).as("resets of the observer").isGreaterThanOrEqualTo(3.0 * cuts);

        ConsistencyChecker.awaitCheckpoint(rig.downstream, "cf-cut", end, Duration.ofMinutes(2));
        for (int i = 0; i < 3; i++) {
          var c = ConsistencyChecker.compare(rig.upstream, rig.downstream, workload.table(i));
          assertThat(c.differences()).as("downstream %s", c.table()).isEmpty();
        }
        assertThat(DownstreamAudit.duplicates(rig.downstream)).as("rows applied twice downstream").isEmpty();
        assertThat(Resets.unexpected(cf.meters())).as("resets for a protocol violation (changefeed)").isEmpty();
        assertThat(rig.proxy.cuts()).isGreaterThanOrEqualTo(cuts);
      }
    }
  }

  private static long[] epochs(List<ReplicaListener> listeners) {
    return listeners.stream().mapToLong(l -> l.handle.stats().epoch()).toArray();
  }

  private static long total(List<ReplicaListener> listeners) {
    return listeners.stream().mapToLong(l -> l.transactions.get()).sum();
  }

  /** Every dispatcher STREAMING again (its handshake accepted) with an epoch above {@code before}. */
  private static void awaitHigherEpochs(List<ReplicaListener> listeners, long[] before) {
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      for (int i = 0; i < listeners.size(); i++) {
        var stats = listeners.get(i).handle.stats();
        assertThat(stats.state()).as("state of %s", listeners.get(i).name).isEqualTo(SubscriptionState.STREAMING);
        assertThat(stats.epoch()).as("epoch of %s", listeners.get(i).name).isGreaterThan(before[i]);
      }
    });
  }
}
