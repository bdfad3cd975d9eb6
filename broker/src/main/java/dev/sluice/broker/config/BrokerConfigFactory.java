package dev.sluice.broker.config;

import dev.sluice.dispatcher.BrokerAddress;
import dev.sluice.broker.cluster.ClusterConfig;
import static dev.sluice.broker.config.ConfigKeys.*;

import dev.sluice.broker.BrokerConfig;
import dev.sluice.broker.ServeConfig;
import dev.sluice.broker.capture.CaptureConfig;
import dev.sluice.broker.changefeed.ChangefeedConfig;
import dev.sluice.broker.control.ConnectionLimits;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.control.EventServiceLimits;
import dev.sluice.broker.security.SecurityConfig;
import dev.sluice.broker.security.TlsConfig;
import dev.sluice.broker.snapshot.SnapshotConfig;
import dev.sluice.broker.store.EventStoreConfig;
import dev.sluice.broker.upstream.DemoWorkloadConfig;
import dev.sluice.broker.upstream.UpstreamConfig;
import dev.sluice.schema.SchemaStoreConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Builds the typed configuration ({@link BrokerConfig} and the records in it) from resolved settings.
 * The records' constructors validate, as they do for code that builds them directly; a refusal is
 * reported with the keys it is about, their values and their sources, and every section is tried so
 * that all problems are reported at once.
 *
 * <pre>{@code
 * BrokerConfigFactory.Built b = BrokerConfigFactory.build(ConfigResolver.resolve(file, env, flags).settings());
 * new Broker(b.config(), b.settings()).start();
 * }</pre>
 */
public final class BrokerConfigFactory {

  private final ResolvedSettings s;
  private final List<ConfigProblem> problems = new ArrayList<>();
  private final List<String> warnings = new ArrayList<>();

  private BrokerConfigFactory(ResolvedSettings settings) {
    this.s = settings;
  }

  /** The typed configuration, the settings it came from, and warnings to log. */
  public record Built(BrokerConfig config, ResolvedSettings settings, List<String> warnings) {}

  /**
   * @throws InvalidConfigException naming each refused value's keys and sources
   */
  public static Built build(ResolvedSettings settings) {
    return new BrokerConfigFactory(settings).build();
  }

