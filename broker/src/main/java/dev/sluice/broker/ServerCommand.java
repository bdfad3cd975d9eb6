package dev.sluice.broker;

import dev.sluice.api.error.SluiceException;
import dev.sluice.broker.capture.CaptureConfig;
import dev.sluice.broker.upstream.DemoWorkloadConfig;
import dev.sluice.broker.upstream.UpstreamConfig;
import dev.sluice.dispatcher.BrokerAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice server}: runs one broker node until SIGTERM or SIGINT.
 *
 * <pre>{@code
 * sluice server --demo-workload                                  # embedded PostgreSQL on 127.0.0.1:8302
 * sluice server --upstream jdbc:postgresql://db:5432/app --upstream-user sluice --upstream-password secret
 * sluice server --bind 0.0.0.0 --advertise-address broker-1.example.com:8300   # clients reach it by that name
 * }</pre>
 */
@Command(name = "server", mixinStandardHelpOptions = true,
    description = "Run a broker node: capture the upstream PostgreSQL into the event and schema stores, serve"
        + " dispatchers over gRPC, host changefeeds and serve the admin HTTP API.")
final class ServerCommand implements Callable<Integer> {

  private static final Logger log = LoggerFactory.getLogger(ServerCommand.class);

  @Option(names = "--node-id", defaultValue = BrokerConfig.DEFAULT_NODE_ID,
      description = "Node identity; names the replication slot (default: ${DEFAULT-VALUE}).")
  String nodeId;

  @Option(names = "--data-dir", defaultValue = "data",
      description = "Data directory: events/, schema/ and (embedded) upstream/ (default: ${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(names = "--upstream", description = "JDBC URL of the PostgreSQL 12+ to capture"
      + " (jdbc:postgresql://host:port/db); default: an embedded PostgreSQL under <data-dir>/upstream. On the"
      + " database's host, append ?socketFactory=dev.sluice.broker.upstream.UnixSocketFactory&socketFactoryArg=<socket"
      + " dir> to read through its Unix-domain socket (faster; docs/CAPTURE.md).")
  String upstream;

  @Option(names = "--upstream-user", description = "Role to connect as (or user= in the URL).")
  String upstreamUser;

  @Option(names = "--upstream-password", description = "Its password (or password= in the URL).")
  String upstreamPassword;

  @Option(names = "--embedded-port", defaultValue = "" + UpstreamConfig.DEFAULT_EMBEDDED_PORT,
      description = "Port of the embedded PostgreSQL on 127.0.0.1 (default: ${DEFAULT-VALUE}).")
  int embeddedPort;

  @Option(names = "--slot", description = "Replication slot (default: sluice_<node id>).")
  String slot;

  @Option(names = "--publication", defaultValue = CaptureConfig.DEFAULT_PUBLICATION,
      description = "Publication the slot streams; created FOR ALL TABLES when missing (default: ${DEFAULT-VALUE}).")
  String publication;

  @Option(names = "--heartbeat-interval", defaultValue = "PT0.2S",
      description = "Interval of the heartbeat that moves the resolved ts while idle, ISO-8601 (default: ${DEFAULT-VALUE}).")
  Duration heartbeatInterval;

  @Option(names = "--demo-workload", description = "Write a steady demo workload into the embedded upstream.")
  boolean demoWorkload;

  @Option(names = "--bind", defaultValue = ServeConfig.DEFAULT_BIND_HOST,
      description = "Interface the gRPC and admin ports listen on (default: ${DEFAULT-VALUE}).")
  String bindHost;

  @Option(names = "--grpc-port", defaultValue = "" + ServeConfig.DEFAULT_GRPC_PORT,
      description = "gRPC port of the event service, 0 = any free port (default: ${DEFAULT-VALUE}).")
  int grpcPort;

  @Option(names = "--admin-port", defaultValue = "" + ServeConfig.DEFAULT_ADMIN_PORT,
      description = "Admin HTTP port, 0 = any free port (default: ${DEFAULT-VALUE}).")
  int adminPort;

  @Option(names = "--advertise-address", paramLabel = "<host>:<port>",
      description = "gRPC address announced to clients (GetTopology, /api/v1/members) when they reach this node by"
          + " another address than --bind:--grpc-port (NAT, a proxy, a Kubernetes service); required with a wildcard"
          + " --bind such as 0.0.0.0 (default: the listening address).")
  String advertiseAddress;

  @Option(names = "--advertise-admin-address", paramLabel = "<host>:<port>",
      description = "Admin API address announced (default: the advertised gRPC host with --admin-port).")
  String advertiseAdminAddress;

  /** Maps the options onto the typed configuration (validated there). */
  BrokerConfig config() {
    Path data = dataDir.toAbsolutePath();
    UpstreamConfig up = upstream == null
        ? UpstreamConfig.embedded(data.resolve("upstream"), embeddedPort)
        : UpstreamConfig.external(upstream, upstreamUser, upstreamPassword);
    CaptureConfig capture = CaptureConfig.defaults(nodeId)
        .withSlot(slot == null ? CaptureConfig.defaultSlotName(nodeId) : slot, publication)
        .withHeartbeatInterval(heartbeatInterval);
    return new BrokerConfig(nodeId, data, up, capture, demoWorkload, DemoWorkloadConfig.defaults(),
        new ServeConfig(bindHost, grpcPort, adminPort,
            advertiseAddress == null ? null : BrokerAddress.parse(advertiseAddress),
            advertiseAdminAddress == null ? null : BrokerAddress.parse(advertiseAdminAddress),
            ServeConfig.defaults().eventService()));
  }

  @Override
  public Integer call() throws InterruptedException {
    BrokerConfig config;
    try {
      config = config();
    } catch (IllegalArgumentException e) {
      System.err.println("sluice server: " + e.getMessage());
      return 2;
    }
    Broker broker = new Broker(config);
    CountDownLatch stopped = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      broker.close();
      stopped.countDown();
    }, "sluice-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      broker.start();
    } catch (SluiceException | IllegalStateException | java.io.UncheckedIOException e) {
      System.err.println("sluice server: cannot start: " + e.getMessage());
      Runtime.getRuntime().removeShutdownHook(hook);
      broker.close();
      return 1;
    }
    log.atInfo().addKeyValue("grpcAddress", broker.eventService().identity().grpcAddress())
        .addKeyValue("grpcListen", broker.eventService().listenAddress())
        .addKeyValue("adminUrl", "http://" + broker.adminAddress())
        .addKeyValue("upstream", broker.upstream().displayUrl()).addKeyValue("slot", config.capture().slotName())
        .addKeyValue("publication", config.capture().publicationName())
        .addKeyValue("ddlCapture", broker.captureStatus().mode()).addKeyValue("dataDir", config.dataDir())
        .log("sluice server running; stop with Ctrl-C or SIGTERM");
    stopped.await();
    return 0;
  }
}
