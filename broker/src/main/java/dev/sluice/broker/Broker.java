package dev.sluice.broker;

import dev.sluice.broker.admin.AdminApiVerticle;
import dev.sluice.broker.admin.AdminResources;
import dev.sluice.broker.capture.CaptureStatus;
import dev.sluice.broker.capture.PgChunkSource;
import dev.sluice.broker.capture.PgLogicalCapture;
import dev.sluice.broker.admin.NodeControl;
import dev.sluice.broker.changefeed.ChangefeedConfig;
import dev.sluice.broker.changefeed.ChangefeedHosting;
import dev.sluice.broker.changefeed.ChangefeedStore;
import dev.sluice.broker.changefeed.ChangefeedSupervisor;
import dev.sluice.broker.changefeed.CommitClock;
import dev.sluice.broker.changefeed.LocalHostBroker;
import dev.sluice.broker.changefeed.StandardSinkConnector;
import dev.sluice.broker.config.ConfigKeys;
import dev.sluice.broker.config.LiveConfig;
import dev.sluice.broker.config.ResolvedSettings;
import dev.sluice.broker.config.Setting;
import dev.sluice.broker.startup.DataDirCheck;
import dev.sluice.broker.startup.PortCheck;
import dev.sluice.broker.security.AccessGuard;
import dev.sluice.broker.security.AuditLog;
import dev.sluice.broker.security.Authenticator;
import dev.sluice.broker.security.BindPolicy;
import dev.sluice.broker.security.CertificateReloader;
import dev.sluice.broker.security.ChangefeedCredentials;
import dev.sluice.broker.security.SecurityConfig;
import dev.sluice.broker.security.ServerSecurity;
import dev.sluice.broker.cluster.ClusterNode;
import dev.sluice.broker.cluster.MemberInfo;
import dev.sluice.broker.cluster.MemberPublisher;
import dev.sluice.broker.cluster.MemberState;
import dev.sluice.broker.server.EventService;
import dev.sluice.broker.data.ScanThreadPriority;
import dev.sluice.broker.publication.PublishedTables;
import dev.sluice.broker.snapshot.SnapshotService;
import dev.sluice.broker.snapshot.SnapshotWatermarks;
import io.vertx.core.json.JsonObject;
import dev.sluice.broker.store.EventStore;
import dev.sluice.broker.store.RocksEventStore;
import dev.sluice.broker.upstream.DemoWorkload;
import dev.sluice.broker.upstream.EmbeddedUpstream;
import dev.sluice.broker.upstream.UpstreamConfig;
import dev.sluice.dispatcher.BrokerAddress;
import dev.sluice.dispatcher.ClientSecurity;
import dev.sluice.schema.RocksSchemaStore;
import dev.sluice.schema.SchemaStore;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One broker node: owns the event store, the schema store, its part of the cluster (standalone without
 * {@code --cluster-join}), the upstream (embedded or external), the capture, the demo workload, the
 * gRPC event service, the hosted changefeeds and the admin HTTP API, starts them in that order and
 * closes them in reverse. It publishes its member info (STARTING until its capture resolved a ts and
 * every service listens, then SERVING, DRAINING once drained) every publish interval. Before it creates anything it checks the data
 * directory and the ports it will listen on, so a taken port or an unusable directory is refused by
 * name and no replication slot is left behind.
 *
 * <pre>{@code
 * try (Broker broker = new Broker(BrokerConfig.embedded("node-1", Path.of("data")))) {
 *   broker.start();
 *   CaptureStatus s = broker.captureStatus();
 * }
 * }</pre>
 */
