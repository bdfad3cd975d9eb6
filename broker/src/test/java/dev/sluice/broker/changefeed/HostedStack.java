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

/**
 * A second changefeed supervisor and admin API on a running broker, with a sink connector the test
 * chooses (to hold or fail a cleanup at a chosen moment) and its own store directory and meters.
 * Everything else is the broker's real event service, stores and capture.
 */
final class HostedStack implements AutoCloseable {

  private final Broker broker;
  private final ChangefeedStore store;
  private final ChangefeedSupervisor supervisor;
  private final String deployment;
  private final AdminClient admin;

  HostedStack(Broker broker, Path storeDir, ChangefeedConfig config, SinkConnector sinks) {
    this.broker = broker;
    this.store = ChangefeedStore.open(storeDir);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    CommitClock clock = new CommitClock(broker.eventStore(), System::currentTimeMillis);
    this.supervisor = ChangefeedSupervisor.start(store, config, sinks, new LocalHostBroker(broker.eventService(),
        broker.eventStore(), broker.schemaStore()), broker.vertx(), clock, System::currentTimeMillis, registry);
    AdminApiVerticle verticle = new AdminApiVerticle(new AdminResources(supervisor, broker.eventService(),
        broker::captureStatus, clock, broker.schemaStore(), registry), "127.0.0.1", 0);
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

  @Override
  public void close() {
    try {
      broker.vertx().undeploy(deployment).await(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(e);
    } finally {
      supervisor.close();
      store.close();
    }
  }
}
