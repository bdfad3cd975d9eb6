package dev.sluice.broker.cli;

import picocli.CommandLine.Option;

/**
 * Options every admin client command shares: which server, and raw JSON output.
 *
 * <pre>{@code
 * sluice changefeed list --server http://10.0.0.5:8301 --json
 * }</pre>
 */
public final class AdminOptions {

  public static final String DEFAULT_SERVER = "http://127.0.0.1:8301";

  @Option(names = "--server", defaultValue = DEFAULT_SERVER, paramLabel = "URL",
      description = "Admin API of the broker (default: ${DEFAULT-VALUE}).")
  String server;

  @Option(names = "--json", description = "Print the server's JSON answer as is.")
  boolean json;

  AdminClient client() {
    return AdminClient.of(server);
  }
}
