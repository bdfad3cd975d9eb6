package dev.sluice.broker;

import dev.sluice.api.error.SluiceException;
import dev.sluice.broker.config.BrokerConfigFactory;
import dev.sluice.broker.config.ConfigFile;
import dev.sluice.broker.config.ConfigKeys;
import dev.sluice.broker.config.ConfigProblem;
import dev.sluice.broker.config.ConfigResolver;
import dev.sluice.broker.config.InvalidConfigException;
import dev.sluice.broker.config.LiveConfig;
import dev.sluice.broker.config.RawSetting;
import dev.sluice.broker.config.ResolvedSettings;
import dev.sluice.broker.config.Setting;
import io.vertx.core.json.JsonObject;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice server}: runs one broker node until SIGTERM or SIGINT. Its settings come from, in
 * increasing precedence, the defaults, a YAML file ({@code --config}, or {@code SLUICE_CONFIG}),
 * {@code SLUICE_...} environment variables and the flags; docs/CONFIG.md lists every key.
 *
 * <pre>{@code
 * sluice server --demo-workload                                  # embedded PostgreSQL on 127.0.0.1:8302
 * sluice server --config /etc/sluice/sluice.yaml                 # everything from the file
 * SLUICE_UPSTREAM_PASSWORD=secret sluice server --upstream jdbc:postgresql://db:5432/app --upstream-user sluice
 * sluice server --bind 0.0.0.0 --advertise-address broker-1.example.com:8300 \
 *     --tls-cert broker.pem --tls-key broker.key --security-config security.json   # secured (docs/SECURITY.md)
 * sluice server --node-id n1 --bind 10.0.0.1 --cluster-join 10.0.0.1:5701,10.0.0.2:5701,10.0.0.3:5701
 * }</pre>
 */
@Command(name = "server", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Run a broker node: capture the upstream PostgreSQL into the event and schema stores, serve"
        + " dispatchers over gRPC, host changefeeds and serve the admin HTTP API.",
        "",
        "Settings come from, later ones winning: the defaults, the YAML file of --config (or SLUICE_CONFIG), the"
            + " environment (the key serve.grpcPort is SLUICE_SERVE_GRPC_PORT: SLUICE_, then the key with dots and"
            + " camelCase humps as _, upper-cased), then the flags below. docs/CONFIG.md lists every key. Runtime"
            + " changes (PATCH /api/v1/config) are kept in <data-dir>/config and survive a restart until the"
            + " static value they overrode changes.",
        ""},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:stopped by SIGTERM or SIGINT", "1:could not start (port in use, data directory unusable,"
        + " upstream refused)", "2:invalid configuration or usage (the message names the key and its source)"})
final class ServerCommand implements Callable<Integer> {

  private static final Logger log = LoggerFactory.getLogger(ServerCommand.class);

  /** The environment the command reads {@code SLUICE_...} from; tests replace it. */
  Map<String, String> environment = System.getenv();
  /** Where messages and {@code --print-config} go; null: System.err and System.out at the time. */
  PrintStream err;
  PrintStream out;

  @Option(names = "--config", paramLabel = "<file>",
      description = "YAML configuration file (docs/CONFIG.md); default: SLUICE_CONFIG, else none.")
  Path configFile;

  @Option(names = "--set", paramLabel = "<key>=<value>",
      description = "Sets any key of docs/CONFIG.md, e.g. --set eventService.gcRetention=2h; repeatable.")
  List<String> sets = new ArrayList<>();

  @Option(names = "--print-config",
      description = "Print every setting's effective value and source as JSON (secrets as ***) and exit.")
  boolean printConfig;

  @Option(names = "--node-id", paramLabel = "<id>",
      description = "Node identity; names the replication slot (default: " + BrokerConfig.DEFAULT_NODE_ID + ").")
  String nodeId;

  @Option(names = "--data-dir", paramLabel = "<dir>",
      description = "Data directory: events/, schema/, changefeeds/, config/ and (embedded) upstream/ (default: data).")
  String dataDir;

  @Option(names = "--upstream", paramLabel = "<jdbc-url>", description = "JDBC URL of the PostgreSQL 12+ to capture"
      + " (jdbc:postgresql://host:port/db); default: an embedded PostgreSQL under <data-dir>/upstream. On the"
      + " database's host, append ?socketFactory=dev.sluice.broker.upstream.UnixSocketFactory&socketFactoryArg=<socket"
      + " dir> to read through its Unix-domain socket (faster; docs/CAPTURE.md).")
  String upstream;

