package dev.sluice.it;

import dev.sluice.broker.SluiceCommand;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A broker node in its own JVM: {@code sluice server} ({@link SluiceCommand}) from this JVM's
 * classpath, capturing an external upstream PostgreSQL into its own data directory and serving gRPC on
 * a fixed loopback port, so that a restart after {@link #kill9()} is found again at the same address.
 * Ready once it logged "sluice server running" (capture started, gRPC listening).
 *
 * <pre>{@code
 * try (BrokerProcess b = BrokerProcess.start("broker-1", BrokerProcess.options(dir, upstream), logs)) {
 *   b.kill9();
 *   b.restart();   // same data dir, same port: capture resumes from its stored position
 * }
 * }</pre>
 */
public final class BrokerProcess implements AutoCloseable {

  /**
   * How to run the broker.
   *
   * @param dataDir           events/ and schema/ live here; kept across restarts
   * @param upstreamJdbcUrl   the PostgreSQL to capture
   * @param nodeId            node id; names the replication slot ({@code sluice_<node id>})
   * @param grpcPort          fixed gRPC port
   * @param heartbeatInterval how often an idle upstream moves the resolved ts
   * @param jvmArgs           e.g. {@code -Xmx512m}
   * @param advertiseAddress  {@code host:port} the broker announces to collectors (a proxy in front of it), or null
   * @param adminPort         fixed admin API port (kept across restarts)
   * @param extraArgs         more {@code sluice server} arguments (the cluster flags of a cluster node)
   */
  public record Options(Path dataDir, String upstreamJdbcUrl, String nodeId, int grpcPort, Duration heartbeatInterval,
      List<String> jvmArgs, String advertiseAddress, int adminPort, List<String> extraArgs) {

    public Options withJvmArgs(List<String> args) {
      return new Options(dataDir, upstreamJdbcUrl, nodeId, grpcPort, heartbeatInterval, List.copyOf(args),
          advertiseAddress, adminPort, extraArgs);
    }

    public Options withNodeId(String id) {
      return new Options(dataDir, upstreamJdbcUrl, id, grpcPort, heartbeatInterval, jvmArgs, advertiseAddress,
          adminPort, extraArgs);
    }

    /** Collectors that learn the broker from GetTopology are sent to {@code address} (e.g. a fault proxy). */
    public Options withAdvertiseAddress(String address) {
      return new Options(dataDir, upstreamJdbcUrl, nodeId, grpcPort, heartbeatInterval, jvmArgs, address, adminPort,
          extraArgs);
    }

    /** More server arguments, e.g. {@code --cluster-join ...}. */
    public Options withExtraArgs(List<String> args) {
      return new Options(dataDir, upstreamJdbcUrl, nodeId, grpcPort, heartbeatInterval, jvmArgs, advertiseAddress,
          adminPort, List.copyOf(args));
    }
  }

  /** Defaults for tests: node "it", free ports, 50 ms heartbeats, a 768 MiB heap. */
  public static Options options(Path dataDir, PostgresServer upstream) {
    return options(dataDir, upstream.jdbcUrl());
  }

  /** The same defaults for an upstream at {@code jdbcUrl} (user postgres, no password). */
  public static Options options(Path dataDir, String jdbcUrl) {
    return new Options(dataDir, jdbcUrl, "it", LoopbackPorts.free(), Duration.ofMillis(50), List.of("-Xmx768m"), null,
        LoopbackPorts.free(), List.of());
  }

  /** What Hazelcast asks for on Java 17 (TOOLCHAIN.md G8); the sluice.jar manifest carries the same. */
  public static final List<String> HAZELCAST_JVM_FLAGS = List.of("--add-modules", "java.se", "--add-exports",
      "java.base/jdk.internal.ref=ALL-UNNAMED", "--add-opens", "java.base/java.lang=ALL-UNNAMED", "--add-opens",
      "java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens", "java.management/sun.management=ALL-UNNAMED", "--add-opens",
      "jdk.management/com.sun.management.internal=ALL-UNNAMED");

  private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);

  private final String name;
  private final Options options;
  private final Path logDir;
  private ChildJvm jvm;
  private int starts;

  private BrokerProcess(String name, Options options, Path logDir) {
    this.name = name;
    this.options = options;
    this.logDir = logDir;
  }

  /** Starts the broker and waits until it serves. */
  public static BrokerProcess start(String name, Options options, Path logDir) {
    BrokerProcess b = new BrokerProcess(name, options, logDir);
    b.launch();
    return b;
  }

  private void launch() {
    List<String> jvmArgs = new ArrayList<>(options.jvmArgs());
    jvmArgs.add("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));
    if (!options.extraArgs().isEmpty()) {
      jvmArgs.addAll(HAZELCAST_JVM_FLAGS);
    }
    List<String> args = new ArrayList<>(List.of("server", "--data-dir", options.dataDir().toString(),
        "--upstream", options.upstreamJdbcUrl(), "--upstream-user", "postgres", "--node-id", options.nodeId(),
        "--grpc-port", Integer.toString(options.grpcPort()), "--admin-port", Integer.toString(options.adminPort()),
        "--heartbeat-interval", options.heartbeatInterval().toString()));
    if (options.advertiseAddress() != null) {
      args.addAll(List.of("--advertise-address", options.advertiseAddress()));
    }
    args.addAll(options.extraArgs());
    starts++;
    jvm = ChildJvm.start(name, SluiceCommand.class.getName(), System.getProperty("java.class.path"), jvmArgs, args,
        logDir);
    try {
      jvm.awaitOutput("sluice server running", READY_TIMEOUT);
    } catch (RuntimeException e) {
      jvm.kill9();
      throw e;
    }
  }

  public String grpcAddress() {
    return "127.0.0.1:" + options.grpcPort();
  }

  public int grpcPort() {
    return options.grpcPort();
  }

  /** {@code http://127.0.0.1:<admin port>}: this node's admin API, reached directly. */
  public String adminUrl() {
    return "http://127.0.0.1:" + options.adminPort();
  }

  public String nodeId() {
    return options.nodeId();
  }

  /** Greps the log of every life of this process for {@code fragment}; the lines found. */
  public List<String> logLines(String fragment) {
    List<String> out = new ArrayList<>();
    try (var files = java.nio.file.Files.list(logDir)) {
      for (Path f : files.filter(f -> f.getFileName().toString().startsWith(name + ".")
          || f.getFileName().toString().startsWith(name + "-")).toList()) {
        for (String line : java.nio.file.Files.readAllLines(f)) {
          if (line.contains(fragment)) {
            out.add(line);
          }
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out;
  }


  public long pid() {
    return jvm.pid();
  }

  public boolean isAlive() {
    return jvm.isAlive();
  }

  /** The log of the current life of the process. */
  public Path log() {
    return jvm.log();
  }

  /** How many times the process was started. */
  public int starts() {
    return starts;
  }

  /** SIGKILL: no shutdown hook runs, the stores are not closed. */
  public void kill9() {
    jvm.kill9();
  }

  /** Starts the process again on the same data dir and port (after {@link #kill9()} or {@link #stop()}). */
  public void restart() {
    if (jvm.isAlive()) {
      throw new IllegalStateException(name + " is still running (pid " + jvm.pid() + ")");
    }
    launch();
  }

  /** SIGTERM, waiting for a graceful stop. */
  public void stop() {
    jvm.close();
  }

  /** Heap in use right after a full GC of the broker (jcmd), bytes. */
  public long heapUsedAfterGc() {
    return JvmHeap.usedAfterGc(jvm.pid());
  }

  @Override
  public void close() {
    if (jvm != null) {
      jvm.close();
    }
  }
}
