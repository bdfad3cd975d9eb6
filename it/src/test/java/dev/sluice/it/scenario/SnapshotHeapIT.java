package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.error.SluiceException;
import dev.sluice.api.v1.RowOp;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.SnapshotOutcome;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.it.BrokerProcess;
import dev.sluice.it.PostgresServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue #17's memory bound: a table far larger than the broker's heap (quick tier 400,000 rows, full tier
 * 10,000,000) is snapshotted, unthrottled, by one library subscription. The broker's live heap (after a full GC,
 * read with jcmd) is sampled at a quarter, half and three quarters of the rows; its growth over the baseline
 * before the snapshot stays below the capture quota ({@code capture.memoryCapBytes}, 64 MiB): the chunks read
 * and not delivered are bounded by {@code eventService.snapshot.memoryBytes} (16 MiB here) and the stream by
 * its credit, whatever the table's size. The subscriber gets every row once (count and sum of keys).
 */
class SnapshotHeapIT {

  private static final long CAPTURE_QUOTA = 64L << 20;   // CaptureConfig.DEFAULT_MEMORY_CAP_BYTES

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  @Test
  void theBrokersHeapStaysUnderItsQuotaWhileALargeTableIsSnapshotted() throws Exception {
    long rows = Tier.pick(400_000, 10_000_000);
    try (PostgresServer up = PostgresServer.upstream()) {
      up.exec("CREATE TABLE public.snap_big (id bigint PRIMARY KEY, n bigint NOT NULL, pad text NOT NULL)",
          "INSERT INTO public.snap_big SELECT i, i * 7, repeat(md5(i::text), 3) FROM generate_series(1, " + rows + ") i",
          "ANALYZE public.snap_big");
      BrokerProcess.Options options = BrokerProcess.options(logs.data("broker"), up).withExtraArgs(List.of(
          "--set", "eventService.snapshot.memoryBytes=16MiB",
          "--set", "capture.memoryCapBytes=" + CAPTURE_QUOTA));
      try (BrokerProcess broker = BrokerProcess.start("broker", options, logs.dir());
           SluiceClient client = SluiceClient.connect(ClientConfig.of(broker.grpcAddress()).withCollectorId("snap-heap"))) {
        long baseline = broker.heapUsedAfterGc();
        CountingListener l = new CountingListener();
        l.handle = client.subscribe(Subscription.table("public.snap_big").from(up.currentLsn()).withSnapshot(), l);
        List<Long> samples = new ArrayList<>();
        for (int q = 1; q <= 3; q++) {
          long at = rows * q / 4;
          await("READ rows up to " + at).atMost(Duration.ofMinutes(Tier.pick(2, 20)))
              .failFast(() -> assertThat(l.error.get()).as("subscription error").isNull())
              .until(() -> l.reads.get() >= at || l.outcome.get() != null);
          samples.add(broker.heapUsedAfterGc());
        }
        await("snapshot complete").atMost(Duration.ofMinutes(Tier.pick(2, 20)))
            .failFast(() -> assertThat(l.error.get()).as("subscription error").isNull())
            .until(() -> l.outcome.get() != null);
        long peak = samples.stream().mapToLong(Long::longValue).max().orElseThrow();
        System.out.printf("snapshot heap: %,d rows, broker heap %,d -> samples %s bytes (growth %,d)%n", rows, baseline,
            samples, peak - baseline);

        assertThat(l.outcome.get().status()).as("outcome: %s", l.outcome.get().reason())
            .isEqualTo(SnapshotOutcome.Status.COMPLETE);
        assertThat(l.reads.get()).as("READ rows").isEqualTo(rows);
        assertThat(l.keySum.get()).as("sum of the keys read").isEqualTo(rows * (rows + 1) / 2);
        assertThat(peak - baseline).as("broker heap growth during the snapshot (bytes; samples %s)", samples)
            .isLessThan(CAPTURE_QUOTA);
      }
    }
  }

  /** Counts the READ rows and sums their keys, acknowledging as it goes. */
  private static final class CountingListener implements ChangeListener {
    final AtomicLong reads = new AtomicLong();
    final AtomicLong keySum = new AtomicLong();
    final AtomicReference<SnapshotOutcome> outcome = new AtomicReference<>();
    final AtomicReference<SluiceException> error = new AtomicReference<>();
    volatile SubscriptionHandle handle;

    @Override
    public void onTransaction(Transaction txn) {
      for (RowChangeView r : txn.rows()) {
        if (r.op() == RowOp.ROW_OP_READ) {
          reads.incrementAndGet();
          keySum.addAndGet(r.after().getLong("id"));
        }
      }
      SubscriptionHandle h = handle;
      if (h != null) {
        h.acknowledge(txn.checkpoint());
      }
    }

    @Override
    public void onResolved(long ts) {
      SubscriptionHandle h = handle;
      if (h != null) {
        h.acknowledge(ts);
      }
    }

    @Override
    public void onSnapshotComplete(SnapshotOutcome o) {
      outcome.set(o);
    }

    @Override
    public void onError(SluiceException e) {
      error.set(e);
    }
  }
}
