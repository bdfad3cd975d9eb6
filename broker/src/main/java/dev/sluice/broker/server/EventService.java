package dev.sluice.broker.server;

import dev.sluice.broker.NodeIdentity;
import dev.sluice.broker.ServeConfig;
import dev.sluice.broker.control.ControlPlane;
import dev.sluice.broker.control.ControlPlaneVerticle;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.control.EventServiceLimits;
import dev.sluice.broker.data.DataPlaneRouter;
import dev.sluice.broker.data.DataPlaneVerticle;
import dev.sluice.broker.store.EventStore;
import dev.sluice.dispatcher.BrokerAddress;
import dev.sluice.schema.SchemaStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event service of one broker node: a control-plane verticle on its own thread, N data-plane
 * verticles, and the gRPC endpoint, wired to the event store and the schema store.
 *
 * <pre>{@code
 * EventService svc = EventService.start(vertx, EventServiceConfig.defaults(), identity, "127.0.0.1", 8300,
 *     eventStore, schemaStore, registry).await();
 * svc.updateLimits(svc.limits().withScanRateBytesPerSecond(100L << 20));
 * svc.close().await();
 * }</pre>
 */
public final class EventService {

  private static final Logger log = LoggerFactory.getLogger(EventService.class);

  private final Vertx vertx;
  private final ControlPlaneVerticle controlPlane;
  private final DataPlaneRouter dataPlane;
  private final List<String> deployments;
  private final String listenHost;
  private final int port;
  private final WorkerExecutor gcWorker;
  private final AtomicReference<EventServiceLimits> limits;
  private final Topologies topologies;

  private EventService(Vertx vertx, ControlPlaneVerticle controlPlane, DataPlaneRouter dataPlane,
      List<String> deployments, String listenHost, int port, WorkerExecutor gcWorker, AtomicReference<EventServiceLimits> limits,
      Topologies topologies) {
    this.vertx = vertx;
    this.controlPlane = controlPlane;
    this.dataPlane = dataPlane;
    this.deployments = deployments;
    this.listenHost = listenHost;
    this.port = port;
    this.gcWorker = gcWorker;
    this.limits = limits;
    this.topologies = topologies;
  }

  /**
   * Deploys the planes and listens for collectors on {@code host:port} (0 picks a free port; see
   * {@link #port()}). GetTopology announces the identity's gRPC address when it has one (an advertised
   * address), else {@code host:<actual port>}.
   */
  public static Future<EventService> start(Vertx vertx, EventServiceConfig config, NodeIdentity identity, String host,
      int port, EventStore store, SchemaStore schema, MeterRegistry meters) {
    AtomicReference<EventServiceLimits> limits = new AtomicReference<>(config.limits());
    WorkerExecutor gcWorker = vertx.createSharedWorkerExecutor("sluice-gc", 1);
    DataPlaneRouter dataPlane = new DataPlaneRouter(config, store, schema, meters, System::nanoTime);
    ControlPlaneVerticle control = new ControlPlaneVerticle(config, schema, store, dataPlane,
        ts -> gcWorker.executeBlocking(() -> {
          store.gc(ts);
          schema.gc(ts);
          return null;
        }, true).onFailure(e -> log.atWarn().setCause(e).addKeyValue("gcTs", ts).log("GC failed; retried next round")),
        System::nanoTime, meters);
    Topologies topologies = new Topologies(identity, store, schema);
    EventServiceEndpoint endpoint = new EventServiceEndpoint(identity.nodeId(), identity.incarnation(),
        config.maxMessageBytes(), () -> limits.get().connectionQueueBytes(), config.controlQueueMessages(),
        config.resolvedFlushInterval().toMillis(), control, dataPlane, schema, topologies::topology, meters);

    List<String> deployments = new ArrayList<>();
    Future<String> chain = vertx.deployVerticle(control, new DeploymentOptions()
        .setThreadingModel(ThreadingModel.WORKER).setWorkerPoolName("sluice-control").setWorkerPoolSize(1))
        .onSuccess(deployments::add);
    for (DataPlaneVerticle v : dataPlane.instances()) {
      chain = chain.compose(id -> vertx.deployVerticle(v)).onSuccess(deployments::add);
    }
    store.addResolvedListener(ts -> dataPlane.onResolvedAdvanced());
    // N listener instances share one port (0 = any free port), spreading streams over event loops
    AtomicInteger actualPort = new AtomicInteger();
    Future<Integer> bound = chain.compose(id -> vertx.deployVerticle(() -> new Listener(endpoint, host, port, actualPort),
        new DeploymentOptions().setInstances(config.dataPlaneInstances()))).map(id -> {
          deployments.add(id);
          return actualPort.get();
        });
    return bound.map(p -> {
      String announced = identity.grpcAddress() != null ? identity.grpcAddress() : new BrokerAddress(host, p).toString();
      NodeIdentity me = identity.withAddresses(announced, identity.adminAddress());
      topologies.update(me);
      log.atInfo().addKeyValue("nodeId", me.nodeId()).addKeyValue("grpcAddress", me.grpcAddress())
          .addKeyValue("dataPlanes", dataPlane.instances().size()).log("event service listening");
      return new EventService(vertx, control, dataPlane, deployments, host, p, gcWorker, limits, topologies);
    }).onFailure(e -> {
      for (String id : deployments) {
        vertx.undeploy(id);
      }
    });
  }