  @Option(names = "--upstream-user", paramLabel = "<role>", description = "Role to connect as (or user= in the URL).")
  String upstreamUser;

  @Option(names = "--upstream-password-file", paramLabel = "<file>", description = "File holding the upstream"
      + " password (one trailing newline dropped); preferred, with SLUICE_UPSTREAM_PASSWORD, over --upstream-password.")
  String upstreamPasswordFile;

  @Option(names = "--upstream-password", paramLabel = "<password>", description = "The upstream password. Visible"
      + " to every local user in ps: prefer SLUICE_UPSTREAM_PASSWORD or --upstream-password-file.")
  String upstreamPassword;

  @Option(names = "--embedded-port", paramLabel = "<port>",
      description = "Port of the embedded PostgreSQL on 127.0.0.1 (default: 8302).")
  String embeddedPort;

  @Option(names = "--slot", paramLabel = "<name>", description = "Replication slot (default: sluice_<node id>).")
  String slot;

  @Option(names = "--publication", paramLabel = "<name>", description = "Publication the slot streams; created FOR"
      + " ALL TABLES when missing (default: sluice_pub).")
  String publication;

  @Option(names = "--heartbeat-interval", paramLabel = "<duration>", description = "Interval of the heartbeat that"
      + " moves the resolved ts while idle: 200ms, 1s or ISO-8601 PT0.2S (default: 200ms).")
  String heartbeatInterval;

  @Option(names = "--demo-workload", negatable = true,
      description = "Write a steady demo workload into the embedded upstream (default: off).")
  Boolean demoWorkload;

  @Option(names = "--bind", paramLabel = "<host>",
      description = "Interface the gRPC and admin ports listen on (default: " + ServeConfig.DEFAULT_BIND_HOST + ").")
  String bindHost;

  @Option(names = "--grpc-port", paramLabel = "<port>", description = "gRPC port of the event service, 0 = any free"
      + " port (default: " + ServeConfig.DEFAULT_GRPC_PORT + ").")
  String grpcPort;

  @Option(names = "--admin-port", paramLabel = "<port>",
      description = "Admin HTTP port, 0 = any free port (default: " + ServeConfig.DEFAULT_ADMIN_PORT + ").")
  String adminPort;

  @Option(names = "--advertise-address", paramLabel = "<host>:<port>",
      description = "gRPC address announced to clients (GetTopology, /api/v1/members) when they reach this node by"
          + " another address than --bind:--grpc-port (NAT, a proxy, a Kubernetes service); required with a wildcard"
          + " --bind such as 0.0.0.0 (default: the listening address).")
  String advertiseAddress;

  @Option(names = "--advertise-admin-address", paramLabel = "<host>:<port>",
      description = "Admin API address announced (default: the advertised gRPC host with --admin-port).")
  String advertiseAdminAddress;

  @Option(names = "--security-config", paramLabel = "<file>",
      description = "JSON file with the principals (names, roles, table patterns, token hashes from `sluice token"
          + " hash`, certificate subjects), TLS files and the hosted changefeeds' credentials (docs/SECURITY.md)."
          + " With one principal, every call but /healthz and /readyz must authenticate.")
  String securityConfig;

  @Option(names = "--tls-cert", paramLabel = "<file>",
      description = "PEM certificate chain (leaf first) served on the gRPC and admin ports; reloaded when it changes.")
  String tlsCert;

  @Option(names = "--tls-key", paramLabel = "<file>", description = "PEM private key of --tls-cert (unencrypted,"
      + " mode 0600).")
  String tlsKey;

  @Option(names = "--tls-client-ca", paramLabel = "<file>",
      description = "PEM CA of client certificates: with it, every client must present a certificate it signed"
          + " (mutual TLS).")
  String tlsClientCa;

  @Option(names = "--tls-reload-interval", paramLabel = "<duration>",
      description = "How often the TLS files are checked for changes: 10s or ISO-8601 PT10S (default: 10s).")
  String tlsReloadInterval;

  @Option(names = "--insecure", description = "Serve on a non-loopback --bind without TLS or authentication anyway"
      + " (a warning is logged at every start). Without it such a node refuses to start.")
  Boolean insecure;

  @Option(names = "--cluster-join", paramLabel = "<host>:<port>[,<host>:<port>...]",
      description = "Join a cluster: the cluster addresses of its members (this node's own may be among them). TCP"
          + " only, no multicast. Changefeeds are scheduled once 3 members form the CP subsystem. Without it the node"
          + " runs standalone and starts no cluster at all (docs/CLUSTER.md).")
  String clusterJoin;

