package dev.sluice.broker.server;

import dev.sluice.broker.publication.PublishedTables;
import dev.sluice.broker.NodeIdentity;
import dev.sluice.broker.ServeConfig;
import dev.sluice.broker.cluster.Membership;
import dev.sluice.broker.control.ControlPlane;
import dev.sluice.broker.control.ControlPlaneVerticle;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.control.EventServiceLimits;
import dev.sluice.broker.data.DataPlaneRouter;
import dev.sluice.broker.data.DataPlaneVerticle;
import dev.sluice.broker.security.GrpcAccess;
import dev.sluice.broker.security.ServerSecurity;
import dev.sluice.broker.server.admission.GrpcConnections;
import dev.sluice.broker.snapshot.SnapshotService;
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
  private final EventServiceEndpoint endpoint;
  private final SnapshotService snapshots;
  private final PublishedTables published;

  private EventService(Vertx vertx, ControlPlaneVerticle controlPlane, DataPlaneRouter dataPlane,
      List<String> deployments, String listenHost, int port, WorkerExecutor gcWorker, AtomicReference<EventServiceLimits> limits,
      Topologies topologies, EventServiceEndpoint endpoint, SnapshotService snapshots, PublishedTables published) {
    this.endpoint = endpoint;
    this.published = published;
    this.snapshots = snapshots;
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
    return start(vertx, config, identity, host, port, store, schema, meters, ServerSecurity.open());
  }

  /**
   * As {@link #start(Vertx, EventServiceConfig, NodeIdentity, String, int, EventStore, SchemaStore, MeterRegistry)},
   * serving TLS and admitting calls as {@code security} says.
   */
  public static Future<EventService> start(Vertx vertx, EventServiceConfig config, NodeIdentity identity, String host,
      int port, EventStore store, SchemaStore schema, MeterRegistry meters, ServerSecurity security) {
    return start(vertx, config, identity, host, port, store, schema, Membership.standalone(identity.nodeId()), null,
        meters, security);
  }

  /**
   * As above, with snapshot readers: dispatchers may ask for snapshots of their spans (without them, such
   * a request is refused with {@code UNSUPPORTED_FEATURE}). The service attaches the readers to its data
   * plane; closing the service does not close them.
   */
  public static Future<EventService> start(Vertx vertx, EventServiceConfig config, NodeIdentity identity, String host,
      int port, EventStore store, SchemaStore schema, SnapshotService snapshots, MeterRegistry meters,
      ServerSecurity security) {
    return start(vertx, config, identity, host, port, store, schema, Membership.standalone(identity.nodeId()),
        snapshots, meters, security);
  }

  /** As above, answering GetTopology from {@code membership} (a node of a cluster), without snapshot readers. */
  public static Future<EventService> start(Vertx vertx, EventServiceConfig config, NodeIdentity identity, String host,
      int port, EventStore store, SchemaStore schema, Membership membership, MeterRegistry meters,
      ServerSecurity security) {
    return start(vertx, config, identity, host, port, store, schema, membership, null, meters, security);
  }

  /** As above, answering GetTopology from {@code membership} and serving snapshots with {@code snapshots} (or none). */
  public static Future<EventService> start(Vertx vertx, EventServiceConfig config, NodeIdentity identity, String host,
      int port, EventStore store, SchemaStore schema, Membership membership, SnapshotService snapshots,
      MeterRegistry meters,
      ServerSecurity security) {
    return start(vertx, config, identity, host, port, store, schema, membership, snapshots, PublishedTables.none(),
        meters, security);
  }

  /**
   * As above, refusing REGISTER and RESET of a table the upstream publication leaves out, and flagging it in
   * ListTables, as {@code published} last read it (capture writes it).
   */
  public static Future<EventService> start(Vertx vertx, EventServiceConfig config, NodeIdentity identity, String host,
      int port, EventStore store, SchemaStore schema, Membership membership, SnapshotService snapshots,
      PublishedTables published, MeterRegistry meters, ServerSecurity security) {
    AtomicReference<EventServiceLimits> limits = new AtomicReference<>(config.limits());
    WorkerExecutor gcWorker = vertx.createSharedWorkerExecutor("sluice-gc", 1);
    DataPlaneRouter dataPlane = new DataPlaneRouter(config, store, schema, snapshots, meters, System::nanoTime);
    if (snapshots != null) {
      snapshots.attach(dataPlane);
    }
    ControlPlaneVerticle control = new ControlPlaneVerticle(config, schema, store, dataPlane, snapshots != null,
        ts -> gcWorker.executeBlocking(() -> {
          store.gc(ts);
          schema.gc(ts);
          return null;
        }, true).onFailure(e -> log.atWarn().setCause(e).addKeyValue("gcTs", ts).log("GC failed; retried next round")),
        System::nanoTime, meters);
    Topologies topologies = new Topologies(identity, store, schema, membership);
    control.whereElse(topologies::coveringMembers);
    control.publication(published);
    EventServiceEndpoint endpoint = new EventServiceEndpoint(identity.nodeId(), identity.incarnation(),
        config.maxMessageBytes(), () -> limits.get().connectionQueueBytes(), config.controlQueueMessages(),
        config.resolvedFlushInterval().toMillis(), config.connections().helloTimeout().toMillis(), control, dataPlane,
        schema, topologies::topology, topologies::coveringMembers, meters, new GrpcAccess(security.guard()), published);

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
    GrpcConnections admission = new GrpcConnections(config.connections(), meters, endpoint.warnings(), System::nanoTime);
    Future<Integer> bound = chain.compose(id -> vertx.deployVerticle(() -> new Listener(endpoint, admission, host, port,
        actualPort, security),
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
      return new EventService(vertx, control, dataPlane, deployments, host, p, gcWorker, limits, topologies, endpoint,
          snapshots, published);
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

  /** The snapshot readers, or null when this service has none. */
  public SnapshotService snapshots() {
    return snapshots;
  }

  /** What the upstream publication leaves out, as capture last read it. */
  public PublishedTables published() {
    return published;
  }

  public EventServiceLimits limits() {
    return limits.get();
  }

  /** Applies new limits at runtime (validated when the record was built). */
  public void updateLimits(EventServiceLimits newLimits) {
    limits.set(newLimits);
    controlPlane.updateLimits(newLimits);
    dataPlane.updateLimits(newLimits);
    if (snapshots != null) {
      snapshots.setRates(newLimits.snapshotRowsPerSecond(), newLimits.snapshotBytesPerSecond());
    }
    log.atInfo().addKeyValue("limits", newLimits.toJson().encode()).log("event service limits updated");
  }

  /** The cluster as GetTopology shows it. */
  public dev.sluice.api.v1.Topology topology() {
    return topologies.topology();
  }

  /** Every member with this node's live values ({@code /api/v1/members}). */
  public List<dev.sluice.broker.cluster.MemberInfo> members() {
    return topologies.members();
  }

  /** Sends every collector to another member and refuses new streams ({@link EventServiceEndpoint#drain}). */
  public void drain(String why) {
    endpoint.drain(why);
  }

  /** Collector streams open on this node. */
  public int openStreams() {
    return endpoint.openStreams();
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

  /** One HTTP/2 listener serving the endpoint on its own event loop, behind the port's admission. */
  private static final class Listener extends VerticleBase {
    private final EventServiceEndpoint endpoint;
    private final GrpcConnections admission;
    private final String host;
    private final int port;
    private final AtomicInteger actualPort;
    private final ServerSecurity security;
    private HttpServer server;
    private GrpcConnections.Listener connections;

    Listener(EventServiceEndpoint endpoint, GrpcConnections admission, String host, int port, AtomicInteger actualPort,
        ServerSecurity security) {
      this.endpoint = endpoint;
      this.admission = admission;
      this.security = security;
      this.host = host;
      this.port = port;
      this.actualPort = actualPort;
    }

    @Override
    public Future<?> start() {
      HttpServerOptions options = admission.configure(new HttpServerOptions().setHost(host).setPort(port)
          // a 1 MiB window: the 64 KiB default caps one stream well below the machine (research/limits-here.md)
          .setInitialSettings(new Http2Settings().setInitialWindowSize(1 << 20))
          .setHttp2ConnectionWindowSize(4 << 20));
      connections = admission.listener(vertx);
      return vertx.createHttpServer(security.secure(options)).connectionHandler(connections::onConnection)
          .requestHandler(connections.counting(endpoint.requestHandler(vertx))).listen()
          .onSuccess(s -> {
            server = s;
            actualPort.set(s.actualPort());
            security.serving(s);
          });
    }

    @Override
    public Future<?> stop() {
      if (connections != null) {
        connections.stop();
      }
      if (server == null) {
        return Future.succeededFuture();
      }
      security.closing(server);
      return server.close();
    }
  }
}
