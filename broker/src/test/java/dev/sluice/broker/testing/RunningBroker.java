package dev.sluice.broker.testing;

import static org.awaitility.Awaitility.await;

import dev.sluice.broker.Broker;
import dev.sluice.broker.BrokerConfig;
import dev.sluice.broker.ServeConfig;
import dev.sluice.broker.capture.CaptureConfig;
import dev.sluice.broker.capture.CaptureState;
import dev.sluice.broker.capture.TestPostgres;
import dev.sluice.broker.changefeed.ChangefeedConfig;
import dev.sluice.broker.cli.AdminClient;
import dev.sluice.broker.security.SecurityConfig;
import dev.sluice.broker.upstream.DemoWorkloadConfig;
import dev.sluice.broker.upstream.UpstreamConfig;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A real broker in this JVM capturing a real PostgreSQL (zonky), with its admin API on a free port,
 * for admin API, deletion and CLI tests. Unless the config names an absolute one, file sinks may write
 * in the directory that holds the data directory (the test's temp dir).
 */
public final class RunningBroker implements AutoCloseable {

  private final TestPostgres upstream;
  private final Broker broker;
  private final AdminClient admin;

  private RunningBroker(TestPostgres upstream, Broker broker) {
    this.upstream = upstream;
    this.broker = broker;
    this.admin = broker.security().tls() == null ? AdminClient.of(adminUrl(), Duration.ofSeconds(30)) : null;
  }

  /** Starts PostgreSQL, runs {@code setupSql} there, then the broker under {@code dir}. */
  public static RunningBroker start(Path dir, ChangefeedConfig changefeeds, String... setupSql) {
    return start(dir, changefeeds, ServeConfig.ephemeral(), setupSql);
  }

  /** As {@link #start(Path, ChangefeedConfig, String...)}, serving as {@code serve} says. */
  public static RunningBroker start(Path dir, ChangefeedConfig changefeeds, ServeConfig serve, String... setupSql) {
    return start(dir, changefeeds, serve, SecurityConfig.none(), setupSql);
  }

  /**
   * As {@link #start(Path, ChangefeedConfig, ServeConfig, String...)}, secured as {@code security} says. File
   * sinks of these tests live in the test's directory, beside the data directory, unless {@code changefeeds}
   * names an absolute one.
   */
  public static RunningBroker start(Path dir, ChangefeedConfig changefeeds, ServeConfig serve, SecurityConfig security,
      String... setupSql) {
    return startAsConfigured(dir, changefeeds.fileSinkDir().isAbsolute() ? changefeeds
        : changefeeds.withFileSinkDir(dir.toAbsolutePath().getParent()), serve, security, setupSql);
  }

  /** As {@link #start(Path, ChangefeedConfig, String...)}, with the file sink directory as {@code changefeeds} says. */
  public static RunningBroker startAsConfigured(Path dir, ChangefeedConfig changefeeds, String... setupSql) {
    return startAsConfigured(dir, changefeeds, ServeConfig.ephemeral(), SecurityConfig.none(), setupSql);
  }

  private static RunningBroker startAsConfigured(Path dir, ChangefeedConfig changefeeds, ServeConfig serve,
      SecurityConfig security,
      String... setupSql) {
    TestPostgres pg = TestPostgres.start();
    try {
      pg.exec(setupSql);
      BrokerConfig config = new BrokerConfig("node-a", dir, UpstreamConfig.external(pg.jdbcUrl(), "postgres", null),
          CaptureConfig.defaults("node-a").withHeartbeatInterval(Duration.ofMillis(50)), false,
          DemoWorkloadConfig.defaults(), serve, security);
      Broker broker = new Broker(config, changefeeds);
      broker.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> broker.captureStatus().state() == CaptureState.STREAMING);
      return new RunningBroker(pg, broker);
    } catch (RuntimeException e) {
      pg.close();
      throw e;
    }
  }

  public TestPostgres upstream() {
    return upstream;
  }

  public Broker broker() {
    return broker;
  }

  public AdminClient admin() {
    return admin;
  }

  public String adminUrl() {
    return broker.security().scheme() + "://127.0.0.1:" + broker.admin().port();   // also when it listens on every interface
  }

  public String grpcAddress() {
    return broker.eventService().identity().grpcAddress();
  }

  /** Waits until the broker's resolved ts reaches {@code ts} (a commit is then servable). */
  public void awaitResolved(long ts) {
    await().atMost(Duration.ofSeconds(60)).until(() -> broker.eventStore().resolvedTs() >= ts
        && broker.schemaStore().resolvedTs() >= ts);
  }

  @Override
  public void close() {
    try {
      broker.close();
    } finally {
      upstream.close();
    }
  }
}
