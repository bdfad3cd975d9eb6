package dev.sluice.broker.cli;

import java.net.URI;
import java.time.Duration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Options every admin client command shares: which server, its TLS and the token, and raw JSON output.
 *
 * <pre>{@code
 * sluice changefeed list --server http://10.0.0.5:8301 --json
 * sluice changefeed list --server https://broker-1:8301 --tls-ca ca.pem --token-file ~/.sluice/token
 * }</pre>
 */
public final class AdminOptions {

  public static final String DEFAULT_SERVER = "http://127.0.0.1:8301";

  @Option(names = "--server", defaultValue = DEFAULT_SERVER, paramLabel = "URL", converter = ServerUrlConverter.class,
      description = "Admin API of the broker, http://host:port or https://host:port (default: ${DEFAULT-VALUE}).")
  URI server;

  @Mixin
  ClientSecurityOptions security;

  @Option(names = "--json", description = "Print the server's JSON answer as is.")
  boolean json;

  AdminClient client() {
    return AdminClient.of(server.toString(), Duration.ofSeconds(30), security.security(server.getScheme()
        .equals("https")));
  }
}
