package dev.sluice.broker;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice server}: runs one broker node. */
@Command(name = "server", mixinStandardHelpOptions = true,
    description = "Run a broker node (capture, event store, event service, admin API).")
final class ServerCommand implements Callable<Integer> {

  @Option(names = "--demo-workload", description = "Write a steady demo workload into the embedded upstream.")
  boolean demoWorkload;

  @Override
  public Integer call() {
    System.out.println("""
        sluice server: the broker is not built yet (issue #4). When it is, this command will:
          1. start an embedded PostgreSQL 17 under ./data/upstream (wal_level=logical),
          2. capture its logical replication stream into a RocksDB event store under ./data/broker,
          3. serve dispatchers over gRPC on 127.0.0.1:8300 and the admin HTTP API on 127.0.0.1:8301.""");
    return 0;
  }
}