  /** The gRPC port this node listens on. */
  public int port() {
    return port;
  }

  /** {@code host:port} this node listens on, which a client in this process can use (loopback for a wildcard). */
  public String listenAddress() {
    boolean wildcard = ServeConfig.isWildcard(listenHost);
    return new BrokerAddress(wildcard ? "127.0.0.1" : listenHost, port).toString();
  }

  /** Who this node is, with the addresses announced so far. */
  public NodeIdentity identity() {
    return topologies.identity();
  }

  public ControlPlane controlPlane() {
    return controlPlane;
  }

  public EventServiceLimits limits() {
    return limits.get();
  }

  /** Applies new limits at runtime (validated when the record was built). */
  public void updateLimits(EventServiceLimits newLimits) {
    limits.set(newLimits);
    controlPlane.updateLimits(newLimits);
    dataPlane.updateLimits(newLimits);
    log.atInfo().addKeyValue("limits", newLimits.toJson().encode()).log("event service limits updated");
  }

  /** Sets the admin address announced in the topology (known once the admin API listens). */
  public void announceAdminAddress(String adminAddress) {
    topologies.update(topologies.identity().withAddresses(topologies.identity().grpcAddress(), adminAddress));
  }

  /** Undeploys everything this service deployed, newest first. */
  public Future<Void> close() {
    Future<Void> chain = Future.succeededFuture();
    for (int i = deployments.size() - 1; i >= 0; i--) {
      String id = deployments.get(i);
      chain = chain.compose(v -> vertx.undeploy(id));
    }
    return chain.compose(v -> gcWorker.close());
  }

  /** One HTTP/2 listener serving the endpoint on its own event loop. */
  private static final class Listener extends VerticleBase {
    private final EventServiceEndpoint endpoint;
    private final String host;
    private final int port;
    private final AtomicInteger actualPort;
    private HttpServer server;

    Listener(EventServiceEndpoint endpoint, String host, int port, AtomicInteger actualPort) {
      this.endpoint = endpoint;
      this.host = host;
      this.port = port;
      this.actualPort = actualPort;
    }

    @Override
    public Future<?> start() {
      HttpServerOptions options = new HttpServerOptions().setHost(host).setPort(port)
          // a 1 MiB window: the 64 KiB default caps one stream well below the machine (research/limits-here.md)
          .setInitialSettings(new Http2Settings().setInitialWindowSize(1 << 20))
          .setHttp2ConnectionWindowSize(4 << 20);
      return vertx.createHttpServer(options).requestHandler(endpoint.grpcServer(vertx)).listen()
          .onSuccess(s -> {
            server = s;
            actualPort.set(s.actualPort());
          });
    }

    @Override
    public Future<?> stop() {
      return server == null ? Future.succeededFuture() : server.close();
    }
  }
}
