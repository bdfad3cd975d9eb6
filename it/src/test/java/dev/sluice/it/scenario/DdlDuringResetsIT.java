package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.it.ChangefeedSetup;
import dev.sluice.it.ConsistencyChecker;
import dev.sluice.it.LocalChangefeed;
import dev.sluice.it.workload.AppendWorkload;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario 5, DDL during resets: {@code ALTER TABLE ... ADD COLUMN} and {@code CREATE TABLE} run while
 * inserts continue and the fault proxy cuts every stream around each DDL, so dispatchers reset across
 * schema changes.
 *
 * <p>Asserted for the observed table: each ALTER arrives exactly once, as a DDL event whose commit ts
 * lies between the upstream WAL positions read just before and just after that ALTER; DDL commit ts
 * strictly increase; every transaction before the k-th DDL carries the table info of the (k-1)-th and
 * rows of that width, every transaction after it the new one (PostgreSQL writes each row with the
 * descriptor in force at its commit, so the row width is the ground truth). The dispatcher did reset
 * (its epoch grew). The changefeed applies the ALTERs and the new tables downstream: every table
 * (columns and rows) equals upstream at a resolved ts past the workload.
 */
class DdlDuringResetsIT {

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  /** One ALTER as the test ran it: upstream WAL positions around it. */
  private record Alter(int column, long lsnBefore, long lsnAfter) {}

  /** Records each transaction's row widths and the table info it was delivered with. */
  private static final class SchemaListener extends ReplicaListener {
    final List<long[]> txns = Collections.synchronizedList(new ArrayList<>());   // {commitTs, infoColumns, rowWidth}

    SchemaListener(String name, long startTs) {
      super(name, startTs, "v");
    }

    @Override
    void apply(Transaction txn, RowChangeView row) {
      txns.add(new long[] {txn.commitTs(), txn.tableInfo().getColumnsCount(), row.after().size()});
      super.apply(txn, row);
    }
  }

  @Test
  void eachDispatcherSeesEachDdlExactlyAtItsCommitTs() throws Exception {
    int alters = Tier.pick(4, 12);
    try (Rig rig = Rig.start(logs)) {
      rig.upstream.exec("CREATE TABLE public.ddl_t (id bigint PRIMARY KEY, v bigint NOT NULL)");
      long startTs = rig.upstream.currentLsn();
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      ChangefeedSetup setup = ChangefeedSetup.of(rig.proxy.address(), rig.downstream.jdbcUrl(), "cf-ddl", "public.ddl_*");
      AppendWorkload writer = AppendWorkload.into(rig.upstream, "public.ddl_t");
      try (writer; LocalChangefeed cf = LocalChangefeed.start(setup);
           SluiceClient observer = SluiceClient.connect(setup.clientConfig().withCollectorId("observer"), meters)) {
        SchemaListener l = new SchemaListener("public.ddl_t", startTs);
        l.handle = observer.subscribe(Subscription.table("public.ddl_t").from(startTs), l);
        l.handle.streaming().toCompletableFuture().get(60, TimeUnit.SECONDS);
        writer.paced(200).start(1);
        List<Alter> done = new ArrayList<>();
        for (int k = 1; k <= alters; k++) {
          long rowsBefore = writer.committed();
          await().atMost(Duration.ofSeconds(30)).until(() -> writer.committed() > rowsBefore + 30);
          long epoch = l.handle.stats().epoch();
          rig.proxy.cutAll();                            // the dispatcher resets ...
          long before = rig.upstream.currentLsn();
          rig.upstream.exec("ALTER TABLE public.ddl_t ADD COLUMN c" + k + " bigint NOT NULL DEFAULT " + k);
          long after = rig.upstream.currentLsn();
          done.add(new Alter(k, before, after));
          rig.upstream.exec("CREATE TABLE public.ddl_new_" + k + " (id bigint PRIMARY KEY, v bigint NOT NULL)",
              "INSERT INTO public.ddl_new_" + k + " SELECT g, g * " + k + " FROM generate_series(1, 50) g");
          rig.proxy.cutAll();                            // ... and again right after the DDL
          await().atMost(Duration.ofSeconds(60)).until(() -> l.handle.stats().epoch() > epoch);
        }
        writer.stop();
        long end = rig.upstream.currentLsn();
        await().atMost(Duration.ofSeconds(60)).until(() -> l.resolvedTs() >= end);

        assertThat(l.violations()).as("delivery contract").isEmpty();
        List<DdlChange> ddls = List.copyOf(l.ddls);
        assertThat(ddls).as("one DDL event per ALTER").hasSize(alters);
        for (int k = 0; k < alters; k++) {
          DdlChange d = ddls.get(k);
          Alter a = done.get(k);
          assertThat(d.commitTs()).as("commit ts of ALTER %d", a.column())
              .isGreaterThan(a.lsnBefore()).isLessThanOrEqualTo(a.lsnAfter());
          assertThat(d.tableInfoAfter().getColumnsCount()).as("columns after ALTER %d", a.column()).isEqualTo(2 + a.column());
          assertThat(d.tableInfoBefore().getColumnsCount()).isEqualTo(1 + a.column());
        }
        long shapeChecked = 0;
        for (long[] t : List.copyOf(l.txns)) {
          int schemaVersion = 0;
          while (schemaVersion < ddls.size() && ddls.get(schemaVersion).commitTs() < t[0]) {
            schemaVersion++;
          }
          assertThat(t[1]).as("table info width of the transaction at %d", t[0]).isEqualTo(2 + schemaVersion);
          assertThat(t[2]).as("row width of the transaction at %d", t[0]).isEqualTo(2 + schemaVersion);
          shapeChecked++;
        }
        assertThat(shapeChecked).isGreaterThan(30L * alters);
        assertThat(l.rows).isEqualTo(rig.upstreamRows("public.ddl_t", "v"));
        assertThat(Resets.unexpected(meters)).as("resets for a protocol violation").isEmpty();

        List<String> tables = new ArrayList<>(List.of("public.ddl_t"));
        for (int k = 1; k <= alters; k++) {
          tables.add("public.ddl_new_" + k);
        }
        // per table: the changefeed checkpoint can pass a table it has not discovered yet (CheckpointAheadOfNewTableIT)
        cf.awaitApplied(tables, end, Duration.ofMinutes(2));
        for (String table : tables) {
          var c = ConsistencyChecker.compare(rig.upstream, rig.downstream, table);
          assertThat(c.differences()).as("downstream %s", table).isEmpty();
          assertThat(c.upstreamRows()).isPositive();
        }
        assertThat(Resets.unexpected(cf.meters())).as("resets for a protocol violation (changefeed)").isEmpty();
      }
    }
  }
}
