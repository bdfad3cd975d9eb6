package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.v1.Member;
import dev.sluice.api.v1.MemberState;
import dev.sluice.api.v1.Topology;
import dev.sluice.broker.cli.AdminClient;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.sink.FencedOutException;
import dev.sluice.dispatcher.sink.JdbcSinkConfig;
import dev.sluice.dispatcher.sink.JdbcUpsertSink;
import dev.sluice.it.ConsistencyChecker;
import dev.sluice.it.DownstreamAudit;
import dev.sluice.it.LoopbackCluster;
import dev.sluice.it.workload.BankWorkload;
import dev.sluice.it.workload.CounterWorkload;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A three-node cluster (real broker processes, each capturing the upstream through its own slot) hosting
 * one changefeed into a downstream PostgreSQL under a bank and a counter workload. The quick tier of the
 * cluster scenarios: the topology every node serves, a kill -9 of the changefeed's owner, the fence that
 * refuses the dead owner's token, and a drain.
 *
 * <p>Asserted: every node lists all three members (GetTopology and /api/v1/members) with one coordinator;
 * after the kill the changefeed is hosted by a survivor with a higher fencing token, the survivors show the
 * dead node UNREACHABLE, a sink opened with the old token is refused (FENCED_OUT); a drained node hosts
 * nothing and is DRAINING everywhere; at the end every counter value was applied exactly once (audit
 * trigger), the downstream sum of balances held in every snapshot read while applying, and both tables
 * equal upstream.
 */
class ClusterFailoverIT {

  private static final int ACCOUNTS = 50;
  private static final String CF = "cf-cluster";

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  @Test
  void aKilledOwnersChangefeedResumesOnAnotherNodeExactlyOnceAndTheOldTokenIsFencedOut() throws Exception {
    try (LoopbackCluster rig = LoopbackCluster.start(logs::data, logs.dir(), 3)) {
      await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).until(rig::formed);
      for (String address : rig.grpcAddresses()) {
        assertTopology(address, 3);
      }

      long startTs = rig.upstream.currentLsn();
      CounterAudit.install(rig.downstream);
      CounterWorkload counters = CounterWorkload.create(rig.upstream, 20);
      BankWorkload bank = BankWorkload.create(rig.upstream, ACCOUNTS);
      LoopbackCluster.Node entry = rig.nodes.stream().filter(n -> !n.id.equals(rig.coordinator().orElseThrow().id))
          .findFirst().orElseThrow();   // a create through a follower is forwarded to the coordinator
      AdminClient.Response created = entry.admin.send("POST", "/api/v1/changefeeds", new JsonObject().put("id", CF)
          .put("include", new JsonArray().add(CounterWorkload.TABLE).add(BankWorkload.TABLE))
          .put("start_ts", startTs).put("sink_uri", rig.downstream.jdbcUrl() + "?user=postgres"));
      assertThat(created.status()).as(created.body()).isEqualTo(201);

      List<String> violations = Collections.synchronizedList(new ArrayList<>());
      ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
      sampler.scheduleWithFixedDelay(() -> sampleBank(rig, bank.total(), violations), 0, 50, TimeUnit.MILLISECONDS);
      counters.start(2);
      bank.start(2);
      try {
        await().atMost(Duration.ofMinutes(2)).until(() -> rig.owner(CF).isPresent()
            && ConsistencyChecker.checkpoint(rig.downstream, CF) > startTs);
        LoopbackCluster.Node owner = rig.node(rig.owner(CF).orElseThrow());
        long oldToken = rig.token(CF);

        long killedAt = rig.upstream.currentLsn();
        long killedNanos = System.nanoTime();
        owner.broker.kill9();
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100)).until(() ->
            rig.owner(CF).filter(id -> !id.equals(owner.id)).isPresent() && rig.token(CF) > oldToken
                && ConsistencyChecker.checkpoint(rig.downstream, CF) > killedAt);
        System.out.printf("cluster: changefeed applying again on %s %d ms after its owner %s was killed%n",
            rig.owner(CF).orElseThrow(), (System.nanoTime() - killedNanos) / 1_000_000, owner.id);
        for (LoopbackCluster.Node n : rig.alive()) {
          await().atMost(Duration.ofSeconds(30)).until(() -> "UNREACHABLE".equals(n.states().get(owner.id)));
        }
        assertThatThrownBy(() -> JdbcUpsertSink.open(JdbcSinkConfig.of(rig.downstream.jdbcUrl(), "postgres", "", CF)
            .withFenceToken(oldToken))).as("the dead owner's token").isInstanceOf(FencedOutException.class);

