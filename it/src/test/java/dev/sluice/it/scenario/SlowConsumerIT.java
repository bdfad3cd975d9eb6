package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.error.SluiceException;
import dev.sluice.broker.control.EventServiceLimits;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.it.ChangefeedSetup;
import dev.sluice.it.ConsistencyChecker;
import dev.sluice.it.LocalChangefeed;
import dev.sluice.it.PostgresServer;
import dev.sluice.it.workload.SteadyWorkload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario 6, slow consumer: two changefeeds follow the same tables from one broker process; the
 * sink of one of them stalls (10 s in the quick tier, a minute in the full tier) while ~1 KB rows keep
 * coming. Its dispatchers' queues are 2 MiB, so its credit runs out within seconds of the stall.
 *
 * <p>Asserted: the broker's live heap (after a full GC, read with jcmd) grows during the stall by less
 * than its per-connection queue quota ({@code connectionQueueBytes}, default 8 MiB, for each of the two
 * collector connections); the stalled changefeed's checkpoint stands still while the other one's
 * keeps moving, and the other one's delivery latency (upstream commit time to listener, p99) during
 * the stall stays within max(1 s, 3x) of its p99 before the stall; once released, the stalled changefeed
 * catches up and both downstreams equal upstream.
 */
class SlowConsumerIT {

  /** The broker runs with the default limits: the quota is the broker's own default, not a copy of it. */
  static final long CONNECTION_QUEUE_QUOTA = EventServiceLimits.DEFAULT_CONNECTION_QUEUE_BYTES;

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  /** Commit-to-listener latency of each transaction, in ms, tagged with the phase it arrived in. */
  static final class LatencyProbe implements ChangeListener {
    final List<double[]> samples = Collections.synchronizedList(new ArrayList<>());   // {phase, ms}
    volatile int phase;
    volatile SubscriptionHandle handle;

    @Override
    public void onTransaction(Transaction txn) {
      samples.add(new double[] {phase, System.currentTimeMillis() - txn.commitTimeMicros() / 1000.0});
      handle.acknowledge(txn.checkpoint());
    }

    @Override
    public void onResolved(long ts) {
      handle.acknowledge(ts);
    }

    @Override
    public void onError(SluiceException error) {
      samples.add(new double[] {-1, Double.NaN});
    }

    double p99(int ofPhase) {
      double[] ms;
      synchronized (samples) {
        ms = samples.stream().filter(s -> s[0] == ofPhase).mapToDouble(s -> s[1]).sorted().toArray();
      }
      return ms.length == 0 ? Double.NaN : ms[Math.min(ms.length - 1, (int) Math.ceil(ms.length * 0.99) - 1)];
    }

    long count(int ofPhase) {
      synchronized (samples) {
        return samples.stream().filter(s -> s[0] == ofPhase).count();
      }
    }
  }

  @Test
  void aStalledSinkSlowsOnlyItselfAndTheBrokerHeapStaysWithinItsQuota() throws Exception {
    Duration stall = Tier.pick(Duration.ofSeconds(10), Duration.ofSeconds(60));
    try (Rig rig = Rig.start(logs, List.of("-Xmx1g"));
         PostgresServer fastDown = PostgresServer.downstream()) {
      SteadyWorkload workload = SteadyWorkload.create(rig.upstream, "slow", 2, 5_000).withNoteBytes(1024);
      ChangefeedSetup slowSetup = ChangefeedSetup.of(rig.broker.grpcAddress(), rig.downstream.jdbcUrl(), "cf-slow",
          "public.slow_*").withDispatcherQueueBytes(2L << 20);
      ChangefeedSetup fastSetup = ChangefeedSetup.of(rig.broker.grpcAddress(), fastDown.jdbcUrl(), "cf-fast",
          "public.slow_*");
      long startTs = rig.upstream.currentLsn();
      try (LocalChangefeed slow = LocalChangefeed.start(slowSetup); LocalChangefeed fast = LocalChangefeed.start(fastSetup)) {
        LatencyProbe probe = new LatencyProbe();
        probe.handle = fast.client().subscribe(Subscription.table(workload.table(0)).from(startTs).creditGroup("cf-fast"),
            probe);
        probe.handle.streaming().toCompletableFuture().get(60, TimeUnit.SECONDS);
        workload.paced(100).start(2);
        await().atMost(Duration.ofSeconds(60)).until(() -> probe.count(0) > 200
            && ConsistencyChecker.checkpoint(rig.downstream, "cf-slow") > startTs);
        long baseline = rig.broker.heapUsedAfterGc();

        slow.sink().stall();
        probe.phase = 1;
        long stallStart = System.nanoTime();
        long slowCheckpoint = ConsistencyChecker.checkpoint(rig.downstream, "cf-slow");
        long fastCheckpoint = ConsistencyChecker.checkpoint(fastDown, "cf-fast");
        long maxHeap = baseline;
        int samples = 3;
        for (int i = 1; i <= samples; i++) {
          long at = stallStart + stall.toNanos() * i / samples;
          await().atMost(stall.plusSeconds(30)).until(() -> System.nanoTime() >= at);
          maxHeap = Math.max(maxHeap, rig.broker.heapUsedAfterGc());
        }
        long slowAfter = ConsistencyChecker.checkpoint(rig.downstream, "cf-slow");
        long fastAfter = ConsistencyChecker.checkpoint(fastDown, "cf-fast");
        slow.sink().release();
        probe.phase = 2;
        long growth = maxHeap - baseline;
        System.out.printf("slow consumer: stall %s, broker heap %,d -> max %,d bytes (growth %,d), fast p99 before %.0f ms,"
            + " during %.0f ms (%d txns)%n", stall, baseline, maxHeap, growth, probe.p99(0), probe.p99(1), probe.count(1));

        assertThat(slowAfter).as("the stalled changefeed's checkpoint stands still").isEqualTo(slowCheckpoint);
        assertThat(fastAfter).as("the other changefeed's checkpoint moves").isGreaterThan(fastCheckpoint);
        assertThat(growth).as("broker heap growth during the stall (bytes)").isLessThan(2 * CONNECTION_QUEUE_QUOTA);
        assertThat(probe.count(1)).as("transactions the other changefeed received during the stall").isPositive();
        assertThat(probe.p99(1)).as("p99 ms of the other changefeed during the stall")
            .isLessThanOrEqualTo(Math.max(1000, 3 * probe.p99(0)));

        workload.stop();
        long end = rig.upstream.currentLsn();
        ConsistencyChecker.awaitCheckpoint(rig.downstream, "cf-slow", end, Duration.ofMinutes(3));
        ConsistencyChecker.awaitCheckpoint(fastDown, "cf-fast", end, Duration.ofMinutes(1));
        for (int i = 0; i < workload.tables(); i++) {
          assertThat(ConsistencyChecker.compare(rig.upstream, rig.downstream, workload.table(i)).differences())
              .as("stalled changefeed's copy of %s", workload.table(i)).isEmpty();
          assertThat(ConsistencyChecker.compare(rig.upstream, fastDown, workload.table(i)).differences())
              .as("other changefeed's copy of %s", workload.table(i)).isEmpty();
        }
        assertThat(Arrays.stream(new long[] {slow.sink().transactions()}).sum()).isPositive();
      }
    }
  }
}
