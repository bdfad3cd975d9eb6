package dev.sluice.it.bench;

import dev.sluice.api.error.SluiceException;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.Transaction;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * A live dispatcher in a process of its own: the application next to the one loading a snapshot, whose
 * latency says whether the broker keeps live traffic ahead of the snapshot. It subscribes to one table from
 * a position, prints {@code STREAMING} once it streams, and answers its stdin: {@code RESET} forgets the
 * latencies so far, {@code REPORT} prints {@code P99 <ms> <count>} (upstream commit time to listener, over
 * the transactions since the last reset); stdin closed ends it.
 *
 * <pre>{@code
 * try (ChildJvm probe = ChildJvm.start("live", LiveProbe.class, List.of("-Xmx256m"),
 *     List.of(broker.grpcAddress(), "public.e2e_live", Long.toString(lsn)), logs)) {
 *   probe.awaitLine("STREAMING", Duration.ofSeconds(60));
 * }
 * }</pre>
 */
public final class LiveProbe {

  private static final long SLOW_MICROS = 50_000;

  private LiveProbe() {}

  /** Arguments: broker address, table, start position. */
  public static void main(String[] args) throws Exception {
    ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
    try (SluiceClient client = SluiceClient.connect(ClientConfig.of(args[0]).withCollectorId("live-probe"))) {
      SubscriptionHandle[] handle = new SubscriptionHandle[1];
      handle[0] = client.subscribe(Subscription.table(args[1]).from(Long.parseLong(args[2])), new ChangeListener() {
        @Override
        public void onTransaction(Transaction txn) {
          Instant now = Instant.now();
          long micros = now.getEpochSecond() * 1_000_000 + now.getNano() / 1000 - txn.commitTimeMicros();
          latencies.add(micros);
          if (micros > SLOW_MICROS) {   // to its log, for finding what held it
            System.out.println("SLOW " + Instant.ofEpochMilli(txn.commitTimeMicros() / 1000) + " " + micros / 1000 + " ms");
          }
          if (handle[0] != null) {
            handle[0].acknowledge(txn.checkpoint());
          }
        }

        @Override
        public void onError(SluiceException error) {
          System.out.println("FAILED " + error);
        }
      });
      handle[0].streaming().toCompletableFuture().get(60, TimeUnit.SECONDS);
      System.out.println("STREAMING");
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null) {
        switch (line.trim()) {
          case "RESET" -> {
            latencies.clear();
            System.out.println("RESET done");
          }
          case "REPORT" -> {
            long[] nanos = latencies.stream().mapToLong(us -> us * 1000).toArray();
            System.out.printf("P99 %.3f %d%n", nanos.length == 0 ? Double.NaN : Stats.percentileNanosToMs(nanos, 99),
                nanos.length);
          }
          default -> System.out.println("UNKNOWN " + line);
        }
      }
    }
  }
}
