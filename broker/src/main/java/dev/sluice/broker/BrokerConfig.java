package dev.sluice.broker;

import dev.sluice.broker.capture.CaptureConfig;
import dev.sluice.broker.upstream.DemoWorkloadConfig;
import dev.sluice.broker.upstream.UpstreamConfig;
import java.nio.file.Path;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Everything one broker node needs to start: who it is, where it keeps data, what it captures.
 *
 * <pre>{@code
 * BrokerConfig c = BrokerConfig.embedded("node-1", Path.of("data"));   // embedded PostgreSQL, no workload
 * }</pre>
 *
 * @param nodeId       node identity (default {@value #DEFAULT_NODE_ID}); names the replication slot
 * @param dataDir      data directory: {@code events/}, {@code schema/} and, when embedded, {@code upstream/}
 * @param upstream     the upstream to capture (embedded or external)
 * @param capture      capture settings
 * @param demoWorkload write the demo workload into the upstream (embedded upstream only)
 * @param demo         the demo workload's pace
 * @param serve        where the event service and the admin API listen
 */
public record BrokerConfig(String nodeId, Path dataDir, UpstreamConfig upstream, CaptureConfig capture,
    boolean demoWorkload, DemoWorkloadConfig demo, ServeConfig serve) {

  public static final String DEFAULT_NODE_ID = "node-1";
  public static final Path DEFAULT_DATA_DIR = Path.of("data");
  private static final Pattern NODE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");

  public BrokerConfig {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(upstream, "upstream");
    Objects.requireNonNull(capture, "capture");
    Objects.requireNonNull(demo, "demo");
    Objects.requireNonNull(serve, "serve");
    if (!NODE_ID.matcher(nodeId).matches()) {
      throw new IllegalArgumentException("nodeId must be 1-63 of [A-Za-z0-9_.-] starting with a letter or digit,"
          + " got '" + nodeId + "'");
    }
    if (demoWorkload && !upstream.isEmbedded()) {
      throw new IllegalArgumentException("demoWorkload writes into the embedded upstream only; drop --demo-workload"
          + " or --upstream " + upstream.displayUrl());
    }
  }

  /** A node serving on free ports ({@link ServeConfig#ephemeral()}). */
  public BrokerConfig(String nodeId, Path dataDir, UpstreamConfig upstream, CaptureConfig capture,
      boolean demoWorkload, DemoWorkloadConfig demo) {
    this(nodeId, dataDir, upstream, capture, demoWorkload, demo, ServeConfig.ephemeral());
  }

  public BrokerConfig withServe(ServeConfig s) {
    return new BrokerConfig(nodeId, dataDir, upstream, capture, demoWorkload, demo, s);
  }

  /** The embedded upstream under {@code dataDir/upstream} on the default port, default capture settings. */
  public static BrokerConfig embedded(String nodeId, Path dataDir) {
    return new BrokerConfig(nodeId, dataDir,
        UpstreamConfig.embedded(dataDir.resolve("upstream"), UpstreamConfig.DEFAULT_EMBEDDED_PORT),
        CaptureConfig.defaults(nodeId), false, DemoWorkloadConfig.defaults());
  }

  public Path eventsDir() {
    return dataDir.resolve("events");
  }

  public Path schemaDir() {
    return dataDir.resolve("schema");
  }
}