  private Built build() {
    Path data = s.get(DATA_DIR).toAbsolutePath();
    String nodeId = s.get(NODE_ID);
    UpstreamConfig upstream = section(List.of(UPSTREAM_URL, UPSTREAM_USER, UPSTREAM_PASSWORD, UPSTREAM_PASSWORD_FILE,
        UPSTREAM_EMBEDDED_PORT), () -> upstream(data));
    CaptureConfig capture = section(List.of(CAPTURE_SLOT, CAPTURE_PUBLICATION, CAPTURE_HEARTBEAT_INTERVAL,
        CAPTURE_FRAGMENT_ROWS, CAPTURE_FRAGMENT_BYTES, CAPTURE_MEMORY_CAP_BYTES, CAPTURE_GROUP_COMMIT_MAX_DELAY,
        CAPTURE_GROUP_COMMIT_MAX_BYTES, CAPTURE_STATUS_INTERVAL, CAPTURE_RETRY_INITIAL_BACKOFF,
        CAPTURE_RETRY_MAX_BACKOFF, CAPTURE_INSTALL_DDL_TRIGGER, NODE_ID), () -> new CaptureConfig(
            s.get(CAPTURE_SLOT) == null ? CaptureConfig.defaultSlotName(nodeId) : s.get(CAPTURE_SLOT),
            s.get(CAPTURE_PUBLICATION), s.get(CAPTURE_HEARTBEAT_INTERVAL), s.get(CAPTURE_FRAGMENT_ROWS),
            s.get(CAPTURE_FRAGMENT_BYTES), s.get(CAPTURE_MEMORY_CAP_BYTES), s.get(CAPTURE_GROUP_COMMIT_MAX_DELAY),
            s.get(CAPTURE_GROUP_COMMIT_MAX_BYTES), s.get(CAPTURE_STATUS_INTERVAL), s.get(CAPTURE_RETRY_INITIAL_BACKOFF),
            s.get(CAPTURE_RETRY_MAX_BACKOFF), s.get(CAPTURE_INSTALL_DDL_TRIGGER)));
    EventServiceLimits limits = section(List.of(LIMIT_SCAN_RATE, LIMIT_SCAN_CONCURRENCY, LIMIT_CONNECTION_QUEUE,
        LIMIT_MAX_DISPATCHERS, LIMIT_SCAN_BATCH, LIMIT_SNAPSHOT_ROWS, LIMIT_SNAPSHOT_BYTES),
        () -> new EventServiceLimits(s.get(LIMIT_SCAN_RATE), s.get(LIMIT_SCAN_CONCURRENCY),
            s.get(LIMIT_CONNECTION_QUEUE), s.get(LIMIT_MAX_DISPATCHERS), s.get(LIMIT_SCAN_BATCH),
            s.get(LIMIT_SNAPSHOT_ROWS), s.get(LIMIT_SNAPSHOT_BYTES)));
    ConnectionLimits connections = section(List.of(CONN_MAX_CONNECTIONS, CONN_PREFACE_TIMEOUT, CONN_HELLO_TIMEOUT,
        CONN_IDLE_TIMEOUT), () -> new ConnectionLimits(s.get(CONN_MAX_CONNECTIONS), s.get(CONN_PREFACE_TIMEOUT),
            s.get(CONN_HELLO_TIMEOUT), s.get(CONN_IDLE_TIMEOUT)));
    SnapshotConfig snapshot = section(List.of(SNAPSHOT_READERS, SNAPSHOT_CHUNK_ROWS, SNAPSHOT_CHUNK_BYTES,
        SNAPSHOT_MEMORY_BYTES, SNAPSHOT_WATERMARK_TIMEOUT, SNAPSHOT_RETRY_BACKOFF, SNAPSHOT_MAX_RETRY_BACKOFF),
        () -> new SnapshotConfig(s.get(SNAPSHOT_READERS), s.get(SNAPSHOT_CHUNK_ROWS), s.get(SNAPSHOT_CHUNK_BYTES),
            s.get(SNAPSHOT_MEMORY_BYTES), s.get(SNAPSHOT_WATERMARK_TIMEOUT), s.get(SNAPSHOT_RETRY_BACKOFF),
            s.get(SNAPSHOT_MAX_RETRY_BACKOFF)));
    EventServiceConfig eventService = limits == null || connections == null || snapshot == null ? null : section(
        List.of(ES_DATA_PLANE_INSTANCES, ES_MAX_MESSAGE_BYTES, ES_RESOLVED_FLUSH_INTERVAL, ES_IDLE_RESOLVED_INTERVAL,
        ES_TICK_INTERVAL, ES_TOMBSTONE_TTL, ES_DETACHED_HOLD_TTL, ES_GC_INTERVAL, ES_GC_RETENTION,
        ES_CONTROL_QUEUE_MESSAGES, ES_SCAN_THREAD_NICE),
        () -> new EventServiceConfig(limits, s.get(ES_DATA_PLANE_INSTANCES), s.get(ES_MAX_MESSAGE_BYTES),
            s.get(ES_RESOLVED_FLUSH_INTERVAL), s.get(ES_IDLE_RESOLVED_INTERVAL), s.get(ES_TICK_INTERVAL),
            s.get(ES_TOMBSTONE_TTL), s.get(ES_DETACHED_HOLD_TTL), s.get(ES_GC_INTERVAL), s.get(ES_GC_RETENTION),
            s.get(ES_CONTROL_QUEUE_MESSAGES), s.get(ES_SCAN_THREAD_NICE), connections, snapshot));
    ServeConfig serve = eventService == null ? null : section(List.of(SERVE_BIND, SERVE_GRPC_PORT, SERVE_ADMIN_PORT,
        SERVE_ADVERTISE_ADDRESS, SERVE_ADVERTISE_ADMIN_ADDRESS), () -> new ServeConfig(s.get(SERVE_BIND),
            s.get(SERVE_GRPC_PORT), s.get(SERVE_ADMIN_PORT), s.get(SERVE_ADVERTISE_ADDRESS),
            s.get(SERVE_ADVERTISE_ADMIN_ADDRESS), eventService));
    EventStoreConfig eventStore = section(List.of(STORE_ROWS_COMPRESSION, STORE_BLOCK_CACHE, STORE_WRITE_BUFFER,
        STORE_MAX_WRITE_BUFFERS, STORE_BLOCK_SIZE, STORE_BACKGROUND_JOBS, STORE_WAL_DIR, DATA_DIR),
        () -> new EventStoreConfig(data.resolve("events"), s.get(STORE_ROWS_COMPRESSION), s.get(STORE_BLOCK_CACHE),
            s.get(STORE_WRITE_BUFFER), s.get(STORE_MAX_WRITE_BUFFERS), s.get(STORE_BLOCK_SIZE),
            s.get(STORE_BACKGROUND_JOBS), s.get(STORE_WAL_DIR) == null ? null : s.get(STORE_WAL_DIR).toAbsolutePath()));
    SchemaStoreConfig schemaStore = section(List.of(SCHEMA_CACHE_ENTRIES), () -> SchemaStoreConfig
        .at(data.resolve("schema")).withCacheMaxEntries(s.get(SCHEMA_CACHE_ENTRIES)));
    ChangefeedConfig changefeeds = section(List.of(CF_RETRY_BACKOFF_MIN, CF_RETRY_BACKOFF_MAX, CF_RETRY_MAX_ATTEMPTS,
        CF_CLEANUP_BACKOFF_MIN, CF_CLEANUP_BACKOFF_MAX, CF_DELETE_WAIT, CF_STOP_TIMEOUT, CF_PROGRESS_INTERVAL,
        CF_FILE_SINK_DIR, CF_SINK_CHECK_TIMEOUT),
        () -> new ChangefeedConfig(s.get(CF_RETRY_BACKOFF_MIN), s.get(CF_RETRY_BACKOFF_MAX),
            s.get(CF_RETRY_MAX_ATTEMPTS), s.get(CF_CLEANUP_BACKOFF_MIN), s.get(CF_CLEANUP_BACKOFF_MAX),
            s.get(CF_DELETE_WAIT), s.get(CF_STOP_TIMEOUT), s.get(CF_PROGRESS_INTERVAL), s.get(CF_FILE_SINK_DIR),
            s.get(CF_SINK_CHECK_TIMEOUT)));
    DemoWorkloadConfig demo = section(List.of(DEMO_TXNS_PER_SECOND, DEMO_DDL_INTERVAL, DEMO_SEED),
        () -> new DemoWorkloadConfig(s.get(DEMO_TXNS_PER_SECOND), s.get(DEMO_DDL_INTERVAL), s.get(DEMO_SEED)));
    SecurityConfig security = section(List.of(SECURITY_CONFIG_FILE, SECURITY_TLS_CERT, SECURITY_TLS_KEY,
        SECURITY_TLS_CLIENT_CA, SECURITY_TLS_RELOAD_INTERVAL, SECURITY_INSECURE, SECURITY_CHANGEFEED_TOKEN_FILE,
        SECURITY_CHANGEFEED_CA), this::security);
    ClusterConfig cluster = section(List.of(CLUSTER_JOIN, CLUSTER_NAME, CLUSTER_PORT, CLUSTER_ADVERTISE_ADDRESS,
        CLUSTER_OUTBOUND_PORTS, CLUSTER_CP_MEMBER_COUNT, CLUSTER_MEMBER_HEARTBEAT, CLUSTER_MEMBER_TIMEOUT,
        CLUSTER_CP_SESSION_TTL, CLUSTER_CP_AUTO_REMOVAL, CLUSTER_PUBLISH_INTERVAL, CLUSTER_UNREACHABLE_RETENTION,
        CLUSTER_MOVE_TIMEOUT, SERVE_BIND), () -> new ClusterConfig(s.get(CLUSTER_JOIN) == null ? List.of() : s.get(CLUSTER_JOIN), s.get(CLUSTER_NAME),
            s.get(SERVE_BIND), s.get(CLUSTER_PORT), s.get(CLUSTER_ADVERTISE_ADDRESS), s.get(CLUSTER_OUTBOUND_PORTS),
            s.get(CLUSTER_CP_MEMBER_COUNT), s.get(CLUSTER_MEMBER_HEARTBEAT), s.get(CLUSTER_MEMBER_TIMEOUT),
            s.get(CLUSTER_CP_SESSION_TTL), s.get(CLUSTER_CP_AUTO_REMOVAL), s.get(CLUSTER_PUBLISH_INTERVAL),
            s.get(CLUSTER_UNREACHABLE_RETENTION), s.get(CLUSTER_MOVE_TIMEOUT)));
    BrokerConfig config = null;
    if (problems.isEmpty()) {
      config = section(List.of(NODE_ID, DATA_DIR, DEMO_ENABLED, UPSTREAM_URL), () -> new BrokerConfig(nodeId, data,
          upstream, capture, s.get(DEMO_ENABLED), demo, serve, eventStore, schemaStore, changefeeds, security, cluster));
    }
    if (!problems.isEmpty()) {
      throw new InvalidConfigException(problems);
    }
    return new Built(config, s, List.copyOf(warnings));
  }

