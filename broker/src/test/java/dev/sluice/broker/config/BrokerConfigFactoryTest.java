package dev.sluice.broker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.broker.BrokerConfig;
import dev.sluice.broker.ServeConfig;
import dev.sluice.broker.capture.CaptureConfig;
import dev.sluice.broker.changefeed.ChangefeedConfig;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.store.EventStoreConfig;
import dev.sluice.broker.upstream.DemoWorkloadConfig;
import dev.sluice.broker.upstream.UpstreamConfig;
import dev.sluice.schema.SchemaStoreConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Settings become the typed configuration; a record's refusal names the keys it is about and their sources. */
class BrokerConfigFactoryTest {

  @TempDir
  Path dir;

  private static BrokerConfigFactory.Built build(Map<String, String> env, RawSetting... flags) {
    return BrokerConfigFactory.build(ConfigResolver.resolve(List.of(), env, List.of(flags)).settings());
  }

  @Test
  void theDefaultsBuildTheSameConfigurationAsTheConfigClassesDefaults() {
    BrokerConfig c = build(Map.of()).config();
    Path data = Path.of("data").toAbsolutePath();
    assertThat(c).isEqualTo(new BrokerConfig(BrokerConfig.DEFAULT_NODE_ID, data,
        UpstreamConfig.embedded(data.resolve("upstream"), UpstreamConfig.DEFAULT_EMBEDDED_PORT),
        CaptureConfig.defaults(BrokerConfig.DEFAULT_NODE_ID), false, DemoWorkloadConfig.defaults(),
        ServeConfig.defaults(), EventStoreConfig.defaults(data), SchemaStoreConfig.at(data),
        ChangefeedConfig.defaults()));
  }

  @Test
  void keysThatExistedOnlyInCodeReachTheirRecords() {
    BrokerConfig c = build(Map.of("SLUICE_EVENT_SERVICE_DATA_PLANE_INSTANCES", "4",
        "SLUICE_EVENT_SERVICE_MAX_MESSAGE_BYTES", "8MiB", "SLUICE_EVENT_SERVICE_RESOLVED_FLUSH_INTERVAL", "20ms",
        "SLUICE_EVENT_SERVICE_TOMBSTONE_TTL", "30m", "SLUICE_EVENT_SERVICE_GC_RETENTION", "2h",
        "SLUICE_CAPTURE_MEMORY_CAP_BYTES", "128MiB", "SLUICE_EVENT_STORE_BLOCK_CACHE_BYTES", "1GiB",
        "SLUICE_SCHEMA_STORE_CACHE_MAX_ENTRIES", "0", "SLUICE_CHANGEFEEDS_DELETE_WAIT", "2s",
        "SLUICE_EVENT_SERVICE_LIMITS_SCAN_CONCURRENCY", "3"),
        RawSetting.flag("demo.txnsPerSecond", "5", "--set demo.txnsPerSecond")).config();
    EventServiceConfig es = c.serve().eventService();
    assertThat(es.dataPlaneInstances()).isEqualTo(4);
    assertThat(es.maxMessageBytes()).isEqualTo(8 << 20);
    assertThat(es.resolvedFlushInterval()).isEqualTo(Duration.ofMillis(20));
    assertThat(es.tombstoneTtl()).isEqualTo(Duration.ofMinutes(30));
    assertThat(es.gcRetention()).isEqualTo(Duration.ofHours(2));
    assertThat(es.limits().scanConcurrency()).isEqualTo(3);
    assertThat(c.capture().memoryCapBytes()).isEqualTo(128L << 20);
    assertThat(c.eventStore().blockCacheBytes()).isEqualTo(1L << 30);
    assertThat(c.eventStore().dataDir()).isEqualTo(c.dataDir().resolve("events"));
    assertThat(c.schemaStore().cacheMaxEntries()).isZero();
    assertThat(c.changefeeds().deleteWait()).isEqualTo(Duration.ofSeconds(2));
    assertThat(c.demo().txnsPerSecond()).isEqualTo(5.0);
  }

  @Test
  void eventStoreWalDirIsResolvedAgainstTheWorkingDirectoryAndMustNotBeTheStoresDirectory() {
    assertThat(build(Map.of()).config().eventStore().walDir()).isNull();
    assertThat(build(Map.of("SLUICE_EVENT_STORE_WAL_DIR", "wal")).config().eventStore().walDir())
        .isEqualTo(Path.of("wal").toAbsolutePath());

    assertThatThrownBy(() -> build(Map.of("SLUICE_DATA_DIR", "/srv/sluice",
        "SLUICE_EVENT_STORE_WAL_DIR", "/srv/sluice/events/")))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("eventStore.walDir = /srv/sluice/events (environment variable"
            + " SLUICE_EVENT_STORE_WAL_DIR)")
        .hasMessageContaining("store.walDir must be a directory other than store.dataDir");
  }