        // drain the node that hosts it now, through the other survivor: the changefeed moves once more
        LoopbackCluster.Node host = rig.node(rig.owner(CF).orElseThrow());
        LoopbackCluster.Node other = rig.alive().stream().filter(n -> n != host).findFirst().orElseThrow();
        AdminClient.Response drained = other.admin.send("POST", "/api/v1/members/" + host.id + "/drain", null);
        assertThat(drained.status()).as(drained.body()).isEqualTo(202);
        await().atMost(Duration.ofMinutes(2)).until(() -> rig.owner(CF).filter(other.id::equals).isPresent()
            && host.admin.send("GET", "/api/v1/members/" + host.id, null).json().getJsonObject("drain")
                .getBoolean("drained"));
        assertThat(other.states().get(host.id)).isEqualTo("DRAINING");
        long drainedAt = rig.upstream.currentLsn();
        ConsistencyChecker.awaitCheckpoint(rig.downstream, CF, drainedAt, Duration.ofMinutes(1));
      } finally {
        counters.stop();
        bank.stop();
        sampler.shutdown();
        sampler.awaitTermination(30, TimeUnit.SECONDS);
      }
      long end = rig.upstream.currentLsn();
      ConsistencyChecker.awaitCheckpoint(rig.downstream, CF, end, Duration.ofMinutes(2));

      assertThat(counters.committed()).isGreaterThan(50);
      assertThat(CounterAudit.problems(rig.upstream, rig.downstream)).as("every counter value applied once").isEmpty();
      assertThat(DownstreamAudit.duplicates(rig.downstream)).as("rows applied twice").isEmpty();
      assertThat(violations).as("downstream sums while applying").isEmpty();
      for (String table : List.of(CounterWorkload.TABLE, BankWorkload.TABLE)) {
        assertThat(ConsistencyChecker.compare(rig.upstream, rig.downstream, table).differences()).as(table).isEmpty();
      }
    }
  }

  /** GetTopology at {@code address} lists {@code size} serving members, one of them the coordinator. */
  static void assertTopology(String address, int size) throws Exception {
    try (SluiceClient c = SluiceClient.connect(ClientConfig.of(address).withCollectorId("topology-probe"))) {
      Topology t = c.topology().toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertThat(t.getMembersList()).hasSize(size);
      assertThat(t.getMembersList()).extracting(Member::getState).containsOnly(MemberState.MEMBER_STATE_SERVING);
      assertThat(t.getMembersList()).filteredOn(Member::getCoordinator).hasSize(1);
      assertThat(t.getCoordinatorNodeId()).isNotEmpty();
      assertThat(t.getMembersList()).allMatch(m -> m.getResolvedTs() > 0 && m.getResolvedTs() >= m.getGcTs());
    }
  }

  /** The downstream sum of balances in one statement: a snapshot of committed sink transactions. */
  static void sampleBank(LoopbackCluster rig, long total, List<String> violations) {
    try (Connection c = rig.downstream.connect(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT count(*), coalesce(sum(balance), 0) FROM " + BankWorkload.TABLE)) {
      rs.next();
      if (rs.getLong(1) == ACCOUNTS && rs.getLong(2) != total) {
        violations.add("downstream sum " + rs.getLong(2) + ", expected " + total);
      }
    } catch (java.sql.SQLException e) {
      if (!"42P01".equals(e.getSQLState())) {
        violations.add("sampler failed: " + e);
      }
    }
  }
}
