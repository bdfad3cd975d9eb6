package dev.sluice.broker;

import dev.sluice.broker.capture.CaptureConfig;
import dev.sluice.broker.changefeed.ChangefeedConfig;
import dev.sluice.broker.cluster.ClusterConfig;
import dev.sluice.broker.security.SecurityConfig;
import dev.sluice.broker.store.EventStoreConfig;
import dev.sluice.broker.upstream.DemoWorkloadConfig;
import dev.sluice.broker.upstream.UpstreamConfig;
import dev.sluice.schema.SchemaStoreConfig;
import java.nio.file.Path;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Everything one broker node needs to start: who it is, where it keeps data, what it captures, how it
 * serves, stores and hosts changefeeds. {@code sluice server} builds it from the configuration file, the
 * environment and its flags ({@code dev.sluice.broker.config}, docs/CONFIG.md).
 *
 * <pre>{@code
 * BrokerConfig c = BrokerConfig.embedded("node-1", Path.of("data"));   // embedded PostgreSQL, no workload
 * BrokerConfig bigger = c.withEventStore(c.eventStore().withBlockCacheBytes(1L << 30));
 * }</pre>
 *
 * @param nodeId       node identity (default {@value #DEFAULT_NODE_ID}); names the replication slot
 * @param dataDir      data directory: {@code events/}, {@code schema/} and, when embedded, {@code upstream/}
 * @param upstream     the upstream to capture (embedded or external)
 * @param capture      capture settings
 * @param demoWorkload write the demo workload into the upstream (embedded upstream only)
 * @param demo         the demo workload's pace
 * @param serve        where the event service and the admin API listen
 * @param eventStore   the RocksDB event store's tuning; its directory is always {@code dataDir/events}, its WAL
 *                     there too unless {@code eventStore.walDir} names another
 * @param schemaStore  the schema store's settings; its directory is always {@code dataDir/schema}
 * @param changefeeds  how hosted changefeeds are retried, deleted and checkpointed
 * @param security     TLS, principals and their roles, {@code --insecure} (default: none, loopback only)
 * @param cluster      the cluster to join, or standalone ({@link ClusterConfig#standalone()}); its bind host is
 *                     always {@code serve}'s
 */
public record BrokerConfig(String nodeId, Path dataDir, UpstreamConfig upstream, CaptureConfig capture,
    boolean demoWorkload, DemoWorkloadConfig demo, ServeConfig serve, EventStoreConfig eventStore,
    SchemaStoreConfig schemaStore, ChangefeedConfig changefeeds, SecurityConfig security, ClusterConfig cluster) {

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
    Objects.requireNonNull(eventStore, "eventStore");
    Objects.requireNonNull(schemaStore, "schemaStore");
    Objects.requireNonNull(changefeeds, "changefeeds");
    Objects.requireNonNull(security, "security");
    Objects.requireNonNull(cluster, "cluster");
    // the stores live under the data directory, whatever directory the given records named
    eventStore = eventStore.withDataDir(dataDir.resolve("events"));
    schemaStore = new SchemaStoreConfig(dataDir.resolve("schema"), schemaStore.cacheMaxEntries(),
        schemaStore.syncWrites());
    if (!NODE_ID.matcher(nodeId).matches()) {
      throw new IllegalArgumentException("nodeId must be 1-63 of [A-Za-z0-9_.-] starting with a letter or digit,"
          + " got '" + nodeId + "'");
    }
    if (demoWorkload && !upstream.isEmbedded()) {
      throw new IllegalArgumentException("demoWorkload writes into the embedded upstream only; drop --demo-workload"
          + " or --upstream " + upstream.displayUrl());
    }
  }

  /** A node without TLS or authentication (loopback only, see {@code BindPolicy}). */
  public BrokerConfig(String nodeId, Path dataDir, UpstreamConfig upstream, CaptureConfig capture,
      boolean demoWorkload, DemoWorkloadConfig demo, ServeConfig serve, EventStoreConfig eventStore,
      SchemaStoreConfig schemaStore, ChangefeedConfig changefeeds) {
    this(nodeId, dataDir, upstream, capture, demoWorkload, demo, serve, eventStore, schemaStore, changefeeds,
        SecurityConfig.none(), ClusterConfig.standalone());
  }

  /** Default store and changefeed settings, secured as {@code security} says. */
  public BrokerConfig(String nodeId, Path dataDir, UpstreamConfig upstream, CaptureConfig capture,
      boolean demoWorkload, DemoWorkloadConfig demo, ServeConfig serve, SecurityConfig security) {
    this(nodeId, dataDir, upstream, capture, demoWorkload, demo, serve, EventStoreConfig.defaults(dataDir),
        SchemaStoreConfig.at(dataDir), ChangefeedConfig.defaults(), security, ClusterConfig.standalone());
  }

  /** A node of the cluster {@code cluster} (or standalone), without TLS or authentication. */
  public BrokerConfig(String nodeId, Path dataDir, UpstreamConfig upstream, CaptureConfig capture,
      boolean demoWorkload, DemoWorkloadConfig demo, ServeConfig serve, EventStoreConfig eventStore,
      SchemaStoreConfig schemaStore, ChangefeedConfig changefeeds, ClusterConfig cluster) {
    this(nodeId, dataDir, upstream, capture, demoWorkload, demo, serve, eventStore, schemaStore, changefeeds,
        SecurityConfig.none(), cluster);
  }

  /** Default store and changefeed settings. */
  public BrokerConfig(String nodeId, Path dataDir, UpstreamConfig upstream, CaptureConfig capture,
      boolean demoWorkload, DemoWorkloadConfig demo, ServeConfig serve) {
    this(nodeId, dataDir, upstream, capture, demoWorkload, demo, serve, EventStoreConfig.defaults(dataDir),
        SchemaStoreConfig.at(dataDir), ChangefeedConfig.defaults());
  }

  /** A node serving on free ports ({@link ServeConfig#ephemeral()}). */
  public BrokerConfig(String nodeId, Path dataDir, UpstreamConfig upstream, CaptureConfig capture,
      boolean demoWorkload, DemoWorkloadConfig demo) {
    this(nodeId, dataDir, upstream, capture, demoWorkload, demo, ServeConfig.ephemeral());
  }

  public BrokerConfig withServe(ServeConfig s) {
    return new BrokerConfig(nodeId, dataDir, upstream, capture, demoWorkload, demo, s, eventStore, schemaStore,
        changefeeds, security, cluster);
  }

  public BrokerConfig withEventStore(EventStoreConfig c) {
    return new BrokerConfig(nodeId, dataDir, upstream, capture, demoWorkload, demo, serve, c, schemaStore,
        changefeeds, security, cluster);
  }

  public BrokerConfig withSchemaStore(SchemaStoreConfig c) {
    return new BrokerConfig(nodeId, dataDir, upstream, capture, demoWorkload, demo, serve, eventStore, c,
        changefeeds, security, cluster);
  }

  public BrokerConfig withChangefeeds(ChangefeedConfig c) {
    return new BrokerConfig(nodeId, dataDir, upstream, capture, demoWorkload, demo, serve, eventStore, schemaStore,
        c, security, cluster);
  }

  public BrokerConfig withSecurity(SecurityConfig s) {
    return new BrokerConfig(nodeId, dataDir, upstream, capture, demoWorkload, demo, serve, eventStore, schemaStore,
        changefeeds, s, cluster);
  }

  public BrokerConfig withCluster(ClusterConfig c) {
    return new BrokerConfig(nodeId, dataDir, upstream, capture, demoWorkload, demo, serve, eventStore, schemaStore,
        changefeeds, security, c);
  }

  /** Where the node keeps its cluster state (the fencing token floor). */
  public Path clusterDir() {
    return dataDir.resolve("cluster");
  }

  /** Where runtime changes of the configuration are kept ({@code PATCH /api/v1/config}). */
  public Path configDir() {
    return dataDir.resolve("config");
  }

  /** Where the hosted changefeeds' definitions are kept. */
  public Path changefeedsDir() {
    return dataDir.resolve("changefeeds");
  }

  /** The embedded upstream under {@code dataDir/upstream} on the default port, default capture settings. */
  public static BrokerConfig embedded(String nodeId, Path dataDir) {
    return new BrokerConfig(nodeId, dataDir,
        UpstreamConfig.embedded(dataDir.resolve("upstream"), UpstreamConfig.DEFAULT_EMBEDDED_PORT),
        CaptureConfig.defaults(nodeId), false, DemoWorkloadConfig.defaults());
  }

  public Path eventsDir() {
    return eventStore.dataDir();
  }

  public Path schemaDir() {
    return schemaStore.dataDir();
  }
}