  @Test
  void aRecordsRefusalNamesTheKeysItIsAboutWithTheirSources() {
    assertThatThrownBy(() -> build(Map.of("SLUICE_CAPTURE_MEMORY_CAP_BYTES", "1MiB",
        "SLUICE_EVENT_SERVICE_DATA_PLANE_INSTANCES", "0")))
        .isInstanceOfSatisfying(InvalidConfigException.class, e -> assertThat(e.problems()).hasSize(2))
        .hasMessageContaining("capture.memoryCapBytes = 1MiB (environment variable SLUICE_CAPTURE_MEMORY_CAP_BYTES)")
        .hasMessageContaining("capture.fragmentBytes = 8MiB (the default)")
        .hasMessageContaining("memoryCapBytes (1048576) must be >= fragmentBytes (8388608)")
        .hasMessageContaining("eventService.dataPlaneInstances = 0 (environment variable"
            + " SLUICE_EVENT_SERVICE_DATA_PLANE_INSTANCES): dataPlaneInstances must be in [1, 64], got 0");
    assertThatThrownBy(() -> build(Map.of(), RawSetting.flag("serve.grpcPort", "70000", "--grpc-port")))
        .hasMessageContaining("serve.grpcPort = 70000 (flag --grpc-port): grpcPort must be in [0, 65535], got 70000");
  }

  @Test
  void theUpstreamPasswordComesFromTheHigherSourceAndIsNeverShown() throws IOException {
    Path pw = dir.resolve("pw");
    Files.writeString(pw, "from-file\n");
    Files.setPosixFilePermissions(pw, PosixFilePermissions.fromString("rw-------"));
    String url = "jdbc:postgresql://db:5432/app";
    BrokerConfigFactory.Built fromFile = build(Map.of("SLUICE_UPSTREAM_URL", url),
        RawSetting.flag("upstream.passwordFile", pw.toString(), "--upstream-password-file"));
    assertThat(fromFile.config().upstream().password()).isEqualTo("from-file");
    assertThat(fromFile.warnings()).isEmpty();
    // the flag beats the environment's file, and warns that it shows in ps
    BrokerConfigFactory.Built fromFlag = build(Map.of("SLUICE_UPSTREAM_URL", url,
        "SLUICE_UPSTREAM_PASSWORD_FILE", pw.toString()), RawSetting.flag("upstream.password", "hunter2",
        "--upstream-password"));
    assertThat(fromFlag.config().upstream().password()).isEqualTo("hunter2");
    assertThat(fromFlag.warnings()).singleElement().asString().contains("visible to every local user")
        .contains("SLUICE_UPSTREAM_PASSWORD").contains("--upstream-password-file");
    assertThat(build(Map.of("SLUICE_UPSTREAM_URL", url, "SLUICE_UPSTREAM_PASSWORD", "from-env")).config().upstream()
        .password()).isEqualTo("from-env");

    Files.setPosixFilePermissions(pw, PosixFilePermissions.fromString("rw-r--r--"));
    assertThat(build(Map.of("SLUICE_UPSTREAM_URL", url, "SLUICE_UPSTREAM_PASSWORD_FILE", pw.toString())).warnings())
        .singleElement().asString().contains("can be read by other users; chmod 600");
    assertThatThrownBy(() -> build(Map.of("SLUICE_UPSTREAM_URL", url, "SLUICE_UPSTREAM_PASSWORD", "hunter2",
        "SLUICE_UPSTREAM_PASSWORD_FILE", pw.toString())))
        .hasMessageContaining("both upstream.password").hasMessageContaining("keep one")
        .hasMessageContaining("upstream.password = ***").hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> build(Map.of("SLUICE_UPSTREAM_URL", url, "SLUICE_UPSTREAM_PASSWORD_FILE",
        dir.resolve("none").toString()))).hasMessageContaining("upstream.passwordFile " + dir.resolve("none")
        + " (environment variable SLUICE_UPSTREAM_PASSWORD_FILE) cannot be read: NoSuchFileException");
    assertThatThrownBy(() -> build(Map.of("SLUICE_UPSTREAM_URL", "mysql://db/app?password=in-url")))
        .hasMessageContaining("upstream.url = mysql://db/app?password=*** (environment variable SLUICE_UPSTREAM_URL)")
        .hasMessageContaining("must be a jdbc:postgresql:// URL").hasMessageNotContaining("in-url");
    assertThatThrownBy(() -> build(Map.of("SLUICE_UPSTREAM_PASSWORD", "hunter2")))
        .hasMessageContaining("upstream.password is set but upstream.url is not").hasMessageNotContaining("hunter2");
  }
}
