package dev.sluice.broker;

import dev.sluice.broker.admin.AdminApiVerticle;
import dev.sluice.broker.admin.AdminResources;
import dev.sluice.broker.capture.CaptureStatus;
import dev.sluice.broker.capture.PgLogicalCapture;
import dev.sluice.broker.changefeed.ChangefeedConfig;
import dev.sluice.broker.changefeed.ChangefeedStore;
import dev.sluice.broker.changefeed.ChangefeedSupervisor;
import dev.sluice.broker.changefeed.CommitClock;
import dev.sluice.broker.changefeed.LocalHostBroker;
import dev.sluice.broker.changefeed.StandardSinkConnector;
import dev.sluice.broker.server.EventService;
import dev.sluice.broker.store.EventStore;
import dev.sluice.broker.store.EventStoreConfig;
import dev.sluice.broker.store.RocksEventStore;
import dev.sluice.broker.upstream.DemoWorkload;
import dev.sluice.broker.upstream.EmbeddedUpstream;
import dev.sluice.broker.upstream.UpstreamConfig;
import dev.sluice.dispatcher.BrokerAddress;
import dev.sluice.schema.RocksSchemaStore;
import dev.sluice.schema.SchemaStore;
import dev.sluice.schema.SchemaStoreConfig;
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
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One broker node: owns the event store, the schema store, the upstream (embedded or external), the
 * capture, the demo workload, the gRPC event service, the hosted changefeeds and the admin HTTP API,
 * starts them in that order and closes them in reverse.
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
  private final ChangefeedConfig changefeedConfig;
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Deque<AutoCloseable> opened = new ArrayDeque<>();
  private RocksEventStore events;
  private RocksSchemaStore schemas;
  private PgLogicalCapture capture;
  private UpstreamConfig upstream;
  private DemoWorkload workload;
  private Vertx vertx;
  private EventService eventService;
  private ChangefeedSupervisor changefeeds;
  private AdminApiVerticle admin;

  public Broker(BrokerConfig config) {
    this(config, ChangefeedConfig.defaults());
  }

  /** A broker hosting changefeeds with {@code changefeedConfig} (retry policy, delete wait). */
  public Broker(BrokerConfig config, ChangefeedConfig changefeedConfig) {
    this.config = config;
    this.changefeedConfig = changefeedConfig;
  }

  /**
   * Opens the stores, starts the upstream when embedded, then capture and the demo workload.
   *
   * @throws dev.sluice.api.error.FatalException when the upstream cannot be captured as configured
   *     (everything opened so far is closed again)
   */
  public void start() {
    try {
      events = opened(RocksEventStore.open(EventStoreConfig.defaults(config.eventsDir()), registry));
      schemas = opened(RocksSchemaStore.open(SchemaStoreConfig.at(config.schemaDir()), registry));
      upstream = config.upstream().isEmbedded() ? startEmbedded() : config.upstream();
      capture = new PgLogicalCapture(upstream, config.capture(), events, schemas, registry);
      opened(capture);
      capture.start();
      if (config.demoWorkload()) {
        workload = opened(DemoWorkload.start(upstream, config.demo()));
      }
      startEventService();
      startAdmin();
      log.atInfo().addKeyValue("nodeId", config.nodeId()).addKeyValue("upstream", upstream.displayUrl())
          .addKeyValue("grpcAddress", eventService.identity().grpcAddress())
          .addKeyValue("grpcListen", eventService.listenAddress())
          .addKeyValue("adminUrl", "http://" + adminAddress())
          .addKeyValue("slot", config.capture().slotName()).addKeyValue("mode", capture.status().mode())
          .addKeyValue("state", capture.status().state()).log("broker started");
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  private void startEventService() {
    ServeConfig serve = config.serve();
    vertx = Vertx.builder()
        .with(new VertxOptions().setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true)))
        .withMetrics(new MicrometerMetricsFactory(registry))
        .build();
    opened(() -> await(vertx.close(), "close Vert.x"));
    // an advertised gRPC address is announced from the first GetTopology on; else the listener's own
    NodeIdentity identity = NodeIdentity.fresh(config.nodeId(),
        serve.advertisedGrpc() == null ? null : serve.advertisedGrpc().toString(), null);
    eventService = await(EventService.start(vertx, serve.eventService(), identity, serve.bindHost(), serve.grpcPort(),
        events, schemas, registry), "start the event service on " + serve.bindHost() + ":" + serve.grpcPort());
    opened(() -> await(eventService.close(), "stop the event service"));
  }

  private void startAdmin() {
    ServeConfig serve = config.serve();
    ChangefeedStore store = opened(ChangefeedStore.open(config.dataDir().resolve("changefeeds")));
    CommitClock clock = new CommitClock(events, System::currentTimeMillis);
    changefeeds = opened(ChangefeedSupervisor.start(store, changefeedConfig, new StandardSinkConnector(System.out),
        new LocalHostBroker(eventService, events, schemas), vertx, clock, System::currentTimeMillis, registry));
    admin = new AdminApiVerticle(new AdminResources(changefeeds, eventService, capture::status, clock, schemas,
        registry), serve.bindHost(), serve.adminPort());
    String id = await(vertx.deployVerticle(admin), "start the admin API on " + serve.bindHost() + ":" + serve.adminPort());
    opened(() -> await(vertx.undeploy(id), "stop the admin API"));
    eventService.announceAdminAddress(serve.announcedAdminAddress(admin.port()));
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

  public BrokerConfig config() {
    return config;
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
