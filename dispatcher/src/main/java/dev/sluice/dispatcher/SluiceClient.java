package dev.sluice.dispatcher;

import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.TableList;
import dev.sluice.api.v1.Topology;
import dev.sluice.dispatcher.collector.Collector;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

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
   * {@link ChangeListener#onError}. To acknowledge from the listener, use
   * {@link #subscribe(Subscription, Function)}, which hands it the handle first.
   */
  public SubscriptionHandle subscribe(Subscription subscription, ChangeListener listener) {
    Objects.requireNonNull(listener, "listener");
    return collector.subscribe(subscription, handle -> listener);
  }

  /**
   * Subscribes the listener {@code listenerFactory} makes for the subscription's handle: the factory runs once,
   * before this method returns and before any listener call, so the listener can acknowledge with the handle
   * it was given (safely published to the listener's thread).
   *
   * <pre>{@code
   * client.subscribe(Subscription.table("public.orders").fromNow(), handle -> new ChangeListener() {
   *   public void onTransaction(Transaction txn) { apply(txn); handle.acknowledge(txn.checkpoint()); }
   *   public void onError(SluiceException e) { log.error("subscription failed", e); }
   * });
   * }</pre>
   */
  public SubscriptionHandle subscribe(Subscription subscription,
      Function<SubscriptionHandle, ChangeListener> listenerFactory) {
    Objects.requireNonNull(listenerFactory, "listenerFactory");
    return collector.subscribe(subscription, listenerFactory);
  }

  /**
   * The table info of {@code table} ("schema.table") in force at {@code atTs} (0 = latest). Like
   * {@link #listTables} and {@link #topology}, it fails with a {@link dev.sluice.api.error.SluiceException}:
   * {@code UNKNOWN_TABLE}, {@code PERMISSION_DENIED}, ... for the broker's answer (its reason in the message),
   * {@code SCHEMA_UNAVAILABLE} when the broker does not know that ts yet (retry shortly),
   * {@code BROKER_UNREACHABLE} when no answer came.
   */
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
