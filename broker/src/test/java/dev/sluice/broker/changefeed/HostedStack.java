package dev.sluice.broker.changefeed;

import dev.sluice.broker.Broker;
import dev.sluice.broker.admin.AdminApiVerticle;
import dev.sluice.broker.admin.AdminResources;
import dev.sluice.broker.cli.AdminClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A second changefeed supervisor and admin API on a running broker, with a sink connector the test
 * chooses (to hold or fail a cleanup at a chosen moment) and its own store directory and meters.
 * Everything else is the broker's real event service, stores and capture. Unless the config names an
 * absolute one, file sinks may write in the directory that holds the store's.
 */
final class HostedStack implements AutoCloseable {

  private final Broker broker;
  private final ChangefeedStore store;
  private final ChangefeedSupervisor supervisor;
  private final ChangefeedHosting hosting;
  private final dev.sluice.broker.cluster.ClusterNode cluster;
  private final dev.sluice.broker.cluster.MemberPublisher publisher;
  private final String deployment;
  private final AdminClient admin;
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  HostedStack(Broker broker, Path storeDir, ChangefeedConfig config, SinkConnector sinks) {
    this(broker, storeDir, config, sinks, System::currentTimeMillis);
  }

  /** With the supervisor's clock {@code nowMs} (the GC holds' time); the lag meters keep the real one. */
  HostedStack(Broker broker, Path storeDir, ChangefeedConfig config, SinkConnector sinks, LongSupplier nowMs) {
    this.broker = broker;
    this.store = ChangefeedStore.open(storeDir);
    CommitClock clock = new CommitClock(broker.eventStore(), System::currentTimeMillis);
    ChangefeedConfig hosted = config.fileSinkDir().isAbsolute() ? config   // else the test's directory
        : config.withFileSinkDir(storeDir.toAbsolutePath().getParent());
    this.cluster = dev.sluice.broker.cluster.ClusterNode.start(dev.sluice.broker.cluster.ClusterConfig.standalone(),
        broker.config().nodeId(), storeDir.resolveSibling(storeDir.getFileName() + "-cluster"), registry);
    this.hosting = ChangefeedHosting.start(cluster, store, hosted, sinks, new LocalHostBroker(broker.eventService(),
        broker.eventStore(), broker.schemaStore()), broker.vertx(), clock, nowMs, registry);
    this.supervisor = hosting.supervisor();
    // the node serves: the standalone coordinator places changefeeds on serving members only
    this.publisher = dev.sluice.broker.cluster.MemberPublisher.start(cluster.membership(),
        () -> new dev.sluice.broker.cluster.MemberInfo(broker.config().nodeId(), 1, "", "", "",
            dev.sluice.broker.cluster.MemberState.SERVING, 0, broker.eventStore().resolvedTs(), 0, true, 0,
            supervisor.hosting(), supervisor.fencedOut(), false, System.currentTimeMillis()),
        java.time.Duration.ofMillis(200));
    AdminApiVerticle verticle = new AdminApiVerticle(new AdminResources(supervisor, broker.eventService(),
        broker::captureStatus, clock, broker.schemaStore(), registry, broker.liveConfig(), cluster,
        new dev.sluice.broker.admin.NodeControl() {
          @Override
          public void drain() {
            throw new IllegalStateException("a test stack does not drain");
          }

          @Override
          public io.vertx.core.json.JsonObject drainStatus() {
            return new io.vertx.core.json.JsonObject();
          }
        }), "127.0.0.1", 0);
    try {
      this.deployment = broker.vertx().deployVerticle(verticle).await(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(e);
    }
    this.admin = AdminClient.of("http://127.0.0.1:" + verticle.port(), Duration.ofSeconds(30));
  }

  ChangefeedSupervisor supervisor() {
    return supervisor;
  }

  AdminClient admin() {
    return admin;
  }

  PrometheusMeterRegistry registry() {
    return registry;
  }

  /** Runs the supervisor's GC hold check now, on its thread. */
  void checkGcHolds() throws Exception {
    supervisor.onDecider(() -> {
      supervisor.reports().checkGcHolds();
      return null;
    }).get(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    try {
      broker.vertx().undeploy(deployment).await(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(e);
    } finally {
      publisher.close();
      hosting.close();
      store.close();
      cluster.close();
    }
  }
}