  /** The security file (principals and its tls / changefeeds sections) with the security.* keys over it. */
  private SecurityConfig security() {
    Path file = s.get(SECURITY_CONFIG_FILE);
    SecurityConfig sec = file == null ? SecurityConfig.none() : SecurityConfig.read(file.toAbsolutePath());
    Path cert = s.get(SECURITY_TLS_CERT);
    Path key = s.get(SECURITY_TLS_KEY);
    Path clientCa = s.get(SECURITY_TLS_CLIENT_CA);
    if (cert != null || key != null || clientCa != null) {
      if (cert == null || key == null) {
        throw new IllegalArgumentException("security.tls.cert (--tls-cert) and security.tls.key (--tls-key) go"
            + " together" + (clientCa != null ? "; security.tls.clientCa needs them too" : ""));
      }
      sec = sec.withTls(new TlsConfig(cert, key, clientCa, s.get(SECURITY_TLS_RELOAD_INTERVAL)));
    } else if (sec.tls() != null && s.value(SECURITY_TLS_RELOAD_INTERVAL).source() != ConfigSource.DEFAULT) {
      sec = sec.withTls(sec.tls().withReloadInterval(s.get(SECURITY_TLS_RELOAD_INTERVAL)));
    }
    Path tokenFile = s.get(SECURITY_CHANGEFEED_TOKEN_FILE);
    Path ca = s.get(SECURITY_CHANGEFEED_CA);
    if (tokenFile != null || ca != null) {
      sec = sec.withChangefeedCredentials(tokenFile != null ? tokenFile : sec.changefeedTokenFile(),
          ca != null ? ca : sec.changefeedCaFile());
    }
    return sec.withInsecure(s.get(SECURITY_INSECURE));
  }

