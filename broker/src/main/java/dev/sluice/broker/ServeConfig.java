package dev.sluice.broker;

import dev.sluice.broker.control.EventServiceConfig;
import java.util.Objects;

/**
 * Where and how a broker node serves: the gRPC event service and the admin HTTP API.
 *
 * <pre>{@code
 * ServeConfig serve = ServeConfig.defaults();            // 127.0.0.1:8300 (gRPC) and :8301 (admin)
 * ServeConfig tests = ServeConfig.ephemeral();           // free ports
 * }</pre>
 *
 * @param bindHost     interface both listen on (default {@value #DEFAULT_BIND_HOST})
 * @param grpcPort     gRPC port of the event service, 0 = any free port (default {@value #DEFAULT_GRPC_PORT})
 * @param adminPort    admin HTTP port, 0 = any free port (default {@value #DEFAULT_ADMIN_PORT})
 * @param eventService the event service's configuration
 */
public record ServeConfig(String bindHost, int grpcPort, int adminPort, EventServiceConfig eventService) {

  public static final String DEFAULT_BIND_HOST = "127.0.0.1";
  public static final int DEFAULT_GRPC_PORT = 8300;
  public static final int DEFAULT_ADMIN_PORT = 8301;

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
  }

  public static ServeConfig defaults() {
    return new ServeConfig(DEFAULT_BIND_HOST, DEFAULT_GRPC_PORT, DEFAULT_ADMIN_PORT, EventServiceConfig.defaults());
  }

  /** Free ports on the loopback interface: for tests and embedded use. */
  public static ServeConfig ephemeral() {
    return new ServeConfig(DEFAULT_BIND_HOST, 0, 0, EventServiceConfig.defaults());
  }

  public ServeConfig withPorts(String host, int grpc, int admin) {
    return new ServeConfig(host, grpc, admin, eventService);
  }

  public ServeConfig withEventService(EventServiceConfig c) {
    return new ServeConfig(bindHost, grpcPort, adminPort, c);
  }
}
