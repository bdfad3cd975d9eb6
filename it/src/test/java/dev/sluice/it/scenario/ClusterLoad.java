package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.cli.AdminClient;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.it.ConsistencyChecker;
import dev.sluice.it.DownstreamAudit;
import dev.sluice.it.LoopbackCluster;
import dev.sluice.it.workload.BankWorkload;
import dev.sluice.it.workload.CounterWorkload;
import dev.sluice.it.workload.SteadyWorkload;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The load the cluster scenarios run under: three changefeeds (counters, bank accounts, two steady
 * tables), one per node once balanced, into the downstream, with audit triggers on the counter and
 * steady tables; a bank sampler reading downstream sums while the sink applies; and an observer
 * dispatcher on the accounts (a collector that knows every node) checking the sum at every resolved ts.
 * {@link #verify} checks everything at the end.
 */
final class ClusterLoad implements AutoCloseable {

  static final int ACCOUNTS = 50;
  static final List<String> CHANGEFEEDS = List.of("cf-counters", "cf-bank", "cf-steady");

  final LoopbackCluster rig;
  final long startTs;
  final CounterWorkload counters;
  final BankWorkload bank;
  final SteadyWorkload steady;
  final SimpleMeterRegistry observerMeters = new SimpleMeterRegistry();
  final List<String> downstreamViolations = Collections.synchronizedList(new ArrayList<>());
  final AtomicLong checkedResolved = new AtomicLong();
  private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
  private final SluiceClient observer;
  private final ReplicaListener replica;

  private ClusterLoad(LoopbackCluster rig) throws Exception {
    this.rig = rig;
    this.startTs = rig.upstream.currentLsn();
    CounterAudit.install(rig.downstream);
    counters = CounterWorkload.create(rig.upstream, 20);
    bank = BankWorkload.create(rig.upstream, ACCOUNTS);
    steady = SteadyWorkload.create(rig.upstream, "steady", 2, 500);
    for (int i = 0; i < steady.tables(); i++) {
      DownstreamAudit.install(rig.downstream, "CREATE TABLE " + steady.table(i)
          + " (id bigint PRIMARY KEY, v bigint NOT NULL, note text)", steady.table(i), "id", "v");
    }
    AdminClient admin = rig.alive().get(0).admin;
    create(admin, "cf-counters", CounterWorkload.TABLE);
    create(admin, "cf-bank", BankWorkload.TABLE);
    create(admin, "cf-steady", "public.steady_*");
    observer = SluiceClient.connect(ClientConfig.of(rig.grpcAddresses().toArray(String[]::new))
        .withCollectorId("cluster-observer"), observerMeters);
    // a table subscription starts where its table exists: here every account holds the initial balance
    long observedFrom = rig.upstream.currentLsn();
    await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(() -> rig.knowTable(BankWorkload.TABLE));
    replica = new ReplicaListener(BankWorkload.TABLE, observedFrom, "balance");
    for (long id = 0; id < ACCOUNTS; id++) {
      replica.rows.put(id, BankWorkload.INITIAL_BALANCE);
    }
    long total = bank.total();
    replica.onResolvedCheck = ts -> {
      if (replica.rows.size() == ACCOUNTS) {
        long sum = replica.rows.values().stream().mapToLong(Long::longValue).sum();
        if (sum != total) {
          replica.violation("sum " + sum + " at resolved ts " + ts + ", expected " + total);
        }
        checkedResolved.incrementAndGet();
      }
    };
    replica.handle = observer.subscribe(Subscription.table(BankWorkload.TABLE).from(observedFrom), replica);
    replica.handle.streaming().toCompletableFuture().get(60, TimeUnit.SECONDS);   // a refusal fails here, with its cause
    sampler.scheduleWithFixedDelay(() -> ClusterFailoverIT.sampleBank(rig, total, downstreamViolations), 0, 100,
        TimeUnit.MILLISECONDS);
  }

  private void create(AdminClient admin, String id, String include) {
    AdminClient.Response r = admin.send("POST", "/api/v1/changefeeds", new JsonObject().put("id", id)
        .put("include", new JsonArray().add(include)).put("start_ts", startTs)
        .put("sink_uri", rig.downstream.jdbcUrl() + "?user=postgres"));
    assertThat(r.status()).as(r.body()).isEqualTo(201);
  }

  /** Creates the changefeeds, the observer and starts the writers. */
  static ClusterLoad start(LoopbackCluster rig) throws Exception {
    ClusterLoad load = new ClusterLoad(rig);
    load.counters.start(1);
    load.bank.start(2);
    load.steady.start(1);
    await().atMost(Duration.ofMinutes(3)).until(() -> CHANGEFEEDS.stream().allMatch(cf -> rig.owner(cf).isPresent()
        && ConsistencyChecker.checkpoint(rig.downstream, cf) > load.startTs));
    return load;
  }

  /** Waits until every changefeed applies past the upstream's current position (it resumed after a fault). */
  void awaitApplying(Duration timeout) {
    long now = rig.upstream.currentLsn();
    for (String cf : CHANGEFEEDS) {
      ConsistencyChecker.awaitCheckpoint(rig.downstream, cf, now, timeout);
    }
  }

  /** Stops the writers, waits for every changefeed and the observer to catch up, then checks everything. */
  void verify() throws Exception {
    counters.stop();
    bank.stop();
    steady.stop();
    long end = rig.upstream.currentLsn();
    for (String cf : CHANGEFEEDS) {
      ConsistencyChecker.awaitCheckpoint(rig.downstream, cf, end, Duration.ofMinutes(3));
    }
    await().atMost(Duration.ofMinutes(2)).until(() -> replica.resolvedTs() >= end);
    sampler.shutdown();
    sampler.awaitTermination(30, TimeUnit.SECONDS);
    assertThat(counters.committed()).isGreaterThan(20);
    assertThat(CounterAudit.problems(rig.upstream, rig.downstream)).as("every counter value applied once").isEmpty();
    assertThat(DownstreamAudit.duplicates(rig.downstream)).as("rows applied twice").isEmpty();
    assertThat(downstreamViolations).as("downstream sums while applying").isEmpty();
    assertThat(replica.violations()).as("observer: sum at every resolved ts, delivery contract, no error").isEmpty();
    assertThat(checkedResolved.get()).isGreaterThan(10);
    assertThat(Resets.unexpected(observerMeters)).as("observer resets for a protocol violation").isEmpty();
    List<String> tables = new ArrayList<>(List.of(CounterWorkload.TABLE, BankWorkload.TABLE));
    for (int i = 0; i < steady.tables(); i++) {
      tables.add(steady.table(i));
    }
    for (String table : tables) {
      assertThat(ConsistencyChecker.compare(rig.upstream, rig.downstream, table).differences()).as(table).isEmpty();
    }
  }

  @Override
  public void close() {
    counters.close();
    bank.close();
    steady.close();
    sampler.shutdownNow();
    observer.close();
  }
}
