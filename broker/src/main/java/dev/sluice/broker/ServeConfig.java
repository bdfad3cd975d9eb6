package dev.sluice.broker;

import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.dispatcher.BrokerAddress;
import java.util.Objects;
import java.util.Set;

/**
 * Where and how a broker node serves: the gRPC event service and the admin HTTP API, and the addresses
 * it announces (GetTopology, {@code /api/v1/members}) when clients reach it by another address than
 * the one it listens on (NAT, a proxy, a Kubernetes service).
 *
 * <pre>{@code
 * ServeConfig serve = ServeConfig.defaults();            // 127.0.0.1:8300 (gRPC) and :8301 (admin)
 * ServeConfig tests = ServeConfig.ephemeral();           // free ports
 * ServeConfig nat = new ServeConfig("0.0.0.0", 8300, 8301, BrokerAddress.parse("broker-1.example.com:18300"), null,
 *     EventServiceConfig.defaults());
 * }</pre>
 *
 * @param bindHost        interface both listen on (default {@value #DEFAULT_BIND_HOST})
 * @param grpcPort        gRPC port of the event service, 0 = any free port (default {@value #DEFAULT_GRPC_PORT})
 * @param adminPort       admin HTTP port, 0 = any free port (default {@value #DEFAULT_ADMIN_PORT})
 * @param advertisedGrpc  gRPC address announced to clients; null = {@code bindHost:<gRPC port>}; required
 *                        when {@code bindHost} is a wildcard
 * @param advertisedAdmin admin address announced; null = the advertised gRPC host (or {@code bindHost})
 *                        with the admin port
 * @param eventService    the event service's configuration
 */
public record ServeConfig(String bindHost, int grpcPort, int adminPort, BrokerAddress advertisedGrpc,
    BrokerAddress advertisedAdmin, EventServiceConfig eventService) {

  public static final String DEFAULT_BIND_HOST = "127.0.0.1";
  public static final int DEFAULT_GRPC_PORT = 8300;
  public static final int DEFAULT_ADMIN_PORT = 8301;
  private static final Set<String> WILDCARDS = Set.of("0.0.0.0", "::", "[::]", "0:0:0:0:0:0:0:0");

  public ServeConfig {
    Objects.requireNonNull(bindHost, "bindHost");
    Objects.requireNonNull(eventService, "eventService");
    if (grpcPort < 0 || grpcPort > 65535) {
      throw new IllegalArgumentException("grpcPort must be in [0, 65535], got " + grpcPort);
    }
    if (adminPort < 0 || adminPort > 65535) {
      throw new IllegalArgumentException("adminPort must be in [0, 65535], got " + adminPort);
    }
    if (grpcPort != 0 && grpcPort == adminPort) {
      throw new IllegalArgumentException("grpcPort and adminPort must differ, both are " + grpcPort);
    }
    // collectors connect to what GetTopology names: a wildcard there would send them to their own host
    if (isWildcard(bindHost) && advertisedGrpc == null) {
      throw new IllegalArgumentException("--bind " + bindHost + " listens on every interface, so there is no single"
          + " address to announce to clients: add --advertise-address <host>:<port>, the address clients reach this"
          + " node's gRPC port at");
    }
    if (advertisedGrpc != null && isWildcard(advertisedGrpc.host())) {
      throw new IllegalArgumentException("--advertise-address " + advertisedGrpc + " is a wildcard; name the host or IP"
          + " clients connect to");
    }
    if (advertisedAdmin != null && isWildcard(advertisedAdmin.host())) {
      throw new IllegalArgumentException("--advertise-admin-address " + advertisedAdmin + " is a wildcard; name the host"
          + " or IP clients connect to");
    }
  }

  public static ServeConfig defaults() {
    return new ServeConfig(DEFAULT_BIND_HOST, DEFAULT_GRPC_PORT, DEFAULT_ADMIN_PORT, null, null,
        EventServiceConfig.defaults());
  }

  /** Free ports on the loopback interface: for tests and embedded use. */
  public static ServeConfig ephemeral() {
    return new ServeConfig(DEFAULT_BIND_HOST, 0, 0, null, null, EventServiceConfig.defaults());
  }

  public ServeConfig withPorts(String host, int grpc, int admin) {
    return new ServeConfig(host, grpc, admin, advertisedGrpc, advertisedAdmin, eventService);
  }

  /** The addresses to announce instead of the listening ones; either may be null (derived). */
  public ServeConfig withAdvertised(BrokerAddress grpc, BrokerAddress admin) {
    return new ServeConfig(bindHost, grpcPort, adminPort, grpc, admin, eventService);
  }

  public ServeConfig withEventService(EventServiceConfig c) {
    return new ServeConfig(bindHost, grpcPort, adminPort, advertisedGrpc, advertisedAdmin, c);
  }

  /** The gRPC address announced once the listener got {@code actualPort}. */
  public String announcedGrpcAddress(int actualPort) {
    return (advertisedGrpc != null ? advertisedGrpc : new BrokerAddress(bindHost, actualPort)).toString();
  }

  /** The admin address announced once the admin API got {@code actualPort}. */
  public String announcedAdminAddress(int actualPort) {
    if (advertisedAdmin != null) {
      return advertisedAdmin.toString();
    }
    return new BrokerAddress(advertisedGrpc != null ? advertisedGrpc.host() : bindHost, actualPort).toString();
  }

  /** {@code host} listens on every interface. */
  public static boolean isWildcard(String host) {
    return WILDCARDS.contains(host);
  }
}