public final class Broker implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Broker.class);

  private final BrokerConfig config;
  private final ResolvedSettings settings;
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Deque<AutoCloseable> opened = new ArrayDeque<>();
  private RocksEventStore events;
  private RocksSchemaStore schemas;
  private PgLogicalCapture capture;
  private final SnapshotWatermarks watermarks = new SnapshotWatermarks();
  /** What the publication leaves out: capture writes it, the event service and the admin API read it. */
  private final PublishedTables published = new PublishedTables(registry);
  private SnapshotService snapshots;
  private UpstreamConfig upstream;
  private DemoWorkload workload;
  private Vertx vertx;
  private EventService eventService;
  private ChangefeedSupervisor changefeeds;
  private AdminApiVerticle admin;
  private ChangefeedHosting hosting;
  private ClusterNode cluster;
  private NodeIdentity identity;
  private MemberPublisher publisher;
  private volatile boolean serving;
  private volatile boolean draining;
  private LiveConfig live;
  private ServerSecurity security;
  private ClientSecurity changefeedClients;

  public Broker(BrokerConfig config) {
    this(config, ResolvedSettings.of(config));
  }

  /**
   * A broker hosting changefeeds with {@code changefeedConfig} (retry policy, delete wait, file sink directory: a
   * relative one is under the data directory).
   */
  public Broker(BrokerConfig config, ChangefeedConfig changefeedConfig) {
    this(config.withChangefeeds(changefeedConfig));
  }

  /**
   * A broker whose {@code GET /api/v1/config} names where each setting came from ({@code settings}, as
   * {@code sluice server} resolved them from the file, the environment and the flags).
   */
  public Broker(BrokerConfig config, ResolvedSettings settings) {
    this.config = config;
    this.settings = settings;
  }

  /**
   * Opens the stores, starts the upstream when embedded, then capture and the demo workload.
   *
   * @throws dev.sluice.api.error.FatalException when the upstream cannot be captured as configured
   *     (everything opened so far is closed again)
   */
  public void start() {
    try {
      // secure by default: refuse an open node beyond loopback before touching anything
      BindPolicy.check(config.serve().bindHost(), config.security());
      if (config.cluster().clustered()) {
        BindPolicy.checkCluster(config.cluster().bindHost(), settings.get(ConfigKeys.CLUSTER_NETWORK_PRIVATE));
      }
      checkBeforeStart();
      live = LiveConfig.start(config, settings, config.configDir(), registry);
      BrokerConfig effective = live.effective();
      events = opened(RocksEventStore.open(effective.eventStore(), registry));
      schemas = opened(RocksSchemaStore.open(effective.schemaStore(), registry));
      ServeConfig serveConfig = effective.serve();
      // an advertised gRPC address is announced from the first GetTopology on; else the listener's own
      identity = NodeIdentity.fresh(config.nodeId(),
          serveConfig.advertisedGrpc() == null ? null : serveConfig.advertisedGrpc().toString(), null);
      cluster = opened(ClusterNode.start(config.cluster(), config.nodeId(), config.clusterDir(), registry));
      publisher = opened(MemberPublisher.start(cluster.membership(), this::memberInfo,
          config.cluster().publishInterval()));
      upstream = config.upstream().isEmbedded() ? startEmbedded() : config.upstream();
      capture = new PgLogicalCapture(upstream, config.capture(), events, schemas, watermarks, published, registry);
      opened(capture);
      capture.start();
      if (config.demoWorkload()) {
        workload = opened(DemoWorkload.start(upstream, config.demo()));
      }
      startEventService(effective.serve());
      startAdmin(effective);
      serving = true;
      publisher.publishNow();
      log.atInfo().addKeyValue("nodeId", config.nodeId()).addKeyValue("upstream", upstream.displayUrl())
          .addKeyValue("grpcAddress", eventService.identity().grpcAddress())
          .addKeyValue("grpcListen", eventService.listenAddress())
          .addKeyValue("adminUrl", adminUrl()).addKeyValue("tls", security.tls() != null)
          .addKeyValue("authentication", security.guard().enabled())
          .addKeyValue("slot", config.capture().slotName()).addKeyValue("mode", capture.status().mode())
          .addKeyValue("state", capture.status().state())
          .addKeyValue("cluster", config.cluster().clustered() ? config.cluster().announced().toString() : "standalone")
          .log("broker started");
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** The data directory is usable and every port this node listens on is free; nothing is created before. */
  private void checkBeforeStart() {
    List<String> subdirs = new java.util.ArrayList<>(List.of("events", "schema", "changefeeds", "config"));
    if (config.upstream().isEmbedded() && config.upstream().embeddedDataDir().startsWith(config.dataDir())) {
      subdirs.add(config.dataDir().relativize(config.upstream().embeddedDataDir()).toString());
    }
    DataDirCheck.require(config.dataDir().toAbsolutePath(), settings.value(ConfigKeys.DATA_DIR).describe(), subdirs);
    ServeConfig serve = config.serve();
    PortCheck.requireFree(port("gRPC", serve.bindHost(), serve.grpcPort(), ConfigKeys.SERVE_GRPC_PORT));
    PortCheck.requireFree(port("admin HTTP", serve.bindHost(), serve.adminPort(), ConfigKeys.SERVE_ADMIN_PORT));
    if (config.cluster().clustered()) {
      PortCheck.requireFree(port("cluster", config.cluster().bindHost(), config.cluster().port(),
          ConfigKeys.CLUSTER_PORT));
    }
  }

  private PortCheck.Port port(String what, String host, int port, Setting<Integer> key) {
    return new PortCheck.Port(what, host, port, key.key(), key.flag(), key.env(), settings.value(key).describe());
  }

  private void startEventService(ServeConfig serve) {
    vertx = Vertx.builder()
        .with(new VertxOptions().setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true)))
        .withMetrics(new MicrometerMetricsFactory(registry))
        .build();
    opened(() -> await(vertx.close(), "close Vert.x"));
    security = startSecurity();
    var es = serve.eventService();
    ScanThreadPriority priority = new ScanThreadPriority(es.scanThreadNice());
    snapshots = opened(new SnapshotService(es.snapshot(), PgChunkSource.factory(upstream), watermarks, schemas,
        es.limits().snapshotRowsPerSecond(), es.limits().snapshotBytesPerSecond(), priority::applyToCurrentThread,
        registry, System::nanoTime));
    eventService = await(EventService.start(vertx, es, identity, serve.bindHost(), serve.grpcPort(),
        events, schemas, cluster.membership(), snapshots, published, registry, security), "start the event service on "
        + serve.bindHost() + ":" + serve.grpcPort());
    opened(() -> await(eventService.close(), "stop the event service"));
  }

  private void startAdmin(BrokerConfig effective) {
    ServeConfig serve = effective.serve();
    ChangefeedStore store = opened(ChangefeedStore.open(effective.changefeedsDir()));
    CommitClock clock = new CommitClock(events, System::currentTimeMillis);
    ChangefeedConfig changefeedConfig = effective.changefeeds().resolvedAgainst(effective.dataDir());
    hosting = opened(ChangefeedHosting.start(cluster, store, changefeedConfig, new StandardSinkConnector(System.out),
        new LocalHostBroker(eventService, events, schemas, changefeedClients), vertx, clock, System::currentTimeMillis,
        registry));
    changefeeds = hosting.supervisor();
    admin = new AdminApiVerticle(new AdminResources(changefeeds, eventService, capture::status, clock, schemas,
        registry, live, cluster, new Drain()), serve.bindHost(), serve.adminPort(), security,
        changefeedClients);
    // its own Vert.x (event loop, acceptor, workers): the admin API answers while the gRPC port is saturated
    Vertx adminVertx = Vertx.builder().with(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(2)
        .setInternalBlockingPoolSize(2)).build();
    opened(() -> await(adminVertx.close(), "close the admin API's Vert.x"));
    String id = await(adminVertx.deployVerticle(admin), "start the admin API on " + serve.bindHost() + ":"
        + serve.adminPort());
    opened(() -> await(adminVertx.undeploy(id), "stop the admin API"));
    eventService.announceAdminAddress(serve.announcedAdminAddress(admin.port()));
  }

  /** The guard, the watched certificate and the hosted changefeeds' credentials, from the security config. */
  private ServerSecurity startSecurity() {
    SecurityConfig sec = config.security();
    Authenticator auth = opened(Authenticator.of(sec.principals()));
    CertificateReloader tls = sec.tls() == null ? null
        : opened(CertificateReloader.start(vertx, sec.tls(), registry, java.time.Instant::now));
    changefeedClients = ChangefeedCredentials.of(sec, auth);
    return new ServerSecurity(new AccessGuard(auth, AuditLog.system()), tls);
  }

  /** What this node publishes about itself (on the publisher's thread). */
  private MemberInfo memberInfo() {
    NodeIdentity me = eventService == null ? identity : eventService.identity();
    long resolved = Math.min(events.resolvedTs(), schemas.resolvedTs());
    MemberState state = draining ? MemberState.DRAINING
        : serving && resolved > 0 && capture != null && capture.status().resolvedTs() > 0 ? MemberState.SERVING
        : MemberState.STARTING;
    long servableFrom = Math.max(Math.max(events.gcTs(), events.floorTs()), schemas.gcTs());
    return new MemberInfo(me.nodeId(), me.incarnation(), "", me.grpcAddress(), me.adminAddress(), state, servableFrom,
        resolved, capture == null ? -1 : capture.status().lagMs(), cluster.coordinator().isLocal(),
        cluster.tokenFloor().value(), changefeeds == null ? java.util.Map.of() : changefeeds.hosting(),
        changefeeds == null ? java.util.Map.of() : changefeeds.fencedOut(), cluster.cpMember(),
        System.currentTimeMillis());
  }

  /** Drains this node ({@code POST /api/v1/members/{id}/drain}). */
  private final class Drain implements NodeControl {
    @Override
    public void drain() {
      if (!cluster.membership().clustered()) {
        throw new IllegalStateException("node " + config.nodeId() + " runs standalone (no --cluster-join): there is no"
            + " other member to move its changefeeds and collectors to; stop it directly");
      }
      if (!draining) {
        draining = true;
        log.atInfo().addKeyValue("nodeId", config.nodeId()).log("draining: changefeeds move away, collectors are told"
            + " to move; stop the node once GET /api/v1/members/" + config.nodeId() + " shows drained");
      }
      publisher.publishNow();
      hosting.reschedule();
      eventService.drain("sluice node drain");
    }

    @Override
    public JsonObject drainStatus() {
      int hosted = changefeeds.hosting().size();
      int streams = eventService.openStreams();
      return new JsonObject().put("draining", draining).put("hosting", hosted).put("collector_streams", streams)
          .put("drained", draining && hosted == 0 && streams == 0);
    }
  }

  /** This node's part of the cluster (standalone: itself). */
  public ClusterNode cluster() {
    return cluster;
  }

  private static <T> T await(io.vertx.core.Future<T> f, String what) {
    try {
      return f.await(60, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("could not " + what + " within 60 s", e);
    } catch (RuntimeException e) {
      throw new IllegalStateException("could not " + what + ": " + e.getMessage(), e);
    }
  }

  private UpstreamConfig startEmbedded() {
    UpstreamConfig u = config.upstream();
    try {
      EmbeddedUpstream embedded = opened(EmbeddedUpstream.start(u.embeddedDataDir(), u.embeddedPort()));
      UpstreamConfig conn = embedded.connection();
      try (Connection c = DriverManager.getConnection(conn.jdbcUrl(), conn.user(), conn.password())) {
        DemoWorkload.createSchema(c);
      }
      return conn;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the embedded PostgreSQL under " + u.embeddedDataDir()
          + " on port " + u.embeddedPort() + ": " + e.getMessage(), e);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create the demo schema in the embedded PostgreSQL: " + e.getMessage(), e);
    }
  }

  private <T extends AutoCloseable> T opened(T resource) {
    opened.push(resource);
    return resource;
  }

  public EventStore eventStore() {
    return events;
  }

  public SchemaStore schemaStore() {
    return schemas;
  }

  public CaptureStatus captureStatus() {
    return capture.status();
  }

  /** The gRPC event service (started by {@link #start()}). */
  public EventService eventService() {
    return eventService;
  }

  /** The hosted changefeeds. */
  public ChangefeedSupervisor changefeeds() {
    return changefeeds;
  }

  /** The admin HTTP API (started by {@link #start()}). */
  public AdminApiVerticle admin() {
    return admin;
  }

  /** {@code http(s)://host:port} of the admin HTTP API. */
  public String adminUrl() {
    return security.scheme() + "://" + adminAddress();
  }

  /** The node's security: guard and watched certificate (set by {@link #start()}). */
  public ServerSecurity security() {
    return security;
  }

  /** {@code host:port} the admin HTTP API listens on (announced: {@code eventService().identity().adminAddress()}). */
  public String adminAddress() {
    return new BrokerAddress(config.serve().bindHost(), admin.port()).toString();
  }

  /** The Vert.x instance the services run on. */
  public Vertx vertx() {
    return vertx;
  }

  public PrometheusMeterRegistry meterRegistry() {
    return registry;
  }

  /** The upstream capture reads (the embedded one's URL once started). */
  public UpstreamConfig upstream() {
    return upstream;
  }

  /** The configuration it was built with (runtime changes: {@link #liveConfig()}). */
  public BrokerConfig config() {
    return config;
  }

  /** The settings in force, their sources and the runtime changes (started by {@link #start()}). */
  public LiveConfig liveConfig() {
    return live;
  }

  /** Stops the workload, capture, the upstream and the stores, in reverse start order. */
  @Override
  public void close() {
    while (!opened.isEmpty()) {
      AutoCloseable c = opened.pop();
      try {
        c.close();
      } catch (Exception e) {
        log.atWarn().addKeyValue("component", c.getClass().getSimpleName()).setCause(e).log("close failed");
      }
    }
  }
}
