package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.it.ChangefeedSetup;
import dev.sluice.it.ConsistencyChecker;
import dev.sluice.it.LocalChangefeed;
import dev.sluice.it.workload.BankWorkload;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario 7, bank invariant: concurrent transfers between 100 accounts (each transaction moves an
 * amount from one to another, so the sum never changes), with stream cuts in between.
 *
 * <p>Asserted: at every resolved ts a dispatcher receives, its copy of the accounts (applied
 * transaction by transaction) sums to the invariant total; every downstream snapshot the sampler
 * reads while the changefeed applies (one SQL statement: a consistent view of committed sink
 * transactions) sums to the total; at the end the downstream equals upstream.
 */
class BankInvariantIT {

  private static final int ACCOUNTS = 100;

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  @Test
  void theSumOfBalancesHoldsAtEveryResolvedTs() throws Exception {
    int cuts = Tier.pick(2, 10);
    Duration between = Tier.pick(Duration.ofSeconds(3), Duration.ofSeconds(6));
    try (Rig rig = Rig.start(logs)) {
      BankWorkload bank = BankWorkload.create(rig.upstream, ACCOUNTS);
      long startTs = rig.upstream.currentLsn();   // every account holds the initial balance here
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      ChangefeedSetup setup = ChangefeedSetup.of(rig.proxy.address(), rig.downstream.jdbcUrl(), "cf-bank",
          "public.accounts");
      List<String> downstreamViolations = Collections.synchronizedList(new ArrayList<>());
      AtomicLong snapshots = new AtomicLong();
      java.util.concurrent.ScheduledExecutorService sampler = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
      try (LocalChangefeed cf = LocalChangefeed.start(setup);
           SluiceClient observer = SluiceClient.connect(setup.clientConfig().withCollectorId("observer"), meters)) {
        ReplicaListener l = new ReplicaListener(BankWorkload.TABLE, startTs, "balance");
        for (long id = 0; id < ACCOUNTS; id++) {
          l.rows.put(id, BankWorkload.INITIAL_BALANCE);
        }
        AtomicLong checkedResolved = new AtomicLong();
        l.onResolvedCheck = ts -> {
          long sum = l.rows.values().stream().mapToLong(Long::longValue).sum();
          if (sum != bank.total()) {
            l.violation("sum " + sum + " at resolved ts " + ts + ", expected " + bank.total());
          }
          checkedResolved.incrementAndGet();
        };
        l.handle = observer.subscribe(Subscription.table(BankWorkload.TABLE).from(startTs), l);
        l.handle.streaming().toCompletableFuture().get(60, TimeUnit.SECONDS);
        sampler.scheduleWithFixedDelay(() -> sample(rig, bank.total(), snapshots, downstreamViolations), 0, 50,
            TimeUnit.MILLISECONDS);
        bank.start(4);
        try {
          for (int cut = 1; cut <= cuts; cut++) {
            long at = System.nanoTime() + between.toNanos();
            await().atMost(between.plusSeconds(30)).until(() -> System.nanoTime() >= at);
            assertThat(rig.proxy.cutAll()).isPositive();
          }
          bank.stop();
          long end = rig.upstream.currentLsn();
          await().atMost(Duration.ofSeconds(60)).until(() -> l.resolvedTs() >= end);
          ConsistencyChecker.awaitCheckpoint(rig.downstream, "cf-bank", end, Duration.ofMinutes(2));
        } finally {
          sampler.shutdown();
          sampler.awaitTermination(30, TimeUnit.SECONDS);
        }
        System.out.printf("bank: %,d transfers, %,d resolved ts checked, %,d downstream snapshots%n", bank.committed(),
            checkedResolved.get(), snapshots.get());
        assertThat(l.violations()).as("observer: sum at every resolved ts, delivery contract").isEmpty();
        assertThat(checkedResolved.get()).isGreaterThan(10);
        assertThat(downstreamViolations).as("downstream sums while applying").isEmpty();
        assertThat(snapshots.get()).isGreaterThan(10);
        assertThat(bank.committed()).isGreaterThan(100);
        assertThat(ConsistencyChecker.compare(rig.upstream, rig.downstream, BankWorkload.TABLE).differences()).isEmpty();
        assertThat(Resets.unexpected(meters)).as("resets for a protocol violation").isEmpty();
      }
    }
  }

  /** Reads the downstream sum and count in one statement (one snapshot of committed sink transactions). */
  private static void sample(Rig rig, long total, AtomicLong snapshots, List<String> violations) {
    try (Connection c = rig.downstream.connect(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT count(*), coalesce(sum(balance), 0) FROM " + BankWorkload.TABLE)) {
      rs.next();
      if (rs.getLong(1) == ACCOUNTS) {
        snapshots.incrementAndGet();
        if (rs.getLong(2) != total) {
          violations.add("downstream sum " + rs.getLong(2) + ", expected " + total);
        }
      }
    } catch (java.sql.SQLException e) {
      if (!"42P01".equals(e.getSQLState())) {   // the sink has not created the table yet
        violations.add("sampler failed: " + e);
      }
    }
  }
}