  private UpstreamConfig upstream(Path data) {
    String url = s.get(UPSTREAM_URL);
    if (url == null) {
      for (Setting<?> k : List.of(UPSTREAM_USER, UPSTREAM_PASSWORD, UPSTREAM_PASSWORD_FILE)) {
        if (s.value(k).source() != ConfigSource.DEFAULT) {
          throw new IllegalArgumentException(k.key() + " is set but upstream.url is not: the embedded upstream is"
              + " always reached as postgres; set upstream.url (--upstream) or drop " + k.key());
        }
      }
      return UpstreamConfig.embedded(data.resolve("upstream"), s.get(UPSTREAM_EMBEDDED_PORT));
    }
    return UpstreamConfig.external(url, s.get(UPSTREAM_USER), password());
  }

  /** The password from the higher-precedence one of upstream.password and upstream.passwordFile. */
  private String password() {
    SettingValue inline = s.value(UPSTREAM_PASSWORD);
    SettingValue file = s.value(UPSTREAM_PASSWORD_FILE);
    if (inline.value() != null && file.value() != null && inline.source() == file.source()) {
      throw new IllegalArgumentException("both upstream.password (" + inline.describe() + ") and"
          + " upstream.passwordFile (" + file.describe() + ") are set; keep one");
    }
    if (inline.value() != null && inline.source() == ConfigSource.FLAG) {
      warnings.add("--upstream-password is visible to every local user (ps, /proc/<pid>/cmdline); prefer "
          + UPSTREAM_PASSWORD.env() + " or --upstream-password-file <file readable by this user only>");
    }
    if (file.value() == null || inline.value() != null && inline.source().compareTo(file.source()) > 0) {
      return (String) inline.value();
    }
    Path path = ((Path) file.value()).toAbsolutePath();
    try {
      String text = Files.readString(path, StandardCharsets.UTF_8);
      warnIfOthersCanRead(path);
      return text.endsWith("\r\n") ? text.substring(0, text.length() - 2)
          : text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    } catch (IOException e) {
      throw new IllegalArgumentException("upstream.passwordFile " + path + " (" + file.describe()
          + ") cannot be read: " + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " " + e.getMessage()),
          e);
    }
  }

  private void warnIfOthersCanRead(Path path) {
    try {
      Set<PosixFilePermission> p = Files.getPosixFilePermissions(path);
      if (p.contains(PosixFilePermission.OTHERS_READ) || p.contains(PosixFilePermission.GROUP_READ)) {
        warnings.add("upstream.passwordFile " + path + " can be read by other users; chmod 600 it");
      }
    } catch (IOException | UnsupportedOperationException e) {
      // no POSIX permissions to check
    }
  }

  /** Builds one record; a refusal becomes a problem naming the keys its message is about. */
  private <T> T section(List<Setting<?>> keys, Supplier<T> build) {
    try {
      return build.get();
    } catch (IllegalArgumentException | NullPointerException e) {
      String message = Redact.credentials(String.valueOf(e.getMessage()));
      problems.add(new ConfigProblem(attribute(keys, message), message));
      return null;
    }
  }

  /** {@code key = value (source)} of each key named in {@code message}; else of each key not at its default. */
  private String attribute(List<Setting<?>> keys, String message) {
    String unquoted = message.replaceAll("'[^']*'|\"[^\"]*\"", "''");   // the values quoted in it name no key
    List<Setting<?>> named = keys.stream().filter(k -> mentions(unquoted, k)).toList();
    if (named.isEmpty()) {
      named = keys.stream().filter(k -> s.value(k).source() != ConfigSource.DEFAULT).toList();
    }
    if (named.isEmpty()) {
      named = keys;
    }
    return named.stream().map(this::shown).collect(Collectors.joining(", "));
  }

  private static boolean mentions(String message, Setting<?> k) {
    return word(message, k.key()) || word(message, k.leaf()) || k.component() != null && word(message, k.component())
        || k.flag() != null && message.contains(k.flag() + " ");
  }

  private static boolean word(String message, String name) {
    return Pattern.compile("(?<![A-Za-z0-9])" + Pattern.quote(name) + "(?![A-Za-z0-9])").matcher(message).find();
  }

  private String shown(Setting<?> k) {
    SettingValue v = s.value(k);
    String value = k.secret() && v.value() != null ? "***" : Redact.credentials(k.type().text(v.value()));
    return k.key() + " = " + (value.isEmpty() ? "(unset)" : value) + " (" + v.describe() + ")";
  }
}