  @Option(names = "--cluster-name", paramLabel = "<name>",
      description = "Cluster name: nodes of another name never join each other (default: sluice).")
  String clusterName;

  @Option(names = "--cluster-port", paramLabel = "<port>",
      description = "Port the cluster connections listen on, on the --bind interface (default: 5701).")
  String clusterPort;

  @Option(names = "--cluster-advertise-address", paramLabel = "<host>:<port>",
      description = "Cluster address announced to the other members when they reach this node by another address"
          + " than --bind:--cluster-port (NAT, a proxy); required with a wildcard --bind (default: the listening"
          + " address).")
  String clusterAdvertiseAddress;

  @Option(names = "--cluster-network-private", negatable = true,
      description = "The cluster port listens beyond loopback on a private network: cluster traffic is neither"
          + " encrypted nor authenticated (docs/SECURITY.md); without it such a node refuses to start.")
  Boolean clusterNetworkPrivate;

  @Option(names = "--cluster-outbound-ports", paramLabel = "<ports>",
      description = "Local ports this node's outgoing cluster connections use, e.g. 33000-33010 (for firewalls;"
          + " default: any).")
  String clusterOutboundPorts;

  @Option(names = "--cluster-member-timeout", paramLabel = "<duration>",
      description = "A member silent this long is removed from the cluster and its changefeeds move, whole seconds"
          + " (default: 5s).")
  String clusterMemberTimeout;

  @Option(names = "--cluster-cp-session-ttl", paramLabel = "<duration>",
      description = "How long a coordinator that stopped heartbeating (frozen, cut off) keeps the coordinator lock,"
          + " whole seconds (default: 10s).")
  String clusterCpSessionTtl;

  /** The flags given, as settings (a flag not given sets nothing). */
  List<RawSetting> flags() {
    List<RawSetting> f = new ArrayList<>();
    flag(f, ConfigKeys.NODE_ID, nodeId);
    flag(f, ConfigKeys.DATA_DIR, dataDir);
    flag(f, ConfigKeys.UPSTREAM_URL, upstream);
    flag(f, ConfigKeys.UPSTREAM_USER, upstreamUser);
    flag(f, ConfigKeys.UPSTREAM_PASSWORD, upstreamPassword);
    flag(f, ConfigKeys.UPSTREAM_PASSWORD_FILE, upstreamPasswordFile);
    flag(f, ConfigKeys.UPSTREAM_EMBEDDED_PORT, embeddedPort);
    flag(f, ConfigKeys.CAPTURE_SLOT, slot);
    flag(f, ConfigKeys.CAPTURE_PUBLICATION, publication);
    flag(f, ConfigKeys.CAPTURE_HEARTBEAT_INTERVAL, heartbeatInterval);
    if (demoWorkload != null) {
      f.add(RawSetting.flag(ConfigKeys.DEMO_ENABLED.key(), demoWorkload.toString(),
          demoWorkload ? "--demo-workload" : "--no-demo-workload"));
    }
    flag(f, ConfigKeys.SERVE_BIND, bindHost);
    flag(f, ConfigKeys.SERVE_GRPC_PORT, grpcPort);
    flag(f, ConfigKeys.SERVE_ADMIN_PORT, adminPort);
    flag(f, ConfigKeys.SERVE_ADVERTISE_ADDRESS, advertiseAddress);
    flag(f, ConfigKeys.SERVE_ADVERTISE_ADMIN_ADDRESS, advertiseAdminAddress);
    flag(f, ConfigKeys.SECURITY_CONFIG_FILE, securityConfig);
    flag(f, ConfigKeys.SECURITY_TLS_CERT, tlsCert);
    flag(f, ConfigKeys.SECURITY_TLS_KEY, tlsKey);
    flag(f, ConfigKeys.SECURITY_TLS_CLIENT_CA, tlsClientCa);
    flag(f, ConfigKeys.SECURITY_TLS_RELOAD_INTERVAL, tlsReloadInterval);
    if (insecure != null) {
      f.add(RawSetting.flag(ConfigKeys.SECURITY_INSECURE.key(), insecure.toString(), "--insecure"));
    }
    flag(f, ConfigKeys.CLUSTER_JOIN, clusterJoin);
    flag(f, ConfigKeys.CLUSTER_NAME, clusterName);
    flag(f, ConfigKeys.CLUSTER_PORT, clusterPort);
    flag(f, ConfigKeys.CLUSTER_ADVERTISE_ADDRESS, clusterAdvertiseAddress);
    flag(f, ConfigKeys.CLUSTER_OUTBOUND_PORTS, clusterOutboundPorts);
    if (clusterNetworkPrivate != null) {
      f.add(RawSetting.flag(ConfigKeys.CLUSTER_NETWORK_PRIVATE.key(), clusterNetworkPrivate.toString(),
          clusterNetworkPrivate ? "--cluster-network-private" : "--no-cluster-network-private"));
    }
    flag(f, ConfigKeys.CLUSTER_MEMBER_TIMEOUT, clusterMemberTimeout);
    flag(f, ConfigKeys.CLUSTER_CP_SESSION_TTL, clusterCpSessionTtl);
    for (String set : sets) {
      int eq = set.indexOf('=');
      if (eq <= 0) {
        throw new InvalidConfigException(List.of(new ConfigProblem("--set " + set,
            "must be <key>=<value>, e.g. --set eventService.gcRetention=2h")));
      }
      String key = set.substring(0, eq).trim();
      f.add(RawSetting.flag(key, set.substring(eq + 1), "--set " + key));
    }
    return f;
  }

