package example;

import dev.sluice.api.error.SluiceException;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.StateChange;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.Transaction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Prints every row change of a table, keeps its checkpoint in a file and resumes from it after a restart.
 * Usage: OrdersToConsole [broker host:port] [schema.table] [checkpoint file] [stop after n rows]
 */
public final class OrdersToConsole {

  public static void main(String[] args) throws Exception {
    String broker = args.length > 0 ? args[0] : "127.0.0.1:8300";        // make run's gRPC port
    String table = args.length > 1 ? args[1] : "demo.orders";            // make run's demo workload
    Path checkpointFile = Path.of(args.length > 2 ? args[2] : "orders.checkpoint");
    int stopAfterRows = args.length > 3 ? Integer.parseInt(args[3]) : Integer.MAX_VALUE;

    // resume after the saved checkpoint (a cursor inside a large transaction included), else start now
    Subscription subscription = Files.exists(checkpointFile)
        ? Subscription.table(table).from(Checkpoint.parse(Files.readString(checkpointFile)))
        : Subscription.table(table).fromNow();
    CompletableFuture<Void> done = new CompletableFuture<>();
    AtomicInteger rows = new AtomicInteger();

    try (SluiceClient client = SluiceClient.connect(ClientConfig.of(broker).withCollectorId("orders-to-console"));
         SubscriptionHandle handle = client.subscribe(subscription, h -> new ChangeListener() {
           @Override public void onTransaction(Transaction txn) {
             for (RowChangeView row : txn.rows()) {
               var image = row.after().isPresent() ? row.after() : row.before();   // a DELETE has only a before
               System.out.println(txn.tableName() + " " + row.op() + " " + image);
               rows.incrementAndGet();
             }
             save(checkpointFile, txn.checkpoint());   // make it durable first...
             h.acknowledge(txn.checkpoint());          // ...then acknowledge
             if (rows.get() >= stopAfterRows) {
               done.complete(null);
             }
           }
           @Override public void onResolved(long ts) {   // everything up to ts was delivered
             save(checkpointFile, Checkpoint.at(ts));
             h.acknowledge(ts);
           }
           @Override public void onStateChange(StateChange change) {   // CONNECTING, STREAMING, RETRYING (why), FAILED
             System.err.println("subscription " + change);
           }
           @Override public void onError(SluiceException e) {   // failed for good: a refusal, or trouble past retryTimeout
             done.completeExceptionally(e);
           }
         })) {
      Runtime.getRuntime().addShutdownHook(new Thread(() -> done.complete(null)));   // Ctrl-C: close cleanly
      done.join();   // rethrows what onError got
    }
  }

  /** Writes the checkpoint atomically: a crash leaves the old one or the new one, never half a file. */
  static void save(Path file, Checkpoint checkpoint) {
    try {
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, checkpoint.toString());
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot save the checkpoint to " + file, e);
    }
  }
}
