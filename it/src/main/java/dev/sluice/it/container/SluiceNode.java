package dev.sluice.it.container;

import dev.sluice.testing.containers.LocalContainer;
import dev.sluice.testing.containers.TestImage;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.testcontainers.containers.Network;
import org.testcontainers.utility.MountableFile;

/**
 * A Sluice node in a container of the image {@code it/docker/node}: the broker of this checkout
 * ({@link BrokerDistribution}, copied in when the container is created) run as {@code sluice <args>}. The
 * node serves gRPC on {@value #GRPC_PORT} and the admin API on {@value #ADMIN_PORT} inside its network,
 * under its name; both are published on 127.0.0.1 at ports chosen before it starts and kept across
 * {@link #cutOff()} and {@link #heal()}, so the arguments can advertise them ({@link Addresses}). Ready once
 * it logs "sluice server running".
 *
 * <pre>{@code
 * SluiceNode node = new SluiceNode(net, "node-1", a -> List.of("server", "--upstream", pg.networkJdbcUrl(),
 *     "--bind", "0.0.0.0", "--insecure", "--advertise-address", a.grpcHostAddress()));   // the test's own network
 * node.start();
 * }</pre>
 */
public final class SluiceNode extends LocalContainer<SluiceNode> {

  public static final int GRPC_PORT = 8300;
  public static final int ADMIN_PORT = 8301;
  /** The node's working directory, its user's home: a data directory under it is the node's own. */
  public static final String HOME = "/var/lib/sluice";

  private static final Pattern READY = Pattern.compile("sluice server running");
  /**
   * Small heaps, the serial collector and C1 only: several nodes share 2 cores. A 1 s DNS cache: after
   * {@link #heal()} a peer's address may have changed, and its name must resolve to the new one.
   */
  static final String JVM_OPTIONS = "-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dsun.net.inetaddr.ttl=1";

  /**
   * The addresses of a node, for its arguments.
   *
   * @param name               its name and network alias
   * @param grpcHostAddress    {@code 127.0.0.1:<port>}: where the test (a client on the host) reaches its gRPC port
   * @param adminHostAddress   {@code 127.0.0.1:<port>}: its admin API, from the host
   * @param grpcNetworkAddress {@code <name>:8300}: its gRPC port, from the other containers of the network
   */
  public record Addresses(String name, String grpcHostAddress, String adminHostAddress, String grpcNetworkAddress) {}

  private final Function<Addresses, List<String>> args;

  /**
   * @param name the node's name, its alias in {@code network}
   * @param args the arguments of {@code sluice}, from the node's addresses (e.g. {@code server ...}, or
   *             {@code server --cluster-join ...} for a cluster node)
   */
  public SluiceNode(Network network, String name, Function<Addresses, List<String>> args) {
    super(TestImage.of("node"), network, name, READY);
    this.args = Objects.requireNonNull(args, "args");
    publishAtFixedPort(GRPC_PORT);
    publishAtFixedPort(ADMIN_PORT);
    withEnv("JAVA_TOOL_OPTIONS", JVM_OPTIONS);
    BrokerDistribution broker = BrokerDistribution.locate();
    withCopyFileToContainer(MountableFile.forHostPath(broker.jar()), "/opt/sluice/sluice.jar");
    broker.lib().ifPresent(lib -> withCopyFileToContainer(MountableFile.forHostPath(lib), "/opt/sluice/lib"));
  }

  @Override
  protected void configure() {
    super.configure();   // chooses the host ports the arguments may advertise
    withCommand(args.apply(addresses()).toArray(String[]::new));
  }

  public Addresses addresses() {
    return new Addresses(alias(), hostAddress(GRPC_PORT), hostAddress(ADMIN_PORT), networkAddress(GRPC_PORT));
  }

  /** {@code 127.0.0.1:<port>} of its gRPC port. */
  public String grpcAddress() {
    return hostAddress(GRPC_PORT);
  }

  /** {@code http://127.0.0.1:<port>} of its admin API. */
  public String adminUrl() {
    return "http://" + hostAddress(ADMIN_PORT);
  }
}