  private static void flag(List<RawSetting> out, Setting<?> key, String value) {
    if (value != null) {
      out.add(RawSetting.flag(key.key(), value, key.flag()));
    }
  }

  /** The file, the environment and the flags combined and validated into the typed configuration. */
  BrokerConfigFactory.Built resolve() {
    Path file = configFile;
    String fromEnv = environment.get(ConfigResolver.CONFIG_ENV);
    if (file == null && fromEnv != null && !fromEnv.isEmpty()) {
      file = Path.of(fromEnv);
    }
    List<RawSetting> fileKeys = file == null ? List.of() : ConfigFile.read(file.toAbsolutePath());
    ConfigResolver.Result r = ConfigResolver.resolve(fileKeys, environment, flags());
    BrokerConfigFactory.Built built = BrokerConfigFactory.build(r.settings());
    List<String> warnings = new ArrayList<>(r.warnings());
    warnings.addAll(built.warnings());
    return new BrokerConfigFactory.Built(built.config(), built.settings(), warnings);
  }

  /** The typed configuration alone (validated). */
  BrokerConfig config() {
    return resolve().config();
  }

  @Override
  public Integer call() throws InterruptedException {
    BrokerConfigFactory.Built built;
    try {
      built = resolve();
    } catch (IllegalArgumentException e) {
      err().println("sluice server: " + e.getMessage());
      return 2;
    }
    for (String w : built.warnings()) {
      if (printConfig) {
        err().println("sluice server: warning: " + w);   // stdout carries the JSON
      } else {
        log.atWarn().log(w);
      }
    }
    BrokerConfig config = built.config();
    if (printConfig) {
      return printConfig(config, built.settings());
    }
    Broker broker = new Broker(config, built.settings());
    CountDownLatch stopped = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      broker.close();
      stopped.countDown();
    }, "sluice-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      broker.start();
    } catch (SluiceException | IllegalStateException | IllegalArgumentException | java.io.UncheckedIOException e) {
      err().println("sluice server: cannot start: " + e.getMessage());
      Runtime.getRuntime().removeShutdownHook(hook);
      broker.close();
      return 1;
    }
    log.atInfo().addKeyValue("grpcAddress", broker.eventService().identity().grpcAddress())
        .addKeyValue("grpcListen", broker.eventService().listenAddress())
        .addKeyValue("adminUrl", broker.adminUrl())
        .addKeyValue("upstream", broker.upstream().displayUrl()).addKeyValue("slot", config.capture().slotName())
        .addKeyValue("publication", config.capture().publicationName())
        .addKeyValue("ddlCapture", broker.captureStatus().mode()).addKeyValue("dataDir", config.dataDir())
        .addKeyValue("walDir", config.eventStore().effectiveWalDir())
        .addKeyValue("configFile", configFile == null ? "none" : configFile.toString())
        .log("sluice server running; stop with Ctrl-C or SIGTERM");
    stopped.await();
    return 0;
  }

  private PrintStream err() {
    return err != null ? err : System.err;
  }

  private PrintStream out() {
    return out != null ? out : System.out;
  }

  private int printConfig(BrokerConfig config, ResolvedSettings settings) {
    try {
      // the runtime changes kept in the data directory are shown too; nothing is written
      LiveConfig live = LiveConfig.preview(config, settings, config.configDir());
      JsonObject view = live.view(live.limits());
      out().println(view.encodePrettily());
      return 0;
    } catch (IllegalStateException | java.io.UncheckedIOException e) {
      err().println("sluice server: " + e.getMessage());
      return 1;
    }
  }
}
