package dev.sluice.broker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Default, file, environment and flags combine in that order; every bad key or value names its source. */
class ConfigResolverTest {

  @TempDir
  Path dir;

  private Path file(String yaml) throws IOException {
    Path f = dir.resolve("sluice.yaml");
    Files.writeString(f, yaml);
    return f;
  }

  @Test
  void laterSourcesWinKeyByKeyAndEachValueNamesWhereItCameFrom() throws IOException {
    Path f = file("""
        serve:
          grpcPort: 9300
          adminPort: 9301
        eventService.gcRetention: 2h
        """);
    ResolvedSettings s = ConfigResolver.resolve(ConfigFile.read(f),
        Map.of("SLUICE_SERVE_ADMIN_PORT", "9401", "SLUICE_EVENT_SERVICE_GC_RETENTION", "3h", "HOME", "/root"),
        List.of(RawSetting.flag("eventService.gcRetention", "4h", "--set eventService.gcRetention"))).settings();
    assertThat(s.get(ConfigKeys.SERVE_GRPC_PORT)).isEqualTo(9300);
    assertThat(s.value(ConfigKeys.SERVE_GRPC_PORT)).isEqualTo(new SettingValue(9300, ConfigSource.FILE, f + " line 2"));
    assertThat(s.value(ConfigKeys.SERVE_ADMIN_PORT))
        .isEqualTo(new SettingValue(9401, ConfigSource.ENV, "SLUICE_SERVE_ADMIN_PORT"));
    assertThat(s.value(ConfigKeys.ES_GC_RETENTION))
        .isEqualTo(new SettingValue(Duration.ofHours(4), ConfigSource.FLAG, "--set eventService.gcRetention"));
    assertThat(s.value(ConfigKeys.SERVE_BIND).source()).isEqualTo(ConfigSource.DEFAULT);
    assertThat(s.get(ConfigKeys.SERVE_BIND)).isEqualTo("127.0.0.1");
  }

  @Test
  void everyProblemIsReportedAtOnceWithKeySourceAndADidYouMean() throws IOException {
    Path f = file("""
        serve:
          adminport: 9301
        capture:
          heartbeatInterval: 1x
        grpcPort: 1
        """);
    assertThatThrownBy(() -> ConfigResolver.resolve(ConfigFile.read(f),
        Map.of("SLUICE_CAPTURE_FRAGMENT_ROWS", "ten"),
        List.of(RawSetting.flag("eventService.gcRetentoin", "1h", "--set eventService.gcRetentoin"))))
        .isInstanceOfSatisfying(InvalidConfigException.class, e -> assertThat(e.problems()).hasSize(5))
        .hasMessageContaining("serve.adminport (" + f + " line 2): unknown key; did you mean serve.adminPort?")
        .hasMessageContaining("capture.heartbeatInterval = '1x' (" + f + " line 4): must be a duration")
        .hasMessageContaining("grpcPort (" + f + " line 5): unknown key; did you mean serve.grpcPort?")
        .hasMessageContaining("capture.fragmentRows = 'ten' (environment variable SLUICE_CAPTURE_FRAGMENT_ROWS): must be"
            + " an integer, got 'ten'")
        .hasMessageContaining("eventService.gcRetentoin (flag --set eventService.gcRetentoin): unknown key; did you mean"
            + " eventService.gcRetention?");
  }

  @Test
  void anUnknownSluiceVariableIsAWarningAndAnEmptyOneIsUnset() {
    ConfigResolver.Result r = ConfigResolver.resolve(List.of(),
        Map.of("SLUICE_SERVE_GRPC_POR", "1", "SLUICE_SERVE_GRPC_PORT", "", "SLUICE_CONFIG", "/x.yaml"), List.of());
    assertThat(r.settings().value(ConfigKeys.SERVE_GRPC_PORT).source()).isEqualTo(ConfigSource.DEFAULT);
    assertThat(r.warnings()).containsExactly("environment variable SLUICE_SERVE_GRPC_POR names no setting and is"
        + " ignored; did you mean SLUICE_SERVE_GRPC_PORT?");
  }

  @Test
  void theFileNestsOrDotsKeysAndAnEmptyValueOrSectionSetsNothing() throws IOException {
    List<RawSetting> keys = ConfigFile.read(file("""
        capture:
          slot:
          fragmentRows: 5000
        changefeeds:
        demo.seed: 7
        """));
    ResolvedSettings s = ConfigResolver.resolve(keys, Map.of(), List.of()).settings();
    assertThat(s.get(ConfigKeys.CAPTURE_FRAGMENT_ROWS)).isEqualTo(5000);
    assertThat(s.get(ConfigKeys.DEMO_SEED)).isEqualTo(7L);
    assertThat(s.value(ConfigKeys.CAPTURE_SLOT).source()).isEqualTo(ConfigSource.DEFAULT);
  }

  @Test
  void aFileThatIsNotAMappingOfKeysIsRefusedWithItsLine() throws IOException {
    assertThatThrownBy(() -> ConfigFile.read(file("serve:\n  grpcPort: 1\nserve:\n  adminPort: 2\n")))
        .isInstanceOf(InvalidConfigException.class).hasMessageContaining("line 3").hasMessageContaining("serve");
    assertThatThrownBy(() -> ConfigFile.read(file("serve:\n  grpcPort: [1, 2]\n")))
        .hasMessageContaining("serve.grpcPort (" + dir.resolve("sluice.yaml") + " line 2): takes one value, not a list");
    assertThatThrownBy(() -> ConfigFile.read(file("serve:\n  grpcPort:\n    x: 1\n")))
        .hasMessageContaining("serve.grpcPort (" + dir.resolve("sluice.yaml") + " line 2): takes a value, not a section");
    assertThatThrownBy(() -> ConfigFile.read(file("- a\n- b\n")))
        .hasMessageContaining("line 1: must be a mapping of keys (key: value), got a list");
    assertThatThrownBy(() -> ConfigFile.read(file("serve: {grpcPort: 1\n")))
        .hasMessageContaining("is not valid YAML");
    assertThatThrownBy(() -> ConfigFile.read(dir.resolve("missing.yaml")))
        .hasMessageContaining("configuration file " + dir.resolve("missing.yaml") + ": does not exist");
    assertThat(ConfigFile.read(file(""))).isEmpty();
  }
}
