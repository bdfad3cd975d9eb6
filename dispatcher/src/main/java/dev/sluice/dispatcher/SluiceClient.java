package dev.sluice.dispatcher;

import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.TableList;
import dev.sluice.api.v1.Topology;
import dev.sluice.dispatcher.collector.Collector;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The entry point of the dispatcher library: connects to a Sluice broker (failing over between
 * members), and turns subscriptions into whole transactions delivered to your listener, with
 * checkpoints you acknowledge. See {@code dispatcher/README.md} for a walk-through.
 *
 * <pre>{@code
 * try (SluiceClient client = SluiceClient.connect(ClientConfig.of("127.0.0.1:8300"))) {
 *   SubscriptionHandle h = client.subscribe(Subscription.table("public.orders").from(0), listener);
 *   ...
 * }
 * }</pre>
 */
public final class SluiceClient implements AutoCloseable {

  private final Vertx vertx;
  private final boolean ownsVertx;
  private final Collector collector;

  private SluiceClient(Vertx vertx, boolean ownsVertx, ClientConfig config, MeterRegistry registry) {
    this.vertx = vertx;
    this.ownsVertx = ownsVertx;
    this.collector = new Collector(vertx, config, registry);
    collector.start();
  }

  /** A client on its own Vert.x instance, with meters in a private registry. Returns at once; it connects in the background. */
  public static SluiceClient connect(ClientConfig config) {
    return new SluiceClient(Vertx.vertx(), true, config, new SimpleMeterRegistry());
  }

  /** A client on its own Vert.x instance, with meters in {@code registry}. */
  public static SluiceClient connect(ClientConfig config, MeterRegistry registry) {
    return new SluiceClient(Vertx.vertx(), true, config, registry);
  }

  /** A client on the caller's Vert.x instance (not closed by {@link #close()}). */
  public static SluiceClient connect(Vertx vertx, ClientConfig config, MeterRegistry registry) {
    return new SluiceClient(vertx, false, config, registry);
  }

  /**
   * Subscribes {@code listener} to {@code subscription}. Returns at once; registration, name resolution
   * and failover happen in the background, and a failure that retrying cannot fix reaches
   * {@link ChangeListener#onError}.
   */
  public SubscriptionHandle subscribe(Subscription subscription, ChangeListener listener) {
    return collector.subscribe(subscription, listener);
  }

  /** The table info of {@code table} ("schema.table") in force at {@code atTs} (0 = latest). */
  public CompletionStage<TableInfo> tableSchema(String table, long atTs) {
    return collector.tableSchema(table, atTs);
  }

  /** Every table alive at {@code atTs} (0 = the broker's resolved ts), with its creation ts. */
  public CompletionStage<TableList> listTables(long atTs) {
    return collector.listTables(atTs);
  }

  /** The cluster as the connected broker sees it. */
  public CompletionStage<Topology> topology() {
    return collector.topology();
  }

  /** "brokerId@host:port" of the broker the stream is welcomed by, or null while disconnected. */
  public String connectedBroker() {
    return collector.connectedBroker();
  }

  /** The brokers this client may fail over to: the configured ones and those learned from GetTopology. */
  public List<BrokerAddress> knownBrokers() {
    return collector.knownMembers();
  }

  /** Removes every subscription (REMOVE), closes the stream, and the Vert.x instance when the client owns it. */
  @Override
  public void close() {
    CompletableFuture<Void> done = collector.close().toCompletableFuture();
    try {
      done.get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // closing anyway; nothing left to report to
    }
    if (ownsVertx) {
      vertx.close();
    }
  }
}
