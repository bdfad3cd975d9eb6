package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.dispatcher.SubscriptionState;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.it.ChangefeedSetup;
import dev.sluice.it.FaultProxy;
import dev.sluice.it.workload.SteadyWorkload;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Regression test (dispatcher: collector, fixed), found by scenario 1's black-hole fault: when the path to the broker
 * goes silent (bytes accepted, nothing answered, as behind a dropping firewall), the collector's
 * heartbeat timeout ends the gRPC stream but every reconnect opens its new Connect stream on the same
 * pooled HTTP/2 connection, which stays silent: "opening Connect stream" / CANCELLED (not welcomed)
 * every connect timeout, forever, while a new TCP connection through the same proxy would be served at
 * once (the proxy serves new connections after the fault is lifted; the silenced one never talks again,
 * as a TCP connection that lost bytes cannot). Expected: after a heartbeat timeout the collector drops
 * the HTTP/2 connection too. Fixed: the collector closes
 * the connection after a heartbeat timeout; this test keeps it fixed.
 */
class BlackHoleRecoveryIT {

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  @Test
  void aDispatcherStreamsAgainAfterTheBrokerWasSilentForAWhile() throws Exception {
    try (Rig rig = Rig.start(logs)) {
      SteadyWorkload workload = SteadyWorkload.create(rig.upstream, "hole", 1, 100);
      long startTs = rig.upstream.currentLsn();
      ChangefeedSetup setup = ChangefeedSetup.of(rig.proxy.address(), rig.downstream.jdbcUrl(), "hole", "public.hole_*");
      try (SluiceClient client = SluiceClient.connect(setup.clientConfig().withCollectorId("hole"))) {
        ReplicaListener l = new ReplicaListener(workload.table(0), startTs, "v");
        l.handle = client.subscribe(Subscription.table(workload.table(0)).from(startTs), l);
        l.handle.streaming().toCompletableFuture().get(60, TimeUnit.SECONDS);
        workload.paced(20).start(1);
        long epoch = l.handle.stats().epoch();
        rig.proxy.set(FaultProxy.Fault.blackHole());
        await().atMost(Duration.ofSeconds(30)).until(() -> l.handle.state() != SubscriptionState.STREAMING);
        rig.proxy.set(FaultProxy.Fault.pass());
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
          assertThat(l.handle.state()).as("state (proxy: %d connections accepted in all, %d open)",
              rig.proxy.connections(), rig.proxy.openConnections()).isEqualTo(SubscriptionState.STREAMING);
          assertThat(l.handle.stats().epoch()).isGreaterThan(epoch);
        });
        workload.stop();
        assertThat(l.violations()).isEmpty();
      }
    }
  }
}
