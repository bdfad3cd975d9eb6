package dev.sluice.broker.config;

import static dev.sluice.broker.config.SettingType.BOOLEAN;
import static dev.sluice.broker.config.SettingType.DOUBLE;
import static dev.sluice.broker.config.SettingType.DURATION;
import static dev.sluice.broker.config.SettingType.INT;
import static dev.sluice.broker.config.SettingType.INT_BYTES;
import static dev.sluice.broker.config.SettingType.LONG;
import static dev.sluice.broker.config.SettingType.LONG_BYTES;
import static dev.sluice.broker.config.SettingType.PATH;
import static dev.sluice.broker.config.SettingType.STRING;

import dev.sluice.broker.BrokerConfig;
import dev.sluice.broker.ServeConfig;
import dev.sluice.broker.capture.CaptureConfig;
import dev.sluice.broker.changefeed.ChangefeedConfig;
import dev.sluice.broker.cluster.ClusterConfig;
import dev.sluice.broker.control.ConnectionLimits;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.control.EventServiceLimits;
import dev.sluice.broker.security.TlsConfig;
import dev.sluice.broker.snapshot.SnapshotConfig;
import dev.sluice.broker.store.EventStoreConfig;
import dev.sluice.broker.upstream.DemoWorkloadConfig;
import dev.sluice.broker.upstream.UpstreamConfig;
import dev.sluice.dispatcher.BrokerAddress;
import dev.sluice.schema.SchemaStoreConfig;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every configuration key of {@code sluice server}, each declared once (Kafka's {@code ConfigDef}
 * habit): name, type, default, the typed-config component it sets, doc, flag. The defaults are the
 * config classes' {@code DEFAULT_*} constants, so code and file agree. docs/CONFIG.md is rendered from
 * this list ({@link ConfigReference}), and a test fails when a component of a typed config class has
 * no key here and is not in {@link #NOT_KEYS}.
 *
 * <pre>{@code
 * ConfigKeys.find("serve.grpcPort");   // Optional[serve.grpcPort]
 * ConfigKeys.all();                    // every key, in the order of this file
 * }</pre>
 */
public final class ConfigKeys {

  private ConfigKeys() {}

  // ---- the node
  public static final Setting<String> NODE_ID = Setting.of("nodeId", STRING, BrokerConfig.DEFAULT_NODE_ID)
      .flag("--node-id").doc("Node identity, 1-63 of [A-Za-z0-9_.-]; names the replication slot.");
  public static final Setting<Path> DATA_DIR = Setting.of("dataDir", PATH, BrokerConfig.DEFAULT_DATA_DIR)
      .flag("--data-dir").doc("Data directory: events/, schema/, changefeeds/, config/ and (embedded) upstream/;"
          + " relative paths are resolved against the working directory.");

  // ---- upstream
  public static final Setting<String> UPSTREAM_URL = Setting.of("upstream.url", STRING, (String) null)
      .path("upstream.jdbcUrl").flag("--upstream").defaultText("(embedded PostgreSQL under <dataDir>/upstream)")
      .doc("JDBC URL of the PostgreSQL 12+ to capture, jdbc:postgresql://host:port/db. Unset: an embedded"
          + " PostgreSQL 17 that the broker starts itself.");
  public static final Setting<String> UPSTREAM_USER = Setting.of("upstream.user", STRING, (String) null)
      .flag("--upstream-user").defaultText("(user= in the URL; embedded: postgres)")
      .doc("Role to connect to the external upstream as.");
  public static final Setting<String> UPSTREAM_PASSWORD = Setting.of("upstream.password", STRING, (String) null)
      .flag("--upstream-password").masked().defaultText("(none, or password= in the URL)")
      .doc("Its password. Prefer upstream.passwordFile or the environment variable: a flag is visible to every"
          + " local user in ps.");
  public static final Setting<Path> UPSTREAM_PASSWORD_FILE = Setting.of("upstream.passwordFile", PATH, (Path) null)
      .path(null).flag("--upstream-password-file").defaultText("(none)")
      .doc("File whose content (one trailing newline dropped) is the password; keep it readable by the broker's"
          + " user only.");
  public static final Setting<Integer> UPSTREAM_EMBEDDED_PORT = Setting.of("upstream.embeddedPort", INT,
      UpstreamConfig.DEFAULT_EMBEDDED_PORT).flag("--embedded-port")
      .doc("Port of the embedded PostgreSQL on 127.0.0.1 (psql -h 127.0.0.1 -p <port> -U postgres).");

  // ---- capture
  public static final Setting<String> CAPTURE_SLOT = Setting.of("capture.slot", STRING, (String) null)
      .path("capture.slotName").flag("--slot").defaultText("sluice_<nodeId>")
      .doc("Logical replication slot; created when missing.");
  public static final Setting<String> CAPTURE_PUBLICATION = Setting.of("capture.publication", STRING,
      CaptureConfig.DEFAULT_PUBLICATION).path("capture.publicationName").flag("--publication")
      .doc("Publication the slot streams; created FOR ALL TABLES when missing.");
  public static final Setting<Duration> CAPTURE_HEARTBEAT_INTERVAL = Setting.of("capture.heartbeatInterval", DURATION,
      CaptureConfig.DEFAULT_HEARTBEAT_INTERVAL).flag("--heartbeat-interval")
      .doc("Period of the heartbeat that moves the resolved ts while the upstream is idle.");
  public static final Setting<Integer> CAPTURE_FRAGMENT_ROWS = Setting.of("capture.fragmentRows", INT,
      CaptureConfig.DEFAULT_FRAGMENT_ROWS).doc("Rows of one open transaction buffered before they are written as a"
          + " fragment.");
  public static final Setting<Long> CAPTURE_FRAGMENT_BYTES = Setting.of("capture.fragmentBytes", LONG_BYTES,
      CaptureConfig.DEFAULT_FRAGMENT_BYTES).doc("Bytes of buffered rows that force a fragment write.");
  public static final Setting<Long> CAPTURE_MEMORY_CAP_BYTES = Setting.of("capture.memoryCapBytes", LONG_BYTES,
      CaptureConfig.DEFAULT_MEMORY_CAP_BYTES).doc("Hard cap on buffered, unwritten row bytes; at least fragmentBytes"
          + " and groupCommitMaxBytes.");
  public static final Setting<Duration> CAPTURE_GROUP_COMMIT_MAX_DELAY = Setting.of("capture.groupCommitMaxDelay",
      DURATION, CaptureConfig.DEFAULT_GROUP_COMMIT_MAX_DELAY).doc("How long committed transactions may wait for"
          + " others before their synced batch is written (0 = no wait).");
  public static final Setting<Long> CAPTURE_GROUP_COMMIT_MAX_BYTES = Setting.of("capture.groupCommitMaxBytes",
      LONG_BYTES, CaptureConfig.DEFAULT_GROUP_COMMIT_MAX_BYTES).doc("A synced batch is written once it holds this"
          + " many bytes.");
  public static final Setting<Duration> CAPTURE_STATUS_INTERVAL = Setting.of("capture.statusInterval", DURATION,
      CaptureConfig.DEFAULT_STATUS_INTERVAL).doc("How often the flush position is reported to PostgreSQL.");
  public static final Setting<Duration> CAPTURE_RETRY_INITIAL_BACKOFF = Setting.of("capture.retryInitialBackoff",
      DURATION, CaptureConfig.DEFAULT_RETRY_INITIAL_BACKOFF).doc("First wait after the upstream became"
          + " unreachable; doubles per attempt.");
  public static final Setting<Duration> CAPTURE_RETRY_MAX_BACKOFF = Setting.of("capture.retryMaxBackoff", DURATION,
      CaptureConfig.DEFAULT_RETRY_MAX_BACKOFF).doc("Cap of that wait.");
  public static final Setting<Boolean> CAPTURE_INSTALL_DDL_TRIGGER = Setting.of("capture.installDdlTrigger", BOOLEAN,
      true).doc("Try to install the DDL event trigger; false forces the Relation-message fallback mode"
          + " (docs/CAPTURE.md).");

  // ---- serving
  public static final Setting<String> SERVE_BIND = Setting.of("serve.bind", STRING, ServeConfig.DEFAULT_BIND_HOST)
      .path("serve.bindHost").flag("--bind").doc("Interface the gRPC and admin ports listen on; a wildcard"
          + " (0.0.0.0, ::) needs serve.advertiseAddress.");
  public static final Setting<Integer> SERVE_GRPC_PORT = Setting.of("serve.grpcPort", INT,
      ServeConfig.DEFAULT_GRPC_PORT).flag("--grpc-port").doc("gRPC port of the event service, 0 = any free port.");
  public static final Setting<Integer> SERVE_ADMIN_PORT = Setting.of("serve.adminPort", INT,
      ServeConfig.DEFAULT_ADMIN_PORT).flag("--admin-port").doc("Admin HTTP port, 0 = any free port.");
  public static final Setting<BrokerAddress> SERVE_ADVERTISE_ADDRESS = Setting.of("serve.advertiseAddress",
      SettingType.ADDRESS, (BrokerAddress) null).path("serve.advertisedGrpc").flag("--advertise-address")
      .defaultText("(the listening address)").doc("host:port announced to clients (GetTopology, /api/v1/members)"
          + " when they reach this node by another address (NAT, proxy, Kubernetes service).");
  public static final Setting<BrokerAddress> SERVE_ADVERTISE_ADMIN_ADDRESS = Setting.of("serve.advertiseAdminAddress",
      SettingType.ADDRESS, (BrokerAddress) null).path("serve.advertisedAdmin").flag("--advertise-admin-address")
      .defaultText("(the advertised gRPC host with serve.adminPort)").doc("Admin API host:port announced.");

  // ---- event service (set at start)
  private static final String ES = "serve.eventService.";
  public static final Setting<Integer> ES_DATA_PLANE_INSTANCES = Setting.of("eventService.dataPlaneInstances", INT,
      EventServiceConfig.DEFAULT_DATA_PLANE_INSTANCES).path(ES + "dataPlaneInstances")
      .doc("Data-plane verticles, 1-64; dispatchers are hash-partitioned over them.");
  public static final Setting<Integer> ES_MAX_MESSAGE_BYTES = Setting.of("eventService.maxMessageBytes", INT_BYTES,
      EventServiceConfig.DEFAULT_MAX_MESSAGE_BYTES).path(ES + "maxMessageBytes")
      .doc("Largest message accepted from a collector, at least 64KiB.");
  public static final Setting<Duration> ES_RESOLVED_FLUSH_INTERVAL = Setting.of("eventService.resolvedFlushInterval",
      DURATION, EventServiceConfig.DEFAULT_RESOLVED_FLUSH_INTERVAL).path(ES + "resolvedFlushInterval")
      .doc("How often coalesced Resolved watermarks are flushed, at most 50ms.");
  public static final Setting<Duration> ES_IDLE_RESOLVED_INTERVAL = Setting.of("eventService.idleResolvedInterval",
      DURATION, EventServiceConfig.DEFAULT_IDLE_RESOLVED_INTERVAL).path(ES + "idleResolvedInterval")
      .doc("How often an idle dispatcher gets a new watermark.");
  public static final Setting<Duration> ES_TICK_INTERVAL = Setting.of("eventService.tickInterval", DURATION,
      EventServiceConfig.DEFAULT_TICK_INTERVAL).path(ES + "tickInterval").doc("Data-plane scheduling tick.");
  public static final Setting<Duration> ES_TOMBSTONE_TTL = Setting.of("eventService.tombstoneTtl", DURATION,
      EventServiceConfig.DEFAULT_TOMBSTONE_TTL).path(ES + "tombstoneTtl")
      .doc("How long a removed dispatcher's epoch is remembered (stale requests are refused meanwhile).");
  public static final Setting<Duration> ES_DETACHED_HOLD_TTL = Setting.of("eventService.detachedHoldTtl", DURATION,
      EventServiceConfig.DEFAULT_DETACHED_HOLD_TTL).path(ES + "detachedHoldTtl")
      .doc("How long a disconnected dispatcher's checkpoint still holds back GC.");
  public static final Setting<Duration> ES_GC_INTERVAL = Setting.of("eventService.gcInterval", DURATION,
      EventServiceConfig.DEFAULT_GC_INTERVAL).path(ES + "gcInterval").doc("How often the GC point is recomputed.");
  public static final Setting<Duration> ES_GC_RETENTION = Setting.of("eventService.gcRetention", DURATION,
      EventServiceConfig.DEFAULT_GC_RETENTION).path(ES + "gcRetention")
      .doc("Events younger than this are kept even when no dispatcher needs them.");
  public static final Setting<Integer> ES_CONTROL_QUEUE_MESSAGES = Setting.of("eventService.controlQueueMessages", INT,
      EventServiceConfig.DEFAULT_CONTROL_QUEUE_MESSAGES).path(ES + "controlQueueMessages")
      .doc("Per stream, control messages queued before the stream is closed as SLOW_CONSUMER; at least 16.");
  public static final Setting<Integer> ES_SCAN_THREAD_NICE = Setting.of("eventService.scanThreadNice", INT,
      EventServiceConfig.DEFAULT_SCAN_THREAD_NICE).path(ES + "scanThreadNice")
      .doc("OS niceness of scan threads, 0-19 (0: as the rest of the broker), so control and I/O win the CPU.");

  // ---- what the gRPC port admits (set at start; docs/EVENT-SERVICE.md "Connections on the gRPC port")
  private static final String CONNECTIONS = ES + "connections.";
  public static final Setting<Integer> CONN_MAX_CONNECTIONS = Setting.of("eventService.connections.maxConnections",
      INT, ConnectionLimits.DEFAULT_MAX_CONNECTIONS).path(CONNECTIONS + "maxConnections")
      .doc("HTTP/2 connections open at once on the gRPC port; one more is closed at once. Keep it well below the"
          + " file-descriptor limit (ulimit -n).");
  public static final Setting<Duration> CONN_PREFACE_TIMEOUT = Setting.of("eventService.connections.prefaceTimeout",
      DURATION, ConnectionLimits.DEFAULT_PREFACE_TIMEOUT).path(CONNECTIONS + "prefaceTimeout")
      .doc("A socket silent this long is closed (no HTTP/2 preface, a dead peer), and a connection that opens no"
          + " stream within it; live peers answer the broker's pings. At least 300ms.");
  public static final Setting<Duration> CONN_HELLO_TIMEOUT = Setting.of("eventService.connections.helloTimeout",
      DURATION, ConnectionLimits.DEFAULT_HELLO_TIMEOUT).path(CONNECTIONS + "helloTimeout")
      .doc("A Connect stream without Hello this long after it opened gets StreamError MISSING_HELLO. At least 300ms.");
  public static final Setting<Duration> CONN_IDLE_TIMEOUT = Setting.of("eventService.connections.idleTimeout",
      DURATION, ConnectionLimits.DEFAULT_IDLE_TIMEOUT).path(CONNECTIONS + "idleTimeout")
      .doc("A connection whose streams have all ended is closed after this long without a new one; at least"
          + " prefaceTimeout.");

  // ---- event service limits (runtime: PATCH /api/v1/config)
  private static final String LIMITS = ES + "limits.";
  public static final Setting<Long> LIMIT_SCAN_RATE = Setting.of("eventService.limits.scanRateBytesPerSecond",
      LONG_BYTES, EventServiceLimits.DEFAULT_SCAN_RATE_BYTES_PER_SECOND).path(LIMITS + "scanRateBytesPerSecond")
      .runtimeTunable().doc("Global cap on bytes read by scans per second, across all dispatchers; at least 1KiB.");
  public static final Setting<Integer> LIMIT_SCAN_CONCURRENCY = Setting.of("eventService.limits.scanConcurrency", INT,
      EventServiceLimits.DEFAULT_SCAN_CONCURRENCY).path(LIMITS + "scanConcurrency").runtimeTunable()
      .defaultText("(the number of cores, at least 2)").doc("Scans running at once, 1-1024.");
  public static final Setting<Long> LIMIT_CONNECTION_QUEUE = Setting.of("eventService.limits.connectionQueueBytes",
      LONG_BYTES, EventServiceLimits.DEFAULT_CONNECTION_QUEUE_BYTES).path(LIMITS + "connectionQueueBytes")
      .runtimeTunable().doc("Per collector stream, bytes of events queued and not yet written; at least 64KiB.");
  public static final Setting<Integer> LIMIT_MAX_DISPATCHERS = Setting.of("eventService.limits.maxDispatchers", INT,
      EventServiceLimits.DEFAULT_MAX_DISPATCHERS).path(LIMITS + "maxDispatchers").runtimeTunable()
      .doc("Dispatchers this node accepts (QUOTA_EXCEEDED beyond).");
  public static final Setting<Integer> LIMIT_SCAN_BATCH = Setting.of("eventService.limits.scanBatchBytes", INT_BYTES,
      EventServiceLimits.DEFAULT_SCAN_BATCH_BYTES).path(LIMITS + "scanBatchBytes").runtimeTunable()
      .doc("Most bytes one scan task reads before yielding, 4KiB-64MiB.");
  public static final Setting<Long> LIMIT_SNAPSHOT_ROWS = Setting.of("eventService.limits.snapshotRowsPerSecond",
      LONG, EventServiceLimits.DEFAULT_SNAPSHOT_ROWS_PER_SECOND).path(LIMITS + "snapshotRowsPerSecond")
      .runtimeTunable().doc("Rows all snapshot readers of this broker read per second at most; 0 = no limit.");
  public static final Setting<Long> LIMIT_SNAPSHOT_BYTES = Setting.of("eventService.limits.snapshotBytesPerSecond",
      LONG_BYTES, EventServiceLimits.DEFAULT_SNAPSHOT_BYTES_PER_SECOND).path(LIMITS + "snapshotBytesPerSecond")
      .runtimeTunable().doc("Bytes all snapshot readers of this broker read per second at most; 0 = no limit, else at"
          + " least 1KiB.");

  // ---- snapshots (set at start; docs/EVENT-SERVICE.md "Snapshots")
  private static final String SNAP = ES + "snapshot.";
  public static final Setting<Integer> SNAPSHOT_READERS = Setting.of("eventService.snapshot.readers", INT,
      SnapshotConfig.DEFAULT_READERS).path(SNAP + "readers").doc("Snapshot chunk reads running at once across all"
          + " snapshots, each on its own upstream connection, 1-64.");
  public static final Setting<Integer> SNAPSHOT_CHUNK_ROWS = Setting.of("eventService.snapshot.chunkRows", INT,
      SnapshotConfig.DEFAULT_CHUNK_ROWS).path(SNAP + "chunkRows").doc("Rows of one snapshot chunk of a keyed table"
          + " at most, 1-1000000.");
  public static final Setting<Long> SNAPSHOT_CHUNK_BYTES = Setting.of("eventService.snapshot.chunkBytes", LONG_BYTES,
      SnapshotConfig.DEFAULT_CHUNK_BYTES).path(SNAP + "chunkBytes").doc("Bytes of one snapshot chunk at most (it"
          + " ends after the row, or heap block, that reaches it), 8KiB-1GiB.");
  public static final Setting<Long> SNAPSHOT_MEMORY_BYTES = Setting.of("eventService.snapshot.memoryBytes",
      LONG_BYTES, SnapshotConfig.DEFAULT_MEMORY_BYTES).path(SNAP + "memoryBytes").doc("Bytes of snapshot chunks read"
          + " and not yet delivered, across all snapshots; at least chunkBytes.");
  public static final Setting<Duration> SNAPSHOT_WATERMARK_TIMEOUT = Setting.of("eventService.snapshot.watermarkTimeout",
      DURATION, SnapshotConfig.DEFAULT_WATERMARK_TIMEOUT).path(SNAP + "watermarkTimeout").doc("How long a snapshot"
          + " reader waits for capture to see its watermark before it tries the chunk again.");
  public static final Setting<Duration> SNAPSHOT_RETRY_BACKOFF = Setting.of("eventService.snapshot.retryBackoff",
      DURATION, SnapshotConfig.DEFAULT_RETRY_BACKOFF).path(SNAP + "retryBackoff").doc("First wait before a snapshot"
          + " chunk that could not be read is read again; doubles per attempt.");
  public static final Setting<Duration> SNAPSHOT_MAX_RETRY_BACKOFF = Setting.of("eventService.snapshot.maxRetryBackoff",
      DURATION, SnapshotConfig.DEFAULT_MAX_RETRY_BACKOFF).path(SNAP + "maxRetryBackoff").doc("Cap of that wait.");

  // ---- event store (RocksDB)
  public static final Setting<EventStoreConfig.Compression> STORE_ROWS_COMPRESSION = Setting.of(
      "eventStore.rowsCompression", SettingType.oneOf(EventStoreConfig.Compression.class),
      EventStoreConfig.DEFAULT_ROWS_COMPRESSION).doc("Block compression of the rows column family.");
  public static final Setting<Long> STORE_BLOCK_CACHE = Setting.of("eventStore.blockCacheBytes", LONG_BYTES,
      EventStoreConfig.DEFAULT_BLOCK_CACHE_BYTES).doc("Shared RocksDB block cache, at least 1MiB.");
  public static final Setting<Long> STORE_WRITE_BUFFER = Setting.of("eventStore.writeBufferBytes", LONG_BYTES,
      EventStoreConfig.DEFAULT_WRITE_BUFFER_BYTES).doc("Memtable size of the rows column family, 1MiB-1GiB.");
  public static final Setting<Integer> STORE_MAX_WRITE_BUFFERS = Setting.of("eventStore.maxWriteBuffers", INT,
      EventStoreConfig.DEFAULT_MAX_WRITE_BUFFERS).doc("Memtables per column family before writes stall, 2-16.");
  public static final Setting<Integer> STORE_BLOCK_SIZE = Setting.of("eventStore.blockSizeBytes", INT_BYTES,
      EventStoreConfig.DEFAULT_BLOCK_SIZE_BYTES).doc("Data block size of the rows column family, 1KiB-1MiB.");
  public static final Setting<Integer> STORE_BACKGROUND_JOBS = Setting.of("eventStore.backgroundJobs", INT,
      EventStoreConfig.DEFAULT_BACKGROUND_JOBS).doc("RocksDB flush and compaction threads, 1-32.");
  public static final Setting<Path> STORE_WAL_DIR = Setting.of("eventStore.walDir", PATH, (Path) null)
      .defaultText("(none: the WAL stays in <dataDir>/events)")
      .doc("Directory of the event store's write-ahead log, best on a disk of its own: every captured transaction"
          + " waits for its fsync, which other heavy writers on the same disk (a database loading a snapshot) hold"
          + " up (docs/CAPTURE.md \"Durability and restart\"). Created when missing; relative paths are resolved"
          + " against the working directory. To change it, stop the broker and move the `*.log` files to the new"
          + " directory: a store with writes in WAL files elsewhere refuses to start.");

  // ---- schema store
  public static final Setting<Long> SCHEMA_CACHE_ENTRIES = Setting.of("schemaStore.cacheMaxEntries", LONG,
      SchemaStoreConfig.DEFAULT_CACHE_MAX_ENTRIES).doc("(table, version) schemas the read cache holds; 0 disables"
          + " it.");

  // ---- hosted changefeeds
  public static final Setting<Duration> CF_RETRY_BACKOFF_MIN = Setting.of("changefeeds.retryBackoffMin", DURATION,
      ChangefeedConfig.DEFAULT_RETRY_BACKOFF_MIN).doc("First delay before a transiently FAILED changefeed is"
          + " restarted; doubles per attempt.");
  public static final Setting<Duration> CF_RETRY_BACKOFF_MAX = Setting.of("changefeeds.retryBackoffMax", DURATION,
      ChangefeedConfig.DEFAULT_RETRY_BACKOFF_MAX).doc("Cap of that delay.");
  public static final Setting<Integer> CF_RETRY_MAX_ATTEMPTS = Setting.of("changefeeds.retryMaxAttempts", INT,
      ChangefeedConfig.DEFAULT_RETRY_MAX_ATTEMPTS).doc("Automatic restarts before a changefeed stays FAILED until"
          + " RESUME; 0 = no limit.");
  public static final Setting<Duration> CF_CLEANUP_BACKOFF_MIN = Setting.of("changefeeds.cleanupBackoffMin", DURATION,
      ChangefeedConfig.DEFAULT_CLEANUP_BACKOFF_MIN).doc("First delay before a failed deletion cleanup is tried"
          + " again; doubles.");
  public static final Setting<Duration> CF_CLEANUP_BACKOFF_MAX = Setting.of("changefeeds.cleanupBackoffMax", DURATION,
      ChangefeedConfig.DEFAULT_CLEANUP_BACKOFF_MAX).doc("Cap of that delay.");
  public static final Setting<Duration> CF_DELETE_WAIT = Setting.of("changefeeds.deleteWait", DURATION,
      ChangefeedConfig.DEFAULT_DELETE_WAIT).doc("How long DELETE waits for the cleanup before answering 202 with a"
          + " status URL.");
  public static final Setting<Duration> CF_STOP_TIMEOUT = Setting.of("changefeeds.stopTimeout", DURATION,
      ChangefeedConfig.DEFAULT_STOP_TIMEOUT).doc("How long stopping a changefeed's runtime and confirming its"
          + " dispatchers are gone may take.");
  public static final Setting<Duration> CF_PROGRESS_INTERVAL = Setting.of("changefeeds.progressInterval", DURATION,
      ChangefeedConfig.DEFAULT_PROGRESS_INTERVAL).doc("How often running changefeeds' checkpoints are recorded and"
          + " their metrics updated.");
  public static final Setting<Path> CF_FILE_SINK_DIR = Setting.of(ChangefeedConfig.FILE_SINK_DIR_KEY, PATH,
      ChangefeedConfig.DEFAULT_FILE_SINK_DIR).doc("The only directory jsonl:file: sinks may write in; a relative"
          + " one is under the data directory, a relative sink path is taken inside it.");
  public static final Setting<Duration> CF_SINK_CHECK_TIMEOUT = Setting.of("changefeeds.sinkCheckTimeout", DURATION,
      ChangefeedConfig.DEFAULT_SINK_CHECK_TIMEOUT).doc("How long the check that a new sink works may take at create"
          + " or update (?validate=false skips it).");

  // ---- cluster (docs/CLUSTER.md)
  public static final Setting<java.util.List<BrokerAddress>> CLUSTER_JOIN = Setting.of("cluster.join",
      SettingType.ADDRESSES, (java.util.List<BrokerAddress>) null)
      .flag("--cluster-join").defaultText("(none: the node runs standalone and starts no cluster)")
      .doc("Cluster addresses of the members to join, host:port[,host:port...] (this node's own may be among them);"
          + " TCP only, no multicast. Changefeeds are scheduled once 3 members form the CP subsystem.");
  public static final Setting<String> CLUSTER_NAME = Setting.of("cluster.name", STRING, ClusterConfig.DEFAULT_NAME)
      .flag("--cluster-name").doc("Cluster name: nodes of another name never join each other.");
  public static final Setting<Integer> CLUSTER_PORT = Setting.of("cluster.port", INT, ClusterConfig.DEFAULT_PORT)
      .flag("--cluster-port").doc("Port the cluster connections listen on, on the serve.bind interface.");
  public static final Setting<BrokerAddress> CLUSTER_ADVERTISE_ADDRESS = Setting.of("cluster.advertiseAddress",
      SettingType.ADDRESS, (BrokerAddress) null).path("cluster.advertised").flag("--cluster-advertise-address")
      .defaultText("(serve.bind:cluster.port)").doc("Cluster host:port announced to the other members when they"
          + " reach this node by another address (NAT, proxy); required with a wildcard serve.bind.");
  public static final Setting<String> CLUSTER_OUTBOUND_PORTS = Setting.of("cluster.outboundPorts", STRING,
      (String) null).flag("--cluster-outbound-ports").defaultText("(any)")
      .doc("Local ports outgoing cluster connections use, e.g. 33000-33010 (for firewalls).");
  public static final Setting<Boolean> CLUSTER_NETWORK_PRIVATE = Setting.of("cluster.networkPrivate", BOOLEAN, false)
      .path(null).flag("--cluster-network-private").doc("Confirms that a cluster port beyond loopback is on a private"
          + " network: cluster traffic is neither encrypted nor authenticated (docs/SECURITY.md); without it such a"
          + " node refuses to start.");
  public static final Setting<Integer> CLUSTER_CP_MEMBER_COUNT = Setting.of("cluster.cpMemberCount", INT,
      ClusterConfig.DEFAULT_CP_MEMBER_COUNT).doc("Members of the CP subsystem (Raft) that elects the coordinator,"
          + " 3-7; changefeeds are scheduled while a majority of them is up.");
  public static final Setting<Duration> CLUSTER_MEMBER_HEARTBEAT = Setting.of("cluster.memberHeartbeat", DURATION,
      ClusterConfig.DEFAULT_MEMBER_HEARTBEAT).doc("How often members heartbeat each other (whole seconds).");
  public static final Setting<Duration> CLUSTER_MEMBER_TIMEOUT = Setting.of("cluster.memberTimeout", DURATION,
      ClusterConfig.DEFAULT_MEMBER_TIMEOUT).flag("--cluster-member-timeout").doc("A member silent this long is"
          + " removed and its changefeeds move (whole seconds, at least twice cluster.memberHeartbeat).");
  public static final Setting<Duration> CLUSTER_CP_SESSION_TTL = Setting.of("cluster.cpSessionTtl", DURATION,
      ClusterConfig.DEFAULT_CP_SESSION_TTL).flag("--cluster-cp-session-ttl").doc("How long a coordinator that"
          + " stopped heartbeating (frozen, cut off) keeps the coordinator lock (whole seconds, at least 2s).");
  public static final Setting<Duration> CLUSTER_CP_AUTO_REMOVAL = Setting.of("cluster.cpMissingMemberAutoRemoval",
      DURATION, ClusterConfig.DEFAULT_CP_MISSING_MEMBER_AUTO_REMOVAL).doc("A CP member missing this long is removed"
          + " from the CP subsystem (one restarting at its address at once); a node cut off longer must restart.");
  public static final Setting<Duration> CLUSTER_PUBLISH_INTERVAL = Setting.of("cluster.publishInterval", DURATION,
      ClusterConfig.DEFAULT_PUBLISH_INTERVAL).doc("How often a node republishes its member info (servable range,"
          + " lag).");
  public static final Setting<Duration> CLUSTER_UNREACHABLE_RETENTION = Setting.of("cluster.unreachableRetention",
      DURATION, ClusterConfig.DEFAULT_UNREACHABLE_RETENTION).doc("How long a member that left without leaving"
          + " cleanly stays listed as UNREACHABLE.");
  public static final Setting<Duration> CLUSTER_MOVE_TIMEOUT = Setting.of("cluster.moveTimeout", DURATION,
      ClusterConfig.DEFAULT_MOVE_TIMEOUT).doc("How long a graceful move (drain, rebalance) waits for the old owner to"
          + " stop a changefeed before the new owner starts it anyway, fenced.");

  // ---- demo workload
  public static final Setting<Boolean> DEMO_ENABLED = Setting.of("demo.enabled", BOOLEAN, false).path("demoWorkload")
      .flag("--demo-workload").doc("Write a steady demo workload (schema demo) into the embedded upstream.");
  public static final Setting<Double> DEMO_TXNS_PER_SECOND = Setting.of("demo.txnsPerSecond", DOUBLE,
      DemoWorkloadConfig.DEFAULT_TXNS_PER_SECOND).doc("Demo transactions per second, (0, 10000].");
  public static final Setting<Duration> DEMO_DDL_INTERVAL = Setting.of("demo.ddlInterval", DURATION,
      DemoWorkloadConfig.DEFAULT_DDL_INTERVAL).doc("Time between schema changes of demo.orders.");
  public static final Setting<Long> DEMO_SEED = Setting.of("demo.seed", LONG, DemoWorkloadConfig.DEFAULT_SEED)
      .doc("Seed of the demo's random mix, so a run can be repeated.");

  // ---- security (docs/SECURITY.md)
  public static final Setting<Path> SECURITY_CONFIG_FILE = Setting.of("security.configFile", PATH, (Path) null)
      .path(null).flag("--security-config").defaultText("(none: no principal, callers are not authenticated)")
      .doc("JSON file with the principals (names, roles, table patterns, token hashes from `sluice token hash`,"
          + " certificate subjects or SANs) and optionally tls and changefeeds sections (docs/SECURITY.md). With"
          + " one principal every call but /healthz and /readyz must authenticate. Keep it readable by the broker's"
          + " user only.");
  public static final Setting<Path> SECURITY_TLS_CERT = Setting.of("security.tls.cert", PATH, (Path) null)
      .path("security.tls.certFile").flag("--tls-cert").defaultText("(none: plaintext)")
      .doc("PEM certificate chain (leaf first) served on the gRPC and admin ports; reloaded when it changes. Over"
          + " the security file's tls.cert.");
  public static final Setting<Path> SECURITY_TLS_KEY = Setting.of("security.tls.key", PATH, (Path) null)
      .path("security.tls.keyFile").flag("--tls-key").defaultText("(none)")
      .doc("PEM private key of security.tls.cert, unencrypted; mode 0600.");
  public static final Setting<Path> SECURITY_TLS_CLIENT_CA = Setting.of("security.tls.clientCa", PATH, (Path) null)
      .path("security.tls.clientCaFile").flag("--tls-client-ca").defaultText("(none: no client certificates)")
      .doc("PEM CA of client certificates: with it every client must present a certificate it signed (mutual TLS).");
  public static final Setting<Duration> SECURITY_TLS_RELOAD_INTERVAL = Setting.of("security.tls.reloadInterval",
      DURATION, TlsConfig.DEFAULT_RELOAD_INTERVAL).path("security.tls.reloadInterval").flag("--tls-reload-interval")
      .doc("How often the TLS files are checked for changes; new ones reach new connections, open ones go on.");
  public static final Setting<Boolean> SECURITY_INSECURE = Setting.of("security.insecure", BOOLEAN, false)
      .path("security.insecure").flag("--insecure")
      .doc("Serve on a non-loopback bind without TLS or authentication anyway (a warning at every start); without"
          + " it such a node refuses to start.");
  public static final Setting<Path> SECURITY_CHANGEFEED_TOKEN_FILE = Setting.of("security.changefeeds.tokenFile",
      PATH, (Path) null).path("security.changefeedTokenFile")
      .defaultText("(none: a token of this process, valid on this node only)")
      .doc("File holding the plaintext token hosted changefeeds send when they dial a broker (this node or others);"
          + " over the security file's changefeeds.token_file.");
  public static final Setting<Path> SECURITY_CHANGEFEED_CA = Setting.of("security.changefeeds.ca", PATH, (Path) null)
      .path("security.changefeedCaFile").defaultText("(none: this node's own certificate chain)")
      .doc("PEM CA hosted changefeeds trust when they dial a broker over TLS; over the security file's"
          + " changefeeds.ca.");

  /**
   * Components of the typed configuration that no key sets, with the reason (shown in docs/CONFIG.md).
   */
  public static final Map<String, String> NOT_KEYS = Map.of(
      "security.principals", "a list: the principals of the security.configFile JSON file (docs/SECURITY.md)",
      "upstream.embeddedDataDir", "always <dataDir>/upstream",
      "eventStore.dataDir", "always <dataDir>/events",
      "schemaStore.dataDir", "always <dataDir>/schema",
      "schemaStore.syncWrites", "always true: unsynced schema writes are for tests and benchmarks only",
      "cluster.bindHost", "always serve.bind: the cluster port listens on the node's interface");

  private static final List<Setting<?>> ALL = collect();
  private static final Map<String, Setting<?>> BY_KEY = index();

  /** Every key, in declaration order. */
  public static List<Setting<?>> all() {
    return ALL;
  }

  public static Optional<Setting<?>> find(String key) {
    return Optional.ofNullable(BY_KEY.get(key));
  }

  /** The key whose environment variable is {@code name}. */
  public static Optional<Setting<?>> byEnv(String name) {
    return ALL.stream().filter(s -> s.env().equals(name)).findFirst();
  }

  private static List<Setting<?>> collect() {
    List<Setting<?>> out = new ArrayList<>();
    for (Field f : ConfigKeys.class.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && Modifier.isPublic(f.getModifiers()) && f.getType() == Setting.class) {
        try {
          out.add((Setting<?>) f.get(null));
        } catch (IllegalAccessException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    return Collections.unmodifiableList(out);
  }

  private static Map<String, Setting<?>> index() {
    Map<String, Setting<?>> m = new LinkedHashMap<>();
    for (Setting<?> s : ALL) {
      if (m.put(s.key(), s) != null) {
        throw new IllegalStateException("two settings named " + s.key());
      }
    }
    return Collections.unmodifiableMap(m);
  }
}
