package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.TableSpan;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.SubscriptionState;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.it.workload.SteadyWorkload;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario 2, reset storm: 200 dispatchers (10 tables, each split into 20 hash spans) on one
 * collector behind the fault proxy; cutting the proxy forces all 200 to reset at once, repeatedly,
 * while the workload writes.
 *
 * <p>Asserted: after each cut all 200 are STREAMING again with a higher epoch (handshake accepted),
 * within 90 s; no reset for a protocol violation; per dispatcher, commit ts strictly increasing and
 * every row inside its span's hash range; per table, the union of its 20 spans' copies equals the
 * upstream table at the end; the broker process is still alive.
 */
class ResetStormIT {

  private static final int TABLES = 10;
  private static final int SPANS_PER_TABLE = 20;

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  /** A span's listener that also checks each row's key hash falls inside the span. */
  private static final class SpanListener extends ReplicaListener {
    final TableSpan span;

    SpanListener(String name, TableSpan span, long startTs) {
      super(name, startTs, "v");
      this.span = span;
    }

    @Override
    void apply(Transaction txn, RowChangeView row) {
      if (!span.contains(row.keyHash())) {
        violation("row with key hash " + row.keyHash() + " outside " + span);
      }
      super.apply(txn, row);
    }
  }

  @Test
  void twoHundredDispatchersResetAtOnceAndLoseNothing() throws Exception {
    int storms = Tier.pick(2, 6);
    try (Rig rig = Rig.start(logs)) {
      SteadyWorkload workload = SteadyWorkload.create(rig.upstream, "storm", TABLES, 1_000);
      long startTs = rig.upstream.currentLsn();
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      ClientConfig config = ClientConfig.of(rig.proxy.address()).withCollectorId("storm")
          .withHeartbeat(Duration.ofMillis(200), 5).withReconnectBackoff(Duration.ofMillis(50), Duration.ofSeconds(1))
          .withDispatcherQueueBytes(4L << 20);
      try (SluiceClient client = SluiceClient.connect(config, meters)) {
        List<SpanListener> listeners = new ArrayList<>();
        for (int t = 0; t < TABLES; t++) {
          String table = workload.table(t);
          for (TableSpan span : TableSpan.wholeTable(rig.tableId(table)).split(SPANS_PER_TABLE)) {
            SpanListener l = new SpanListener(table, span, startTs);
            l.handle = client.subscribe(Subscription.span(span).from(startTs).creditGroup("storm"), l);
            listeners.add(l);
          }
        }
        assertThat(listeners).hasSize(200);
        await().atMost(Duration.ofSeconds(90)).until(() -> listeners.stream()
            .allMatch(l -> l.handle.state() == SubscriptionState.STREAMING));
        workload.paced(50).start(2);
        for (int storm = 1; storm <= storms; storm++) {
          long txns = total(listeners);
          await().atMost(Duration.ofSeconds(60)).until(() -> total(listeners) > txns + 50);
          long[] epochs = listeners.stream().mapToLong(l -> l.handle.stats().epoch()).toArray();
          long t0 = System.nanoTime();
          assertThat(rig.proxy.cutAll()).isPositive();
          await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
            for (int i = 0; i < listeners.size(); i++) {
              var s = listeners.get(i).handle.stats();
              assertThat(s.state()).as("dispatcher %d (%s)", i, listeners.get(i).span).isEqualTo(SubscriptionState.STREAMING);
              assertThat(s.epoch()).as("epoch of dispatcher %d", i).isGreaterThan(epochs[i]);
            }
          });
          System.out.printf("storm %d: 200 dispatchers streaming again after %.0f ms%n", storm,
              (System.nanoTime() - t0) / 1e6);
        }
        workload.stop();
        long end = rig.upstream.currentLsn();
        await().atMost(Duration.ofSeconds(90)).until(() -> listeners.stream().allMatch(l -> l.resolvedTs() >= end));
        Map<String, Map<Long, Long>> copies = new HashMap<>();
        for (SpanListener l : listeners) {
          assertThat(l.violations()).as("delivery contract of %s %s", l.name, l.span).isEmpty();
          Map<Long, Long> copy = copies.computeIfAbsent(l.name, k -> new HashMap<>());
          for (var e : l.rows.entrySet()) {
            assertThat(copy.put(e.getKey(), e.getValue())).as("key %d of %s in two spans", e.getKey(), l.name).isNull();
          }
        }
        for (int t = 0; t < TABLES; t++) {
          assertThat(copies.get(workload.table(t))).as("union of the spans of %s", workload.table(t))
              .isEqualTo(rig.upstreamRows(workload.table(t), "v"));
        }
        assertThat(Resets.unexpected(meters)).as("resets for a protocol violation").isEmpty();
        assertThat(Resets.total(meters)).isGreaterThanOrEqualTo(200.0 * (storms + 1));
        assertThat(rig.broker.isAlive()).isTrue();
      }
    }
  }

  private static long total(List<? extends ReplicaListener> ls) {
    return ls.stream().mapToLong(l -> l.transactions.get()).sum();
  }
}
