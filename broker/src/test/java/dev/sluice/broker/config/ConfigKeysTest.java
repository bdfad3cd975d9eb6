package dev.sluice.broker.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.broker.BrokerConfig;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The registry cannot drift from the typed configuration or from docs/CONFIG.md: every record component
 * under {@link BrokerConfig} has a key (or a reason in {@link ConfigKeys#NOT_KEYS}), and the page's
 * reference is exactly what the registry renders.
 */
class ConfigKeysTest {

  @Test
  void everyComponentOfTheTypedConfigurationHasAKeyOrAReasonNotTo() {
    Set<String> leaves = new TreeSet<>();
    collect(BrokerConfig.class, "", leaves);
    Set<String> covered = new TreeSet<>(ConfigKeys.NOT_KEYS.keySet());
    ConfigKeys.all().stream().map(Setting::path).filter(p -> p != null).forEach(covered::add);
    assertThat(covered).as("keys and NOT_KEYS name existing components").isSubsetOf(leaves);
    assertThat(leaves).as("components of the typed configuration without a key: give each one in ConfigKeys,"
        + " or a reason in NOT_KEYS").isSubsetOf(covered);
  }

  private static void collect(Class<?> type, String prefix, Set<String> out) {
    for (RecordComponent c : type.getRecordComponents()) {
      String path = prefix + c.getName();
      if (c.getType().isRecord() && c.getType().getPackageName().startsWith("dev.sluice")
          && !c.getType().getSimpleName().equals("BrokerAddress")) {
        collect(c.getType(), path + ".", out);
      } else {
        out.add(path);
      }
    }
  }

  @Test
  void keysVariablesAndFlagsAreUniqueAndEveryDefaultReadsBack() {
    Set<String> envs = new HashSet<>();
    Set<String> flags = new HashSet<>();
    List<String> undocumented = new ArrayList<>();
    for (Setting<?> s : ConfigKeys.all()) {
      assertThat(envs.add(s.env())).as("env of " + s).isTrue();
      assertThat(s.flag() == null || flags.add(s.flag())).as("flag of " + s).isTrue();
      if (s.doc().isBlank()) {
        undocumented.add(s.key());
      }
      if (s.defaultValue() != null) {
        assertThat((Object) s.type().parse(s.type().text(s.defaultValue()))).as("default of " + s)
            .isEqualTo(s.defaultValue());
      }
    }
    assertThat(undocumented).as("keys without a doc").isEmpty();
    assertThat(ConfigKeys.SERVE_GRPC_PORT.env()).isEqualTo("SLUICE_SERVE_GRPC_PORT");
    assertThat(ConfigKeys.LIMIT_SCAN_RATE.env()).isEqualTo("SLUICE_EVENT_SERVICE_LIMITS_SCAN_RATE_BYTES_PER_SECOND");
    assertThat(ConfigKeys.NODE_ID.env()).isEqualTo("SLUICE_NODE_ID");
  }

  @Test
  void docsConfigMdHoldsTheReferenceTheRegistryRenders() throws IOException {
    Path page = Path.of("..", "docs", "CONFIG.md");
    String text = Files.readString(page, StandardCharsets.UTF_8);
    String expected = ConfigReference.render(text);
    if (!expected.equals(text) && Boolean.getBoolean("config.docs.write")) {
      Files.writeString(page, expected, StandardCharsets.UTF_8);
      text = expected;
    }
    assertThat(text).as("docs/CONFIG.md is out of date with ConfigKeys: run the broker tests with"
        + " -Dconfig.docs.write=true (or ConfigReference.main) and commit the page").isEqualTo(expected);
    for (Setting<?> s : ConfigKeys.all()) {
      assertThat(text).contains("| `" + s.key() + "` | `" + s.env() + "` |");
    }
  }
}
